import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { EVENT_VERSION } from '../../events/index.js';
import { FileLog, LogError, MemoryLog, PgLog, VersionConflict, type EventStore, type GapflowEvent } from '../../src/index.js';
import { postgresServer } from '../postgres.js';

/*
 * The store port's contract, one suite for every store: whatever holds a
 * session's events (the JSONL file, memory, later a database) passes these
 * unchanged. `handles()` gives two handles on one new stream, as two
 * writers would have (for memory: the same object; for a file: two
 * FileLogs on one folder; for PostgreSQL: two PgLogs on one session, each
 * with its own connection, against a real server this file starts).
 */

interface Flavour {
  name: string;
  handles: () => [EventStore, EventStore];
}

const root = mkdtempSync(join(tmpdir(), 'gapflow-store-'));
let folders = 0;
const databaseUrl = postgresServer();
afterAll(() => rmSync(root, { recursive: true, force: true }));

const flavours: Flavour[] = [
  {
    name: 'FileLog (JSONL)',
    handles: () => {
      const dir = join(root, `s${++folders}`);
      return [new FileLog(dir), new FileLog(dir)];
    },
  },
  {
    name: 'PgLog (PostgreSQL)',
    handles: () => {
      const session = `s${++folders}`;
      return [new PgLog(databaseUrl(), session, { ownConnection: true }), new PgLog(databaseUrl(), session, { ownConnection: true })];
    },
  },
  {
    name: 'MemoryLog',
    handles: () => {
      const store = new MemoryLog();
      return [store, store];
    },
  },
];

function event(seq: number, id = `e${seq}`): GapflowEvent {
  if (seq === 1) return { v: EVENT_VERSION, seq, id, at: '2026-01-12T09:00:00.000Z', type: 'session.started', data: {} };
  return { v: EVENT_VERSION, seq, id, at: '2026-01-12T09:00:00.000Z', type: 'gap.opened', data: { id: `G${seq}`, severity: 'LOW', title: '', blocking: true } };
}

const seqs = (events: readonly GapflowEvent[]) => events.map((e) => e.seq);

describe.each(flavours)('the store port: $name', ({ handles }) => {
  it('a new store holds no stream; create starts one that both handles read', () => {
    const [a, b] = handles();
    expect(a.exists()).toBe(false);
    a.create([event(1), event(2)]);
    expect(b.exists()).toBe(true);
    expect(seqs(b.read())).toEqual([1, 2]);
  });

  it('create refuses when a stream exists, and leaves it as it was', () => {
    const [a, b] = handles();
    a.create([event(1)]);
    expect(() => b.create([event(1, 'other')])).toThrow(LogError);
    expect(a.read().map((e) => e.id)).toEqual(['e1']);
  });

  it('read(from) gives the events after version from, in order', () => {
    const [a] = handles();
    a.create([event(1), event(2), event(3), event(4)]);
    expect(seqs(a.read(0))).toEqual([1, 2, 3, 4]);
    expect(seqs(a.read(2))).toEqual([3, 4]);
    expect(a.read(4)).toEqual([]);
  });

  it('append with the expected version appends; any other version is a VersionConflict that writes nothing', () => {
    const [a, b] = handles();
    a.create([event(1)]);
    a.append([event(2)], 1);
    expect(() => b.append([event(3)], 1)).toThrow(VersionConflict);
    try {
      b.append([event(3)], 1);
    } catch (error) {
      expect(error).toMatchObject({ expected: 1, actual: 2 });
    }
    expect(seqs(b.read())).toEqual([1, 2]);
    b.append([event(3)], 2);
    expect(seqs(a.read())).toEqual([1, 2, 3]);
  });

  it('an append whose seq does not continue the stream is refused whole', () => {
    const [a] = handles();
    a.create([event(1)]);
    expect(() => a.append([event(2), event(4)], 1)).toThrow(LogError);
    expect(seqs(a.read())).toEqual([1]);
  });

  it('event ids are unique in a stream: an append reusing one is refused whole; byId finds each event from any handle', () => {
    const [a, b] = handles();
    a.create([event(1), event(2, 'taken')]);
    expect(() => b.append([event(3, 'new'), event(4, 'taken')], 2)).toThrow(/event id taken is already in the log/);
    expect(seqs(a.read())).toEqual([1, 2]);
    expect(b.byId('taken')?.seq).toBe(2);
    expect(b.byId('__proto__')).toBeUndefined();
    a.append([event(3, '__proto__')], 2);
    expect(b.byId('__proto__')?.seq).toBe(3);
  });

  it('transact hands decide what others appended since the known version, then appends its batch', () => {
    const [a, b] = handles();
    a.create([event(1)]);
    b.append([event(2), event(3)], 1);
    const result = a.transact(1, (fresh) => ({ events: [event(4)], result: seqs(fresh) }));
    expect(result).toEqual([2, 3]);
    expect(seqs(b.read())).toEqual([1, 2, 3, 4]);
  });

  it('transact with an expected version the stream has moved past refuses before deciding, writing nothing', () => {
    const [a, b] = handles();
    a.create([event(1)]);
    b.append([event(2)], 1);
    const decide = vi.fn(() => ({ events: [event(3)], result: undefined }));
    expect(() => a.transact(1, decide, 1)).toThrow(VersionConflict);
    expect(decide).not.toHaveBeenCalled();
    expect(seqs(a.read())).toEqual([1, 2]);
    a.transact(1, decide, 2);
    expect(seqs(a.read())).toEqual([1, 2, 3]);
  });

  it('a decide that throws appends nothing, and the store takes the next write', () => {
    const [a] = handles();
    a.create([event(1)]);
    expect(() =>
      a.transact(1, () => {
        throw new Error('refused');
      }),
    ).toThrow('refused');
    expect(seqs(a.read())).toEqual([1]);
    a.transact(1, () => ({ events: [event(2)], result: undefined }));
    expect(seqs(a.read())).toEqual([1, 2]);
  });

  it('follow hears the events after from, then what any handle appends, until stopped', { timeout: 20_000 }, async () => {
    const [a, b] = handles();
    a.create([event(1), event(2)]);
    const heard: number[] = [];
    const stop = a.follow(1, (events) => heard.push(...seqs(events)), { intervalMs: 20 });
    await vi.waitFor(() => expect(heard).toEqual([2]), { timeout: 10_000, interval: 10 });
    b.append([event(3), event(4)], 2);
    await vi.waitFor(() => expect(heard).toEqual([2, 3, 4]), { timeout: 10_000, interval: 10 });
    stop();
    b.append([event(5)], 4);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(heard).toEqual([2, 3, 4]);
  });
});
