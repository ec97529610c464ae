/**
 * `node dist/bench/cold-replay.js DIR RUNS [bare|cold]`: issue 13's goal 1,
 * in process. Times, interleaved, the bare parse of DIR's log
 * (`readFileSync` + `split('\n')` + `JSON.parse` of each line, kept in an
 * array) and a cold open of the session (`openFileSession(DIR)` with
 * DIR/checkpoint.json deleted first, outside the timing). Prints one JSON
 * line per pair, `{"bare":ms,"cold":ms,"events":n}`, as it goes, so the
 * parent keeps what finished if a later run hangs or runs out of memory.
 *
 * The first pair is a warm-up, not printed, unless its cold open took over
 * 2 s: then it counts, and only 3 pairs are run in all. Otherwise more
 * warm-up pairs follow for up to a second (at most 50), so a short log is
 * measured with the JIT settled: the goal compares the replay's work with
 * JSON.parse's, not V8's warm-up. Then RUNS pairs are measured, or more,
 * for at least a second (at most 41), so a short log's median rests on
 * enough pairs to hold still from one run to the next. With `bare` or
 * `cold`, one run of that alone (RUNS is ignored), so its peak RSS is its own.
 *
 * An open writes its checkpoints on the event loop's next turn, after the
 * caller's: each pair is followed by that turn, outside the timing, so the
 * writes happen (and the next pair's cold open deletes the checkpoint
 * again); the run alone takes that turn before it exits, so its peak RSS
 * counts the write.
 *
 * No forced gc() between runs: with --expose-gc, a gc() before each open made
 * a 1k-event open 6 ms → 9-15 ms (code flushed; JSON.parse, a builtin, lost
 * nothing), which is not what a cold process pays.
 */
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { openFileSession } from '../src/index.js';

const [dir, runsArg] = process.argv.slice(2);
if (!dir || !runsArg) throw new Error('usage: cold-replay DIR RUNS');
const log = join(dir, 'events.jsonl');
const checkpoint = join(dir, 'checkpoint.json');

function bare(): number {
  const lines = readFileSync(log, 'utf8').split('\n');
  const parsed: unknown[] = [];
  for (const line of lines) if (line !== '') parsed.push(JSON.parse(line));
  return parsed.length;
}

function cold(): number {
  return openFileSession(dir!).view.lastSeq;
}

function timed(run: () => number): { ms: number; events: number } {
  const start = performance.now();
  const events = run();
  return { ms: performance.now() - start, events };
}

/** The event loop's next turn, where an open's checkpoint writes run. */
const turn = () => new Promise((resolve) => setImmediate(resolve));

function pair(): { bare: number; cold: number; events: number } {
  const a = timed(bare);
  rmSync(checkpoint, { force: true });
  const b = timed(cold);
  if (a.events !== b.events) throw new Error(`the bare parse read ${a.events} lines, the session ${b.events} events`);
  return { bare: a.ms, cold: b.ms, events: b.events };
}

// `bare` or `cold`: one run of that alone, for its peak RSS (the parent wraps this process in /usr/bin/time).
const only = process.argv[4];
if (only === 'bare' || only === 'cold') {
  if (only === 'cold') rmSync(checkpoint, { force: true });
  process.stdout.write(`${JSON.stringify(timed(only === 'bare' ? bare : cold))}\n`);
  await turn();
  process.exit(0);
}

const first = pair();
await turn();
const slow = first.cold > 2_000;
if (slow) process.stdout.write(`${JSON.stringify(first)}\n`);
// A short log is opened again until the JIT has settled (a 1k-event open goes 30 ms → 7 ms over its first 20 or so).
const warmUntil = performance.now() + 1_000;
for (let i = 0; !slow && i < 50 && performance.now() < warmUntil; i++) {
  pair();
  await turn();
}
const runs = slow ? 2 : Number(runsArg);
// A short log's pairs take milliseconds, and its median over a handful swung by a tenth from run to run: it gets
// more pairs, for at least a second, up to MAX_PAIRS (a long log's few take seconds each, and stay at `runs`).
const MAX_PAIRS = 41;
const measureUntil = performance.now() + 1_000;
for (let i = 0; i < runs || (!slow && i < MAX_PAIRS && performance.now() < measureUntil); i++) {
  process.stdout.write(`${JSON.stringify(pair())}\n`);
  await turn();
}
