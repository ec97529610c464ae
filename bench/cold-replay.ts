/**
 * `node --expose-gc dist/bench/cold-replay.js DIR RUNS [bare|cold]`: issue 13's goal 1,
 * in process. Times, interleaved, the bare parse of DIR's log
 * (`readFileSync` + `split('\n')` + `JSON.parse` of each line, kept in an
 * array) and a cold open of the session (`openFileSession(DIR)` with
 * DIR/checkpoint.json deleted first, outside the timing). Prints one JSON
 * line per pair, `{"bare":ms,"cold":ms,"events":n}`, as it goes, so the
 * parent keeps what finished if a later run hangs or runs out of memory.
 *
 * The first pair is a warm-up, not printed, unless its cold open took over
 * 2 s: then it counts, and only 3 pairs are run in all. With `bare` or
 * `cold`, one run of that alone (RUNS is ignored), so its peak RSS is its own.
 */
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { openFileSession } from '../src/index.js';

const [dir, runsArg] = process.argv.slice(2);
if (!dir || !runsArg) throw new Error('usage: cold-replay DIR RUNS');
const log = join(dir, 'events.jsonl');
const checkpoint = join(dir, 'checkpoint.json');
const collect = (globalThis as { gc?: () => void }).gc ?? (() => undefined);

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
  collect();
  const start = performance.now();
  const events = run();
  return { ms: performance.now() - start, events };
}

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
  process.exit(0);
}

const first = pair();
const slow = first.cold > 2_000;
if (slow) process.stdout.write(`${JSON.stringify(first)}\n`);
const runs = slow ? 2 : Number(runsArg);
for (let i = 0; i < runs; i++) process.stdout.write(`${JSON.stringify(pair())}\n`);
