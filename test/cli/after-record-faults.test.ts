import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bin, linesOf } from './bin-faults.js';
import { Sandbox, type CliResult } from './helpers.js';

/*
 * A file a write keeps beside its event (a policy's report, the session's
 * config.json) that the disk will not take (ENOSPC, test/fault-fs.mjs).
 * Whatever the order inside the call, its answer must stay true: exit 0 when
 * the event is recorded (what could not be written is one line on stderr),
 * or exit 1 when nothing was written. Never exit 1 with the event in the
 * log, which a caller retries, recording it twice.
 */

let box: Sandbox;
beforeEach(() => {
  box = new Sandbox();
});
afterEach(() => box.remove());

/** Exit 0 with the log grown by one event of `type` and at most one line on stderr, or exit 1 with one line and the log as `before`. */
function expectTrueAnswer(result: CliResult, before: Buffer | null, type: string): void {
  const after = box.logBytes();
  const said = `exit ${result.code}: ${result.stderr.trim()}`;
  expect([0, 1], said).toContain(result.code);
  if (result.code === 1) {
    expect(linesOf(result.stderr), said).toHaveLength(1);
    if (before === null) expect(after, `${said}, yet the session was made`).toBeNull();
    else expect(after !== null && after.equals(before), `${said}, yet events.jsonl changed`).toBe(true);
    return;
  }
  expect(linesOf(result.stderr).length, said).toBeLessThanOrEqual(1);
  const added = linesOf(after!.subarray(before?.length ?? 0).toString('utf8')).map((line) => (JSON.parse(line) as { type: string }).type);
  expect(added, said).toContain(type);
}

describe('a file kept beside the event that the disk will not take', () => {
  it('record quality, whose report (quality/v1/scores.json) cannot be written: exit 0 with the metrics recorded, or exit 1 with nothing written', {
    timeout: 60_000,
  }, () => {
    box.ok('init', '--policy', 'gaps,quality');
    box.steps('gap open GAP-H1 --severity HIGH', 'round start');
    const before = box.logBytes();
    const result = bin(['record', 'quality', '--score', '70', '--dir', box.dir], box.root, { under: join(box.dir, 'quality'), spaceLeft: 0 });
    expectTrueAnswer(result, before, 'metrics.recorded');
  });

  it('init --write-status, whose config.json cannot be written: exit 0 with the session started, or exit 1 with no session made', { timeout: 60_000 }, () => {
    const result = bin(['init', '--write-status', '--dir', box.dir], box.root, { under: join(box.dir, 'config.json'), spaceLeft: 0 });
    expectTrueAnswer(result, null, 'session.started');
    if (result.code === 1) expect(existsSync(box.logPath)).toBe(false);
  });
});
