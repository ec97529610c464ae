import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PgLog } from '../../src/index.js';
import { faultProxy, type CommitFault, type FaultProxy } from '../fault-proxy.js';
import { postgresServer } from '../postgres.js';

/*
 * Fault campaigns against a real PostgreSQL server, through a proxy that
 * cuts or freezes a write's connection at the moment that matters
 * (test/fault-proxy.ts). Each call is the gapflow bin in a process of its
 * own, as a caller runs it; the caller retries until it is told the write
 * is recorded, as a caller without --event-id would (and, told the outcome
 * is unknown, with the --event-id the answer names). What is in the stream
 * afterwards must be exactly what was acknowledged.
 */

const BIN = fileURLToPath(new URL('../../dist/gapflow.cjs', import.meta.url));
const databaseUrl = postgresServer();
let proxy: FaultProxy;

beforeAll(async () => {
  proxy = await faultProxy(databaseUrl());
});
afterAll(async () => {
  await proxy.close();
});

interface Call {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

/** The bin with `args`, in a process of its own (the proxy lives in this one, so nothing here may block). */
function gapflow(args: string[]): Promise<Call> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, stdout, stderr, ms: Date.now() - started }));
  });
}

const at = (url: string, session: string) => ['--store', url, '--session', session];

/**
 * Runs `args` through the proxy until it is acknowledged (exit 0), the first
 * attempt's COMMIT meeting `fault`: exit 1 is tried again as it is, exit 4
 * with the --event-id its one line names. Returns every attempt.
 */
async function untilRecorded(session: string, args: string[], fault: CommitFault): Promise<Call[]> {
  const attempts: Call[] = [];
  let retryId: string | null = null;
  proxy.onNextCommit(fault);
  for (let attempt = 0; attempt < 5; attempt++) {
    const call = await gapflow([...args, ...at(proxy.url, session), ...(retryId === null ? [] : ['--event-id', retryId])]);
    attempts.push(call);
    if (call.code === 0) return attempts;
    expect(call.stderr.trim().split('\n'), call.stderr).toHaveLength(1);
    if (call.code === 4) retryId = /--event-id (\S+)$/.exec(call.stderr.trim())?.[1] ?? null;
    else expect(call.code, call.stderr).toBe(1);
  }
  throw new Error(`${args.join(' ')} was never recorded: ${attempts.map((a) => a.stderr.trim()).join(' | ')}`);
}

function events(session: string) {
  return new PgLog(databaseUrl(), session, { ownConnection: true }).read();
}

const FAULTS: readonly CommitFault[] = ['cut-after', 'cut-before', 'cut-during', 'pass'];

describe('a connection cut around the commit', () => {
  it('never doubles a retried call: each acknowledged extend-rounds is in the stream once, and a commit whose answer was lost answers recorded', {
    timeout: 240_000,
  }, async () => {
    const calls = 12;
    expect((await gapflow(['init', '--max-rounds', '10', ...at(databaseUrl(), 'extend')])).code).toBe(0);
    const firstAttempts: Array<{ fault: CommitFault; call: Call }> = [];
    for (let i = 0; i < calls; i++) {
      const fault = FAULTS[i % FAULTS.length]!;
      const attempts = await untilRecorded('extend', ['decide', 'extend-rounds', '1'], fault);
      firstAttempts.push({ fault, call: attempts[0]! });
    }
    const stream = events('extend');
    const decisions = stream.filter((event) => event.type === 'decision.made');
    const state = JSON.parse((await gapflow(['state', '--json', ...at(databaseUrl(), 'extend')])).stdout) as { config: { maxRounds: number } };
    console.log(
      `postgres faults, cut commits: ${calls} calls acknowledged, ${decisions.length} decisions in the stream; faults met ${JSON.stringify(proxy.met)}`,
    );
    expect(decisions).toHaveLength(calls);
    expect(state.config.maxRounds).toBe(10 + calls);
    expect(new Set(decisions.map((event) => event.id)).size).toBe(calls);
    // A commit that went through, its answer lost on the way back: the call itself says recorded, the first time.
    for (const { fault, call } of firstAttempts.filter((a) => a.fault === 'cut-after' || a.fault === 'pass')) {
      expect({ fault, code: call.code, stderr: call.stderr }).toEqual({ fault, code: 0, stderr: '' });
    }
    // A commit that never went: nothing was written, and the call says so.
    for (const { call } of firstAttempts.filter((a) => a.fault === 'cut-before')) {
      expect(call.code).toBe(1);
      expect(call.stderr).toMatch(/nothing was written/);
    }
    expect(proxy.met['cut-after']).toBeGreaterThanOrEqual(calls / FAULTS.length);
  });

  it('gap ids are never falsely taken: each gap opened through a cut commit is opened once, and the call that opened it says so', {
    timeout: 240_000,
  }, async () => {
    const gaps = 8;
    expect((await gapflow(['init', ...at(databaseUrl(), 'gaps')])).code).toBe(0);
    for (let i = 0; i < gaps; i++) {
      const attempts = await untilRecorded('gaps', ['gap', 'open', `G-${i}`, '--severity', 'HIGH'], FAULTS[i % FAULTS.length]!);
      for (const attempt of attempts) expect(attempt.stderr).not.toMatch(/already|taken/);
    }
    const opened = events('gaps').flatMap((event) => (event.type === 'gap.opened' ? [event.data.id] : []));
    expect(opened).toEqual(Array.from({ length: gaps }, (_, i) => `G-${i}`));
  });
});

describe('a commit whose answer was lost while the database stays out of reach', () => {
  it('answers exit 4, outcome unknown, naming the --event-id that makes the same command safe to run again', { timeout: 120_000 }, async () => {
    expect((await gapflow(['init', ...at(databaseUrl(), 'unknown')])).code).toBe(0);
    proxy.onNextCommit('cut-after', true);
    const lost = await gapflow(['gap', 'open', 'U-1', '--severity', 'MEDIUM', ...at(proxy.url, 'unknown')]);
    proxy.up();
    expect(lost.code, lost.stderr).toBe(4);
    expect(lost.stdout).toBe('');
    console.log(`postgres faults, unknown outcome: ${lost.stderr.trim()}`);
    const lines = lost.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    // The id comes last, so whatever a caller takes after `--event-id ` is the id whole.
    expect(lines[0]).toMatch(/^gapflow: outcome unknown: .*session unknown.*may or may not be recorded.*when the same command runs again with --event-id \S+$/);
    const retryId = /--event-id (\S+)$/.exec(lines[0]!)![1]!;
    // The commit went through before the cut: the id is the event's, so the retry finds it and records nothing.
    const retried = await gapflow(['gap', 'open', 'U-1', '--severity', 'MEDIUM', '--event-id', retryId, ...at(proxy.url, 'unknown')]);
    expect(retried.code, retried.stderr).toBe(0);
    const opened = events('unknown').filter((event) => event.type === 'gap.opened');
    expect(opened.map((event) => [event.data.id, event.id])).toEqual([['U-1', retryId]]);
  });

  it('with --json: the code outcome_unknown and the retry in remedy, exit 4', { timeout: 120_000 }, async () => {
    expect((await gapflow(['init', ...at(databaseUrl(), 'unknown-json')])).code).toBe(0);
    proxy.onNextCommit('cut-before', true);
    const lost = await gapflow(['gap', 'open', 'U-2', '--severity', 'LOW', '--json', ...at(proxy.url, 'unknown-json')]);
    proxy.up();
    expect(lost.code).toBe(4);
    const report = JSON.parse(lost.stderr) as { code: string; message: string; remedy: string; retryId: string };
    expect(report.code).toBe('outcome_unknown');
    const retryId = report.retryId;
    expect(report.remedy).toMatch(new RegExp(`--event-id ${retryId}$`));
    // This commit never went: the retry with the id records it, once.
    const retried = await gapflow(['gap', 'open', 'U-2', '--severity', 'LOW', '--event-id', retryId, ...at(proxy.url, 'unknown-json')]);
    expect(retried.code, retried.stderr).toBe(0);
    expect(
      events('unknown-json')
        .filter((event) => event.type === 'gap.opened')
        .map((event) => event.id),
    ).toEqual([retryId]);
  });
});

describe('a writer whose network freezes mid-write', () => {
  it('holds the session for seconds, not until the server notices: a second writer goes in, and the frozen one never says recorded', {
    timeout: 120_000,
  }, async () => {
    expect((await gapflow(['init', ...at(databaseUrl(), 'frozen')])).code).toBe(0);
    const frozen = proxy.freezeNextAppend();
    const stalled = gapflow(['gap', 'open', 'STALLED', '--severity', 'LOW', ...at(proxy.url, 'frozen')]);
    await frozen;
    // Its lines are in, its transaction open and idle, its connection silent: what a sleeping laptop leaves behind.
    const second = await gapflow(['gap', 'open', 'SECOND', '--severity', 'LOW', ...at(databaseUrl(), 'frozen')]);
    expect({ code: second.code, stderr: second.stderr }).toEqual({ code: 0, stderr: '' });
    // Within the documented bound (docs/postgres.md: a writer waits at most lock_timeout, 10 s).
    expect(second.ms).toBeLessThan(10_000 + 5_000);
    proxy.thaw();
    const first = await stalled;
    expect(first.code, first.stderr).not.toBe(0);
    expect(first.stderr.trim().split('\n')).toHaveLength(1);
    expect(first.stderr).toMatch(/nothing was written|outcome unknown/);
    const opened = events('frozen').flatMap((event) => (event.type === 'gap.opened' ? [event.data.id] : []));
    expect(opened).toEqual(['SECOND']);
  });

  it('a writer that waits out the lock wait is told which session a peer holds, and nothing is written', { timeout: 120_000 }, async () => {
    expect((await gapflow(['init', ...at(databaseUrl(), 'held')])).code).toBe(0);
    // A peer inside a statement (not idle: the idle timeout does not end it) holding the session's row.
    const peer = new pg.Client({ connectionString: databaseUrl() });
    await peer.connect();
    try {
      await peer.query('BEGIN');
      await peer.query("SELECT 1 FROM gapflow.streams WHERE name = 'held' FOR UPDATE");
      const holding = peer.query('SELECT pg_sleep(30)').catch(() => undefined);
      const waiter = await gapflow(['gap', 'open', 'WAITER', '--severity', 'LOW', ...at(databaseUrl(), 'held')]);
      expect(waiter.code).toBe(1);
      expect(waiter.stderr.trim().split('\n')).toHaveLength(1);
      expect(waiter.stderr).toMatch(/session held: another writer has held this session/);
      expect(waiter.stderr).toMatch(/nothing was written/);
      const canceller = new pg.Client({ connectionString: databaseUrl() });
      await canceller.connect();
      await canceller.query('SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE query = $1', ['SELECT pg_sleep(30)']);
      await canceller.end();
      await holding;
    } finally {
      await peer.end().catch(() => undefined);
    }
    expect(events('held').some((event) => event.type === 'gap.opened')).toBe(false);
  });
});
