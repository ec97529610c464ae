/**
 * `node dist/bench/build-log.js DIR EVENTS BATCH`: builds the bench's session
 * in DIR (bench/workload.ts) until it holds at least EVENTS events, ending on
 * a closed progress round, and writes to BATCH the 1,000-line batch that
 * would come next (one round, for `gapflow append --file`). Prints one JSON
 * line: what was built.
 *
 * The events go in through `Session.recordAll` in batches of about 5,000
 * requests, in this process: the path `gapflow append` takes (decide
 * against the view, one locked append and fsync per batch), without a node
 * start-up per batch. Run as its own process so a build that runs out of
 * memory fails this size, not the whole bench.
 */
import { statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createFileSession, type BatchRequest } from '../src/index.js';
import { SETTINGS, Workload } from './workload.js';

const [dir, eventsArg, batchFile] = process.argv.slice(2);
if (!dir || !eventsArg || !batchFile) throw new Error('usage: build-log DIR EVENTS BATCH');
const target = Number(eventsArg);

const started = performance.now();
const workload = new Workload();
const session = createFileSession(dir, SETTINGS);
const record = (bodies: BatchRequest['body'][]) => session.recordAll(bodies.map((body) => ({ body })));
// A 100-event log (the gap-open growth line) gets a tenth of the baseline; every longer one holds 340 open gaps throughout.
record(workload.baseline(target < 1_000 ? 34 : 340));

const CHUNK = 5_000;
let pending: BatchRequest['body'][] = [];
let count = session.view.lastSeq;
// Whole pairs of rounds (progress, then flat) while the log is short of the target, then one progress round to end on.
while (count + pending.length < target || workload.round % 2 === 0) {
  const round = workload.nextRound();
  pending.push(...round);
  if (pending.length >= CHUNK) {
    record(pending);
    count = session.view.lastSeq;
    pending = [];
  }
  if (count + pending.length >= target && workload.round % 2 === 1) break;
}
if (pending.length > 0) record(pending);
const buildMs = performance.now() - started;

writeFileSync(
  batchFile,
  `${workload
    .bigRound(1_000)
    .map((body) => JSON.stringify(body))
    .join('\n')}\n`,
);

const view = session.view;
const result = {
  events: view.lastSeq,
  bytes: statSync(join(dir, 'events.jsonl')).size,
  rounds: view.rounds.length,
  gaps: view.gaps.size,
  open: view.open.count,
  state: view.machine.state,
  buildMs,
};
process.stdout.write(`${JSON.stringify(result)}\n`);
