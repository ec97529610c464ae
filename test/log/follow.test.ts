import { appendFileSync, copyFileSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { EVENT_VERSION, type GapflowEvent } from '../../events/index.js';
import { createFileSession, FileLog, openFileSession, type LogError } from '../../src/index.js';
import { tempDirs } from '../support.js';

/*
 * Following a file log: other handles' appends are heard as they are
 * written (a change notice wakes the follower; the timed look is only the
 * fallback), only the bytes added are read, and a log that goes bad or is
 * replaced is told, not misread.
 */

const tempDir = tempDirs('gapflow-follow-');
/** A timed look far beyond any test: only a change notice can wake the follower. */
const NO_POLL = { intervalMs: 3_600_000 };

function sessionWithGaps(dir: string, ...ids: string[]): void {
  const session = createFileSession(dir);
  for (const id of ids) session.openGap(id, 'LOW', { title: `gap ${id}` });
}

function follower(log: FileLog, from: number, options = {}) {
  const heard: GapflowEvent[] = [];
  const errors: LogError[] = [];
  const stop = log.follow(from, (events) => heard.push(...events), { ...NO_POLL, onError: (error) => errors.push(error), ...options });
  return { heard, errors, stop, seqs: () => heard.map((e) => e.seq) };
}

describe('FileLog.follow', () => {
  it("hears another handle's append within a second, woken by the change notice, not by the timed look", { timeout: 10_000 }, async () => {
    const dir = tempDir();
    sessionWithGaps(dir, 'A');
    const reader = new FileLog(dir);
    reader.read();
    const f = follower(reader, 2);
    try {
      const written = Date.now();
      openFileSession(dir).openGap('B', 'HIGH');
      await vi.waitFor(() => expect(f.seqs()).toEqual([3]), { timeout: 1_000, interval: 5 });
      expect(Date.now() - written).toBeLessThan(1_000);
      expect(f.heard[0]).toMatchObject({ type: 'gap.opened', data: { id: 'B', severity: 'HIGH' } });
    } finally {
      f.stop();
    }
  });

  it('reads only what was added: a line before its cursor, damaged meanwhile, is not read again', { timeout: 10_000 }, async () => {
    const dir = tempDir();
    sessionWithGaps(dir, 'A', 'B');
    const reader = new FileLog(dir);
    reader.read();
    const writer = new FileLog(dir);
    writer.read();
    const f = follower(reader, 3);
    try {
      // Same length, other bytes: a whole read would stop at line 2's checksum and hear nothing after it.
      const path = join(dir, 'events.jsonl');
      writeFileSync(path, readFileSync(path, 'utf8').replace('"title":"gap A"', '"title":"gap Z"'));
      // A write that looks only past what it read (append would look the id up in the whole log).
      writer.transact(3, () => ({ events: [rawEvent(4)], result: undefined }));
      await vi.waitFor(() => expect(f.seqs()).toEqual([4]), { timeout: 2_000, interval: 5 });
      expect(f.errors).toEqual([]);
    } finally {
      f.stop();
    }
  });

  it('from the end: hands over nothing first, reads the last line alone (a damaged line before it is not read), then hears each append', {
    timeout: 10_000,
  }, async () => {
    const dir = tempDir();
    sessionWithGaps(dir, 'A', 'B');
    // Same length, other bytes in line 2: a whole read would stop at its checksum and tell a fault.
    const path = join(dir, 'events.jsonl');
    writeFileSync(path, readFileSync(path, 'utf8').replace('"title":"gap A"', '"title":"gap Z"'));
    const f = follower(new FileLog(dir), 0, { fromEnd: true });
    try {
      expect(f.seqs()).toEqual([]);
      new FileLog(dir).transact(3, () => ({ events: [rawEvent(4)], result: undefined }));
      await vi.waitFor(() => expect(f.seqs()).toEqual([4]), { timeout: 2_000, interval: 5 });
      expect(f.errors).toEqual([]);
    } finally {
      f.stop();
    }
  });

  it('from the end of a log whose last line carries no checksum (version 1): reads it whole, as from `from`', { timeout: 10_000 }, () => {
    const dir = tempDir();
    const log = new FileLog(dir);
    log.create([rawEvent(1)]);
    const path = join(dir, 'events.jsonl');
    const line = readFileSync(path, 'utf8');
    writeFileSync(path, line.replace(/,"sum":"[^"]*"\}\n$/, '}\n').replace(/^\{"v":\d/, '{"v":1'));
    expect(readFileSync(path, 'utf8')).not.toContain('"sum"');
    const f = follower(new FileLog(dir), 0, { fromEnd: true });
    try {
      expect(f.seqs()).toEqual([1]);
    } finally {
      f.stop();
    }
  });

  it('hears the events after `from` at once, then each append in order, and nothing once stopped', { timeout: 10_000 }, async () => {
    const dir = tempDir();
    sessionWithGaps(dir, 'A', 'B');
    const f = follower(new FileLog(dir), 1);
    expect(f.seqs()).toEqual([2, 3]);
    const writer = openFileSession(dir);
    writer.openGap('C', 'LOW');
    await vi.waitFor(() => expect(f.seqs()).toEqual([2, 3, 4]), { timeout: 2_000, interval: 5 });
    writer.openGap('D', 'LOW');
    await vi.waitFor(() => expect(f.seqs()).toEqual([2, 3, 4, 5]), { timeout: 2_000, interval: 5 });
    f.stop();
    writer.openGap('E', 'LOW');
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(f.seqs()).toEqual([2, 3, 4, 5]);
  });

  it('waits out a line still being written, and hears it once it is whole', { timeout: 10_000 }, async () => {
    const dir = tempDir();
    sessionWithGaps(dir, 'A');
    // The line the next append writes, made on a copy of the log (a sealed line depends only on it and the line before).
    const copy = tempDir();
    copyFileSync(join(dir, 'events.jsonl'), join(copy, 'events.jsonl'));
    new FileLog(copy).append([rawEvent(3)], 2);
    const line = readFileSync(join(copy, 'events.jsonl')).subarray(statSync(join(dir, 'events.jsonl')).size);
    const f = follower(new FileLog(dir), 2, { intervalMs: 20 });
    // It arrives in two writes, as a large append may: the first half is no fault.
    appendFileSync(join(dir, 'events.jsonl'), line.subarray(0, 40));
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(f.seqs()).toEqual([]);
    expect(f.errors).toEqual([]);
    appendFileSync(join(dir, 'events.jsonl'), line.subarray(40));
    await vi.waitFor(() => expect(f.seqs()).toEqual([3]), { timeout: 2_000, interval: 5 });
    expect(f.errors).toEqual([]);
    f.stop();
  });

  it('tells a bad line once, naming it, after passing on the good lines before it', { timeout: 10_000 }, async () => {
    const dir = tempDir();
    sessionWithGaps(dir, 'A');
    const path = join(dir, 'events.jsonl');
    const f = follower(new FileLog(dir), 2, { intervalMs: 20 });
    openFileSession(dir).openGap('B', 'LOW');
    appendFileSync(path, '{"not":"an event"}\n');
    await vi.waitFor(() => expect(f.errors).toHaveLength(1), { timeout: 2_000, interval: 5 });
    expect(f.seqs()).toEqual([3]);
    expect(f.errors[0]!.message).toMatch(/events\.jsonl line 4: /);
    // The timed look keeps finding it: told once all the same.
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(f.errors).toHaveLength(1);
    f.stop();
  });

  it('stops, saying so, when the log is replaced beneath it: what it holds no longer continues what was heard', { timeout: 10_000 }, async () => {
    const dir = tempDir();
    sessionWithGaps(dir, 'A', 'B');
    const f = follower(new FileLog(dir), 3, { intervalMs: 20 });
    const path = join(dir, 'events.jsonl');
    const [first] = readFileSync(path, 'utf8').split('\n');
    writeFileSync(path, `${first}\n`);
    await vi.waitFor(() => expect(f.errors).toHaveLength(1), { timeout: 2_000, interval: 5 });
    expect(f.errors[0]!.message).toMatch(/changed beneath this follower.*start again/);
    // What is written there next is not read as the continuation of what was heard.
    const session = openFileSession(dir);
    for (const id of ['X', 'Y', 'Z', 'W']) session.openGap(id, 'LOW');
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(f.seqs()).toEqual([]);
    expect(f.errors).toHaveLength(1);
    f.stop();
  });
});

/** An event a raw append takes as seq `seq` (the store seals it). */
function rawEvent(seq: number): GapflowEvent {
  return {
    v: EVENT_VERSION,
    seq,
    id: `raw-${seq}`,
    at: '2026-01-12T09:00:00.000Z',
    type: 'gap.opened',
    data: { id: `R-${seq}`, severity: 'LOW', title: '', blocking: true },
  } as GapflowEvent;
}
