import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, chmodSync, readdirSync, statSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { dashboardServer, databaseSource, Fleet, folderSource, metricsText, type Dashboard, type FleetRow } from '../../src/fleet/index.js';
import { createFileSession, PgLog, Session } from '../../src/index.js';
import { BIN, freePort, until } from '../cli/children.js';
import { runCli } from '../cli/helpers.js';
import { postgresServer } from '../postgres.js';
import { fixedStamps, tempDirs } from '../support.js';
import { readCutter } from './read-cutter.js';

/*
 * A read that fails for a passing cause (a connection cut, a log the system
 * would not open for a moment) leaves the session's last good row on the
 * dashboard, marked stale, and is tried again until one gets through, with
 * no write to the session needed. A log with a fault in it is unreadable.
 * The faults are real: a PostgreSQL server whose reader's connection is
 * terminated as it reads, a log file whose permissions are taken away.
 */

const databaseUrl = postgresServer();
const tempDir = tempDirs('gapflow-stale-');

const open: { dashboard: Dashboard; fleet: Fleet }[] = [];
const stops: (() => void)[] = [];
const children: ChildProcess[] = [];
afterEach(async () => {
  for (const { dashboard, fleet } of open.splice(0)) {
    await dashboard.close();
    fleet.stop();
  }
  for (const stop of stops.splice(0)) stop();
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

/** `gapflow serve ...` in its own process, as `uid` when given; killed after the test. Its stdout so far. */
function serving(argv: string[], cwd: string, uid: number | null): () => string {
  const child = spawn('node', [BIN, 'serve', ...argv], { cwd, stdio: ['ignore', 'pipe', 'pipe'], ...(uid === null ? {} : { uid, gid: uid }) });
  children.push(child);
  let out = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += String(chunk)));
  return () => out;
}

async function served(fleet: Fleet): Promise<string> {
  const dashboard = await dashboardServer(fleet);
  open.push({ dashboard, fleet });
  await new Promise<void>((resolve) => dashboard.server.listen(0, '127.0.0.1', resolve));
  fleet.watch();
  return `http://127.0.0.1:${(dashboard.server.address() as AddressInfo).port}`;
}

/**
 * What a dashboard shows at one moment: a session's row (from /api/sessions) and the fleet's gauges (from /metrics).
 * The two are separate requests, so the row is read again after the gauges: `steady` says it did not change between,
 * and only then must the gauges agree with it.
 */
interface Look {
  row: FleetRow | undefined;
  stale: number;
  unreadable: number;
  steady: boolean;
}

async function look(base: string, name: string): Promise<Look> {
  const rowNow = async () => ((await (await fetch(`${base}/api/sessions`)).json()) as { sessions: FleetRow[] }).sessions.find((row) => row.name === name);
  const row = await rowNow();
  const metrics = await (await fetch(`${base}/metrics`)).text();
  const after = await rowNow();
  const gauge = (metric: string) => Number(new RegExp(`^${metric} (\\S+)$`, 'm').exec(metrics)?.[1] ?? Number.NaN);
  const steady = row?.stale === after?.stale && row?.staleSince === after?.staleSince && row?.error === after?.error;
  return { row, stale: gauge('gapflow_sessions_stale'), unreadable: gauge('gapflow_sessions_unreadable'), steady };
}

/** Looks at the dashboard every 20 ms, keeping every look, until `done` holds of one; fails after `ms`. */
async function watchUntil(base: string, name: string, what: string, done: (seen: Look) => boolean, ms: number, seen: Look[] = []): Promise<Look[]> {
  const deadline = Date.now() + ms;
  for (;;) {
    const now = await look(base, name);
    seen.push(now);
    if (done(now)) return seen;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; last seen: ${JSON.stringify(now)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** A session `name` in the database with `gaps` open LOW gaps. */
function sessionIn(name: string, gaps = 1): Session {
  const session = Session.create(new PgLog(databaseUrl(), name, { ownConnection: true }), {}, fixedStamps());
  for (let i = 1; i <= gaps; i++) session.openGap(`G-${i}`, 'LOW');
  return session;
}

describe('a dashboard over PostgreSQL whose read of a session is cut', () => {
  it('shows the last good row stale, never UNREADABLE, and the session comes back within seconds with no write after the cut', {
    timeout: 60_000,
  }, async () => {
    const writer = sessionIn('cut/idle', 1);
    // Reads two seconds after a change: time for the cutter to take its lock between the write and the read.
    const base = await served(new Fleet(databaseSource(databaseUrl()), { settleMs: 2_000 }));
    expect((await look(base, 'cut/idle')).row).toMatchObject({ state: 'CONVERGING', open: 1, error: null });
    const cutter = await readCutter(databaseUrl(), 'streams', 1_000);

    // The last write the session gets: the dashboard's read of it is cut, then the session is left idle.
    writer.openGap('G-2', 'HIGH');
    await cutter.lock();
    const seen = await watchUntil(base, 'cut/idle', 'the session read again', ({ row }) => row?.open === 2 && !row.stale, 20_000);

    expect(await cutter.released()).toBeGreaterThanOrEqual(1);
    // Never UNREADABLE on the way: the row held its last good figures, marked stale, and the gauges said so.
    expect(seen.filter(({ row }) => row?.error !== null || row.state === null)).toEqual([]);
    expect(seen.filter(({ unreadable }) => unreadable !== 0)).toEqual([]);
    const stale = seen.filter(({ row }) => row?.stale === true);
    expect(stale.length).toBeGreaterThan(0);
    for (const { row } of stale) {
      expect(row).toMatchObject({ state: 'CONVERGING', open: 1, weightedOpen: 1, error: null, staleReason: expect.stringContaining('terminating connection') });
      expect(Date.parse(row!.staleSince!)).toBeGreaterThan(Date.now() - 60_000);
      expect(row!.staleForSeconds).toBeGreaterThanOrEqual(0);
    }
    // The gauge counts the stale row whenever the row stayed stale around the read of /metrics.
    const steadilyStale = stale.filter(({ steady }) => steady);
    expect(steadilyStale.length).toBeGreaterThan(0);
    expect(steadilyStale.map(({ stale: gauge }) => gauge)).toEqual(steadilyStale.map(() => 1));
    expect(seen.at(-1)).toMatchObject({
      row: { state: 'CONVERGING', open: 2, weightedOpen: 1 + 4, staleSince: null, staleForSeconds: null, staleReason: null },
      stale: 0,
    });
  });

  it('gapflow fleet reads again a first read that was cut, and lists the session, not UNREADABLE', { timeout: 60_000 }, async () => {
    sessionIn('cut/listed', 3);
    // The checkpoints locked, not the streams: the listing of sessions goes through, each session's read (its head row) waits and is cut.
    const cutter = await readCutter(databaseUrl(), 'checkpoints', 500);
    await cutter.lock();
    const listed = runCli(['fleet', databaseUrl(), '--json'], { cwd: '/' });
    expect(await cutter.released()).toBeGreaterThanOrEqual(1);
    expect(listed.code).toBe(0);
    const { sessions } = JSON.parse(listed.stdout) as { sessions: FleetRow[] };
    expect(sessions.find((row) => row.name === 'cut/listed')).toMatchObject({ state: 'CONVERGING', open: 3, error: null, stale: false });
  });

  it('shows a stream with a bad line UNREADABLE, naming it, not stale', { timeout: 60_000 }, async () => {
    const session = sessionIn('bad/line', 1);
    const base = await served(new Fleet(databaseSource(databaseUrl(), { pollMs: 100 }), { settleMs: 10 }));
    expect((await look(base, 'bad/line')).row).toMatchObject({ state: 'CONVERGING', error: null });
    // A row another program wrote: a line that is no event, at the next seq.
    const client = new pg.Client({ connectionString: databaseUrl() });
    await client.connect();
    try {
      const seq = session.view.lastSeq + 1;
      await client.query('BEGIN');
      await client.query(
        `INSERT INTO gapflow.events (stream, seq, id, type, at, line) VALUES ($1, $2, 'x-1', 'gap.opened', '2026-01-12T09:00:00.000Z', 'not an event')`,
        ['bad/line', seq],
      );
      await client.query('UPDATE gapflow.streams SET version = $2 WHERE name = $1', ['bad/line', seq]);
      await client.query('COMMIT');
    } finally {
      await client.end();
    }
    const [shown] = (await watchUntil(base, 'bad/line', 'the fault', ({ row }) => row?.error != null, 15_000)).slice(-1);
    expect(shown!.row).toMatchObject({ state: null, stale: false, staleSince: null, error: expect.stringContaining(`seq ${session.view.lastSeq + 1}`) });
    expect([shown!.unreadable, shown!.stale]).toEqual([1, 0]);
  });
});

/** Every folder and file under `dir`, readable by anyone (a temporary folder is its maker's alone). */
function readableByAll(dir: string): void {
  chmodSync(dir, 0o755);
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) readableByAll(path);
    else chmodSync(path, 0o644);
  }
}

describe('a dashboard over a folder whose log cannot be opened for a while', () => {
  it('gapflow serve shows the last good row stale while the log is refused to it, then the session as written, with no write after', {
    timeout: 60_000,
  }, async () => {
    const root = tempDir();
    const dir = join(root, 'paused', '.gapflow');
    const session = createFileSession(dir, {}, fixedStamps());
    session.openGap('A', 'HIGH');
    session.openGap('B', 'LOW');
    readableByAll(root);
    const port = await freePort();
    // Root reads any file whatever its mode: the server runs as nobody then, so a mode taken away is a read refused.
    const stdout = serving(['--port', String(port), root], root, process.getuid?.() === 0 ? 65534 : null);
    await until('the URL on stdout', () => stdout().includes('\n'), 20_000);
    const base = `http://127.0.0.1:${port}`;
    await watchUntil(base, 'paused', 'the first row', ({ row }) => row?.open === 2, 15_000);

    // The log refused to the server, and then the last write the session gets: the server's read of it fails.
    chmodSync(join(dir, 'events.jsonl'), 0o000);
    session.openGap('C', 'MEDIUM');
    const refused = await watchUntil(base, 'paused', 'the stale row', ({ row }) => row?.stale === true || row?.error != null, 15_000);
    expect(refused.at(-1)).toMatchObject({
      row: { state: 'CONVERGING', open: 2, weightedOpen: 4 + 1, error: null, stale: true, staleReason: expect.stringContaining('EACCES') },
      stale: 1,
      unreadable: 0,
    });

    chmodSync(join(dir, 'events.jsonl'), 0o644);
    const back = await watchUntil(base, 'paused', 'the session read again', ({ row }) => row?.stale === false, 15_000);
    expect(back.at(-1)).toMatchObject({
      row: { state: 'CONVERGING', open: 3, weightedOpen: 4 + 1 + 2, error: null, staleSince: null },
      stale: 0,
      unreadable: 0,
    });
    expect(back.filter(({ row }) => row?.error != null)).toEqual([]);
  });

  it('shows a log with bad lines UNREADABLE, naming the line, not stale, though it read well before', { timeout: 30_000 }, async () => {
    const root = tempDir();
    const dir = join(root, 'broken', '.gapflow');
    createFileSession(dir, {}, fixedStamps()).openGap('A', 'LOW');
    const fleet = new Fleet(folderSource(root, { rescanMs: 50, followMs: 50 }), { settleMs: 10 });
    stops.push(() => fleet.stop());
    fleet.watch();
    expect(fleet.rows()[0]).toMatchObject({ state: 'CONVERGING', error: null });
    // Two bad lines: a bad last line alone may be a write under way, which is waited out.
    appendFileSync(join(dir, 'events.jsonl'), '{"not": "an event"}\n{"nor": "this"}\n');
    await until('the fault', () => fleet.rows()[0]!.error !== null || fleet.rows()[0]!.stale, 10_000);
    expect(fleet.rows()[0]).toMatchObject({ state: null, stale: false, error: expect.stringContaining('line 3') });
    expect(metricsText(fleet.rows())).toMatch(/^gapflow_sessions_unreadable 1$/m);
    expect(metricsText(fleet.rows())).toMatch(/^gapflow_sessions_stale 0$/m);
  });
});
