import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createFileSession, FileLog, openFileSession, Session, type Batch, type Expected, type GapflowEvent } from '../../src/index.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/**
 * A file log that lets another attempt of the same request land just before
 * the retry takes hold of the log, as a slow original and its retry race:
 * whatever the retry judged before holding the log is stale by then.
 */
class RacedLog extends FileLog {
  #raced = false;
  constructor(
    dir: string,
    private readonly original: () => void,
  ) {
    super(dir);
  }
  override transact<T>(knownVersion: number, decide: (fresh: readonly GapflowEvent[]) => Batch<T>, expected?: Expected): T {
    if (!this.#raced) {
      this.#raced = true;
      this.original();
    }
    return super.transact(knownVersion, decide, expected);
  }
}

describe('a retry racing its original', () => {
  it('is judged holding the log: the original went in, so the retry appends nothing and is not refused as moved on', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gapflow-race-'));
    dirs.push(dir);
    createFileSession(dir);
    const request = { type: 'gap.opened' as const, data: { id: 'G-1', severity: 'LOW' as const } };
    const retry = Session.open(new RacedLog(dir, () => openFileSession(dir).record(request, { eventId: 'req-1', expectSeq: 1 })));
    const recorded = retry.recordAll([{ body: request, id: 'req-1' }], null, { expectSeq: 1 });
    expect(recorded.appended).toEqual([]);
    expect(recorded.groups[0]!.map((e) => [e.seq, e.id])).toEqual([[2, 'req-1']]);
    expect(
      openFileSession(dir)
        .log.read()
        .map((e) => e.seq),
    ).toEqual([1, 2]);
  });
});
