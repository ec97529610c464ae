import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { PgLog, verifyStoreSession } from '../../src/index.js';
import { postgresServer } from '../postgres.js';
import { run } from '../../src/cli/index.js';

/*
 * Eight processes append through the CLI at once to a real PostgreSQL
 * server, each with --expect-seq: once all on one session (they take turns
 * on its row lock, and every writer that expected a seq another got to
 * first is refused with nothing written, then tries again), once each on a
 * session of its own. Every gap acknowledged must be in its stream exactly
 * once, under a seq of its own, the seqs contiguous and the chain whole.
 */

const WORKER = fileURLToPath(new URL('../../dist/bench/pg-cli-worker.js', import.meta.url));
const PROCESSES = 8;
const APPENDS = 25;

const databaseUrl = postgresServer();

interface WorkerReport {
  appended: number;
  refused: number;
  failures: string[];
}

function worker(session: string, index: number, mode: 'expect' | 'free' = 'expect'): Promise<WorkerReport> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [WORKER, databaseUrl(), session, String(index), String(APPENDS), mode], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out) as WorkerReport) : reject(new Error(`worker ${index} exited ${code}: ${err.trim()}`))));
  });
}

const io = { stdout: () => undefined, stderr: () => undefined, env: {}, cwd: process.cwd() };

/** What a stream holds after the writers: its gap ids in seq order, whether its seqs run 1, 2, 3…, and whether verify finds it whole. */
function audit(session: string) {
  const store = new PgLog(databaseUrl(), session);
  const events = store.read();
  const verified = verifyStoreSession(store);
  return {
    contiguous: events.every((event, i) => event.seq === i + 1),
    gaps: events.flatMap((event) => (event.type === 'gap.opened' ? [event.data.id] : [])),
    ids: events.map((event) => event.id),
    whole: verified.problem === null,
  };
}

const expected = (workers: number[]) => workers.flatMap((w) => Array.from({ length: APPENDS }, (_, i) => `W${w}-${i}`)).sort();

describe(`concurrency: ${PROCESSES} processes append to PostgreSQL through the CLI with --expect-seq`, () => {
  it('on one session: nothing lost or duplicated, seq contiguous, every loser refused cleanly and nothing written for it', { timeout: 240_000 }, async () => {
    expect(run(['init', '--store', databaseUrl(), '--session', 'shared'], io)).toBe(0);
    const reports = await Promise.all(Array.from({ length: PROCESSES }, (_, i) => worker('shared', i)));
    const found = audit('shared');
    const refused = reports.reduce((sum, r) => sum + r.refused, 0);
    console.log(
      `postgres concurrency, one session: ${PROCESSES} processes x ${APPENDS} gaps, ${found.gaps.length} appended, ${refused} refusals (expected seq taken by another writer), ${reports.flatMap((r) => r.failures).length} failures`,
    );
    expect(reports.flatMap((r) => r.failures)).toEqual([]);
    expect(reports.map((r) => r.appended)).toEqual(Array(PROCESSES).fill(APPENDS));
    expect([...found.gaps].sort()).toEqual(expected([...Array(PROCESSES).keys()]));
    expect(new Set(found.ids).size).toBe(found.ids.length);
    expect(found.ids).toHaveLength(1 + PROCESSES * APPENDS);
    expect(found.contiguous).toBe(true);
    expect(found.whole).toBe(true);
  });

  it('on one session without --expect-seq: each writer waits its turn on the row, reads what the others wrote, and goes in', { timeout: 240_000 }, async () => {
    expect(run(['init', '--store', databaseUrl(), '--session', 'turns'], io)).toBe(0);
    const reports = await Promise.all(Array.from({ length: PROCESSES }, (_, i) => worker('turns', i, 'free')));
    const found = audit('turns');
    console.log(
      `postgres concurrency, one session, no --expect-seq: ${PROCESSES} processes x ${APPENDS} gaps, ${found.gaps.length} appended, ${reports.flatMap((r) => r.failures).length} failures`,
    );
    expect(reports.flatMap((r) => r.failures)).toEqual([]);
    expect(reports.map((r) => [r.appended, r.refused])).toEqual(Array(PROCESSES).fill([APPENDS, 0]));
    expect([...found.gaps].sort()).toEqual(expected([...Array(PROCESSES).keys()]));
    expect(found.ids).toHaveLength(1 + PROCESSES * APPENDS);
    expect(found.contiguous).toBe(true);
    expect(found.whole).toBe(true);
  });

  it('on a session each: every stream whole, nobody refused (writers on different sessions never wait on each other)', { timeout: 240_000 }, async () => {
    for (let w = 0; w < PROCESSES; w++) expect(run(['init', '--store', databaseUrl(), '--session', `own-${w}`], io)).toBe(0);
    const reports = await Promise.all(Array.from({ length: PROCESSES }, (_, w) => worker(`own-${w}`, w)));
    console.log(
      `postgres concurrency, a session each: ${PROCESSES} processes x ${APPENDS} gaps, ${reports.reduce((sum, r) => sum + r.appended, 0)} appended, ${reports.reduce((sum, r) => sum + r.refused, 0)} refusals`,
    );
    expect(reports.flatMap((r) => r.failures)).toEqual([]);
    expect(reports.map((r) => r.refused)).toEqual(Array(PROCESSES).fill(0));
    for (let w = 0; w < PROCESSES; w++) {
      const found = audit(`own-${w}`);
      expect(found.gaps).toEqual(Array.from({ length: APPENDS }, (_, i) => `W${w}-${i}`));
      expect(found.ids).toHaveLength(1 + APPENDS);
      expect(found.contiguous).toBe(true);
      expect(found.whole).toBe(true);
    }
  });
});
