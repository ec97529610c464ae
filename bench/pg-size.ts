/**
 * `node dist/bench/pg-size.js URL DIR SESSION FSYNC_PASSES`: one size of
 * `npm run bench:postgres` (bench/postgres.ts), in a process of its own so
 * its peak RSS is its own and a size that runs out of memory fails alone.
 *
 * DIR holds a JSONL session built by bench/build-log.ts; its events go into
 * the PostgreSQL stream SESSION at URL as they are (one `PgLog.create`), so
 * both stores hold the same lines. Then, each subject interleaved with its
 * bare baseline (subject, baseline, subject…), medians:
 *
 *  - one query: `PgLog.exists()` vs the same SELECT on a `pg` client of
 *    this thread (what the worker hop costs, around one round trip);
 *  - read: `FileLog.read()` vs readFileSync + split + JSON.parse of each
 *    line; `PgLog.read()` vs a bare SELECT of the stream's lines, ordered,
 *    and JSON.parse of each;
 *  - open: `Session.open(store)` vs the same store's bare read, each from
 *    its checkpoint (the file's left by its build, the database's written
 *    by one open before the timing);
 *  - append of one event: `FileLog.append` vs open('a') + write + fsync +
 *    close of as many bytes on a copy of the log; `PgLog.append` vs BEGIN,
 *    INSERT of the same columns into a copy of the events table, COMMIT,
 *    on a connection of this thread; once per fsync setting in
 *    FSYNC_PASSES (`on`, `off` or `on,off`), set on the server with ALTER
 *    SYSTEM + pg_reload_conf between passes.
 *
 * Prints one JSON line per measure (`Measured`), as it goes.
 */
import { closeSync, copyFileSync, fsyncSync, openSync, readFileSync, rmSync, statSync, writeSync } from 'node:fs';
import { settleWrites } from './args.js';
import { join } from 'node:path';
import pg from 'pg';
import { closePostgresStores, FileLog, PgLog, Session, type EventStore, type GapflowEvent } from '../src/index.js';
import { median } from './measure.js';

const [url, dir, session, passesArg] = process.argv.slice(2);
if (!url || !dir || !session || !passesArg) throw new Error('usage: pg-size URL DIR SESSION on|off|on,off');
const passes = passesArg.split(',');
if (!passes.every((pass) => pass === 'on' || pass === 'off')) throw new Error(`fsync passes: "${passesArg}" is not on, off or on,off`);

export interface Measured {
  store: 'JSONL' | 'PostgreSQL';
  measure: string;
  /** The PostgreSQL server's fsync setting, for a measure that writes to it. */
  fsync?: 'on' | 'off';
  ms: number;
  baseline: string;
  baselineMs: number;
  pairs: number;
}

/** What the bench reports besides its measures: the stream as built, the server. */
export interface Facts {
  events: number;
  bytes: number;
  createMs: number;
  server: string;
}

type Timed = () => unknown;

/** An append is a few milliseconds whose fsync swings on a shared disk: it gets more pairs than a read. */
const APPEND_PAIRS = 61;

async function time(run: Timed): Promise<number> {
  const start = performance.now();
  const result = run();
  if (result instanceof Promise) await result;
  return performance.now() - start;
}

/** The event loop's next turn: where a session's open writes its checkpoints, outside the timing. */
const turn = () => new Promise((resolve) => setImmediate(resolve));

/**
 * Subject and baseline in turns: warm-up pairs for up to a second (at least
 * 3, at most 30; one when a pair takes over 2 s), then at least `least`
 * pairs and more for up to 2 s (at most 41; 3 when a pair takes over 2 s).
 */
async function interleave(subject: Timed, baseline: Timed, least = 7): Promise<{ subject: number; baseline: number; pairs: number }> {
  // Which goes first alternates: an fsync that lands on the other's writeback, a backend woken by the other's query,
  // falls on each side alike.
  let order = 0;
  const timeThenTurn = async (run: Timed) => {
    const ms = await time(run);
    await turn();
    return ms;
  };
  const pair = async () => {
    if (order++ % 2 === 0) return [await timeThenTurn(subject), await timeThenTurn(baseline)] as const;
    const b = await timeThenTurn(baseline);
    return [await timeThenTurn(subject), b] as const;
  };
  const [first] = await pair();
  const slow = first > 2_000;
  const warmUntil = performance.now() + 1_000;
  for (let i = 1; !slow && i < 30 && (i < 3 || performance.now() < warmUntil); i++) await pair();
  const subjects: number[] = [];
  const baselines: number[] = [];
  const measureUntil = performance.now() + 2_000;
  for (let i = 0; slow ? i < 3 : i < least || (i < 41 && performance.now() < measureUntil); i++) {
    const [a, b] = await pair();
    subjects.push(a);
    baselines.push(b);
  }
  return { subject: median(subjects), baseline: median(baselines), pairs: subjects.length };
}

function report(measured: Measured): void {
  process.stdout.write(`${JSON.stringify(measured)}\n`);
}

// --- the stores, as built ---------------------------------------------------

const logFile = join(dir, 'events.jsonl');
const events = new FileLog(dir).read();
const pgLog = new PgLog(url, session);
const createStart = performance.now();
pgLog.create(events);
const createMs = performance.now() - createStart;

const client = new pg.Client({ connectionString: url, application_name: 'gapflow-bench' });
await client.connect();
// The planner's statistics as autovacuum would leave them a minute later: without them, a read of a stream just
// copied in takes a bitmap scan and a sort, at twice the server time (12 ms against 5.5 at 10k events).
await client.query('VACUUM ANALYZE gapflow.events');
const server = (await client.query<{ server_version: string }>('SHOW server_version')).rows[0]!.server_version;
const facts: Facts = { events: events.length, bytes: statSync(logFile).size, createMs, server };
process.stdout.write(`${JSON.stringify({ facts })}\n`);

const bareFileRead = () => {
  const parsed: unknown[] = [];
  for (const line of readFileSync(logFile, 'utf8').split('\n')) if (line !== '') parsed.push(JSON.parse(line));
  return parsed;
};
const bareSelect = async () => {
  const { rows } = await client.query<{ line: string }>('SELECT line FROM gapflow.events WHERE stream = $1 ORDER BY seq', [session]);
  return rows.map((row) => JSON.parse(row.line) as unknown);
};

try {
  // --- one query: the worker hop ---------------------------------------------
  {
    const r = await interleave(
      () => pgLog.exists(),
      () => client.query('SELECT 1 FROM gapflow.streams WHERE name = $1', [session]),
    );
    report({
      store: 'PostgreSQL',
      measure: 'one query (exists)',
      ms: r.subject,
      baseline: 'same SELECT, pg on this thread',
      baselineMs: r.baseline,
      pairs: r.pairs,
    });
  }

  // --- read --------------------------------------------------------------------
  {
    const count = (store: EventStore) => () => {
      if (store.read().length !== events.length) throw new Error(`${store.location}: read a different number of events`);
    };
    const file = await interleave(count(new FileLog(dir)), bareFileRead);
    report({
      store: 'JSONL',
      measure: 'read whole stream',
      ms: file.subject,
      baseline: 'readFileSync + split + JSON.parse',
      baselineMs: file.baseline,
      pairs: file.pairs,
    });
    const db = await interleave(count(pgLog), bareSelect);
    report({
      store: 'PostgreSQL',
      measure: 'read whole stream',
      ms: db.subject,
      baseline: 'SELECT line ORDER BY seq + JSON.parse',
      baselineMs: db.baseline,
      pairs: db.pairs,
    });
  }

  // --- open ----------------------------------------------------------------------
  {
    const open = (store: () => EventStore) => () => {
      if (Session.open(store()).view.lastSeq !== events.length) throw new Error('the session opened at a different seq');
    };
    const file = await interleave(
      open(() => new FileLog(dir)),
      bareFileRead,
    );
    report({
      store: 'JSONL',
      measure: 'Session.open (checkpoint)',
      ms: file.subject,
      baseline: 'readFileSync + split + JSON.parse',
      baselineMs: file.baseline,
      pairs: file.pairs,
    });
    // The first open replays every event and writes the checkpoint the timed ones start from.
    Session.open(new PgLog(url, session)).saveCheckpoints();
    const db = await interleave(
      open(() => new PgLog(url, session)),
      bareSelect,
    );
    report({
      store: 'PostgreSQL',
      measure: 'Session.open (checkpoint)',
      ms: db.subject,
      baseline: 'SELECT line ORDER BY seq + JSON.parse',
      baselineMs: db.baseline,
      pairs: db.pairs,
    });
  }

  // --- append one event ------------------------------------------------------------
  // A gap.opened like the stream's last one, with fresh ids of one length, so every line has the same size.
  const template = events.findLast((event) => event.type === 'gap.opened')!;
  let serial = 0;
  const next = (after: number): GapflowEvent => {
    const n = String(serial++).padStart(6, '0');
    return { ...template, seq: after + 1, id: `bench-${n}`, data: { ...template.data, id: `B-${n}` } } as GapflowEvent;
  };

  const fileLog = new FileLog(dir);
  let fileVersion = events.length;
  const appendFile = () => {
    fileLog.append([next(fileVersion)], fileVersion);
    fileVersion++;
  };
  // One append shows a line's size (and builds the file log's id index, as its first append does).
  const sizeBefore = statSync(logFile).size;
  appendFile();
  const lineBytes = statSync(logFile).size - sizeBefore;
  const copy = join(dir, 'bare-append.jsonl');
  copyFileSync(logFile, copy);
  settleWrites(copy);
  const filler = `${'x'.repeat(lineBytes - 1)}\n`;
  const bareAppend = () => {
    const fd = openSync(copy, 'a');
    writeSync(fd, filler);
    fsyncSync(fd);
    closeSync(fd);
  };

  let pgVersion = events.length;
  const appendPg = () => {
    pgLog.append([next(pgVersion)], pgVersion);
    pgVersion++;
  };
  // The bare INSERT's table: a copy of the events table (its columns, defaults, identity and indexes) and its rows.
  await client.query('CREATE SCHEMA IF NOT EXISTS bench');
  await client.query('DROP TABLE IF EXISTS bench.events');
  await client.query('CREATE TABLE bench.events (LIKE gapflow.events INCLUDING ALL)');
  await client.query('INSERT INTO bench.events OVERRIDING SYSTEM VALUE SELECT * FROM gapflow.events');
  await client.query('VACUUM ANALYZE bench.events');
  let bareSeq = 0;
  const line = readFileSync(logFile, 'utf8').trimEnd().split('\n').at(-1)!;
  const bareInsert = async () => {
    const n = String(bareSeq++).padStart(6, '0');
    await client.query('BEGIN');
    await client.query('INSERT INTO bench.events (stream, seq, id, type, at, line) VALUES ($1, $2, $3, $4, $5, $6)', [
      `bare-${session}`,
      bareSeq,
      `bare-${n}`,
      template.type,
      template.at,
      line,
    ]);
    await client.query('COMMIT');
  };

  let fileDone = false;
  for (const pass of passes as ('on' | 'off')[]) {
    await setFsync(pass);
    if (!fileDone) {
      const file = await interleave(appendFile, bareAppend, APPEND_PAIRS);
      report({
        store: 'JSONL',
        measure: 'append one event',
        ms: file.subject,
        baseline: `open('a') + write + fsync (${lineBytes} B)`,
        baselineMs: file.baseline,
        pairs: file.pairs,
      });
      fileDone = true;
    }
    const db = await interleave(appendPg, bareInsert, APPEND_PAIRS);
    report({
      store: 'PostgreSQL',
      measure: 'append one event',
      fsync: pass,
      ms: db.subject,
      baseline: 'BEGIN + INSERT one row + COMMIT',
      baselineMs: db.baseline,
      pairs: db.pairs,
    });
  }
  rmSync(copy, { force: true });
} finally {
  await client.end();
  closePostgresStores();
}

/** Sets the server's fsync and waits until this connection's backend runs with it (a reload reaches each backend between statements). */
async function setFsync(value: 'on' | 'off'): Promise<void> {
  await client.query(`ALTER SYSTEM SET fsync = ${value}`);
  await client.query('SELECT pg_reload_conf()');
  for (let i = 0; i < 100; i++) {
    const shown = (await client.query<{ fsync: string }>('SHOW fsync')).rows[0]!.fsync;
    if (shown === value) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`the server's fsync did not turn ${value}`);
}
