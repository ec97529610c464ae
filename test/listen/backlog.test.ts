import { describe, expect, it } from 'vitest';
import { Backlog, BACKLOG_BYTES, BACKLOG_MESSAGES } from '../../src/listen/index.js';

/*
 * What a relay holds for a late viewer stays within both of its bounds,
 * whatever comes: the oldest go first, the machine's definition last.
 */

const MiB = 1024 * 1024;

/** A message of `bytes` bytes, numbered so each is told from the others. */
const large = (i: number, bytes: number) => `${String(i).padStart(8, '0')}${'x'.repeat(bytes - 8)}`;

describe('the backlog', () => {
  // A gigabyte of strings is built and measured: seconds on a busy machine.
  it('after 1,000 messages of 1 MiB holds no more than BACKLOG_BYTES, the newest, in order', { timeout: 60_000 }, () => {
    const backlog = new Backlog();
    for (let i = 0; i < 1_000; i++) backlog.add(large(i, MiB));
    const held = backlog.held();
    expect(held.bytes).toBeLessThanOrEqual(BACKLOG_BYTES);
    expect(held.count).toBe(Math.floor(BACKLOG_BYTES / MiB));
    const messages = backlog.messages();
    expect(messages.reduce((sum, m) => sum + Buffer.byteLength(m), 0)).toBe(held.bytes);
    expect(messages.map((m) => Number(m.slice(0, 8)))).toEqual(Array.from({ length: held.count }, (_, k) => 1_000 - held.count + k));
  });

  it('after more small messages than BACKLOG_MESSAGES holds that many, the newest', () => {
    const backlog = new Backlog();
    for (let i = 0; i < BACKLOG_MESSAGES + 2_000; i++) backlog.add(large(i, 16));
    expect(backlog.held()).toEqual({ count: BACKLOG_MESSAGES, bytes: BACKLOG_MESSAGES * 16 });
    expect(backlog.messages()[0]!.slice(0, 8)).toBe('00002000');
  });

  it("keeps a pinned message (the machine's definition) first, past every drop of the others, within the same bounds", () => {
    const backlog = new Backlog(5, 1_000);
    backlog.add('definition', true);
    for (let i = 0; i < 50; i++) backlog.add(large(i, 100));
    expect(backlog.messages()).toEqual(['definition', large(46, 100), large(47, 100), large(48, 100), large(49, 100)]);
    expect(backlog.held()).toEqual({ count: 5, bytes: 10 + 4 * 100 });
  });

  it('keeps no message that alone is over the byte bound, and the definition stays', () => {
    const backlog = new Backlog(5, 1_000);
    backlog.add('definition', true);
    backlog.add(large(0, 2_000));
    expect(backlog.messages()).toEqual(['definition']);
    expect(backlog.held()).toEqual({ count: 1, bytes: 10 });
  });

  it('drops pinned messages too, oldest first, when they alone pass a bound', () => {
    const backlog = new Backlog(2, 1_000);
    for (const name of ['a', 'b', 'c']) backlog.add(name, true);
    expect(backlog.messages()).toEqual(['b', 'c']);
  });
});
