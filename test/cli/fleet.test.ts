import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { FleetRow } from '../../src/fleet/index.js';
import { alive, childKeeper, freePort, until } from './children.js';
import { runCli } from './helpers.js';
import { tempDirs } from '../support.js';

/*
 * `gapflow fleet` and `gapflow serve`, the CLI contract: what they print,
 * where they look, and their exit codes.
 */

const tempDir = tempDirs('gapflow-fleet-cli-');
const spawnBin = childKeeper();

/** `<root>/alpha` CONVERGING after a round, `<root>/team/beta` with a CRITICAL gap in DIVERGENCE_WARNING. */
function twoSessions(): string {
  const root = tempDir();
  const gf = (at: string, line: string) => {
    const result = runCli([...line.split(' '), '--dir', join(root, at, '.gapflow')], { cwd: root });
    expect(result.stderr).toBe('');
  };
  for (const line of ['init', 'gap open A --severity HIGH', 'round start', 'gap move A RESOLVED', 'gap open B --severity LOW', 'round close'])
    gf('alpha', line);
  for (const line of ['init', 'gap open X --severity LOW', 'round start', 'gap open C --severity CRITICAL', 'round close']) gf('team/beta', line);
  return root;
}

const fleetJson = (stdout: string) => JSON.parse(stdout) as { sessions: FleetRow[] };

describe('gapflow fleet', () => {
  it('--json prints {"sessions": [rows]}, one a session, by name', () => {
    const root = twoSessions();
    const result = runCli(['fleet', '--json'], { cwd: root });
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    const { sessions } = fleetJson(result.stdout);
    expect(Object.keys(fleetJson(result.stdout))).toEqual(['sessions']);
    expect(sessions.map((row) => [row.name, row.state, row.round, row.open, row.weightedOpen, row.warnings])).toEqual([
      ['alpha', 'CONVERGING', 1, 1, 1, 0],
      ['team/beta', 'DIVERGENCE_WARNING', 1, 2, 17, 1],
    ]);
    expect(sessions[0]!.lastReason).toBe('weighted_net = +3');
    expect(Object.keys(sessions[0]!).sort()).toEqual(
      [
        'age',
        'error',
        'eventCount',
        'forecast',
        'lastEventAt',
        'lastReason',
        'name',
        'open',
        'outcome',
        'round',
        'roundOpen',
        'stale',
        'staleForSeconds',
        'staleReason',
        'staleSince',
        'state',
        'warnings',
        'weightedOpen',
      ].sort(),
    );
  });

  it('prints a table for people, a line a session', () => {
    const root = twoSessions();
    const result = runCli(['fleet'], { cwd: root });
    expect(result.code).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^SESSION\s+STATE\s+ROUND\s+OPEN\s+WEIGHTED\s+FORECAST\s+LAST EVENT\s+LAST REASON$/);
    expect(lines[1]).toMatch(/^alpha\s+CONVERGING\s+1\s+1\s+1\s+too few rounds\s+\d+s ago\s+weighted_net = \+3$/);
    expect(lines[2]).toMatch(/^team\/beta\s+DIVERGENCE_WARNING\s+1\s+2\s+17\s/);
    expect(lines).toHaveLength(3);
  });

  it('looks in DIR, in --store DIR, or in $GAPFLOW_STORE, in that order before the current folder', () => {
    const root = twoSessions();
    const elsewhere = tempDir();
    const names = (argv: string[], env: Record<string, string> = {}) =>
      fleetJson(runCli(['fleet', '--json', ...argv], { cwd: elsewhere, env }).stdout).sessions.map((row) => row.name);
    expect(names([root])).toEqual(['alpha', 'team/beta']);
    expect(names(['--store', join(root, 'team')])).toEqual(['beta']);
    expect(names([], { GAPFLOW_STORE: join(root, 'team') })).toEqual(['beta']);
    expect(names([root], { GAPFLOW_STORE: join(root, 'team') })).toEqual(['alpha', 'team/beta']);
    expect(names([])).toEqual([]);
  });

  it('lists a session whose log is damaged with why, and still exits 0', () => {
    const root = twoSessions();
    appendFileSync(join(root, 'alpha', '.gapflow', 'events.jsonl'), 'garbage\nmore garbage\n');
    const result = runCli(['fleet', '--json'], { cwd: root });
    expect(result.code).toBe(0);
    const [alpha, beta] = fleetJson(result.stdout).sessions;
    expect(alpha).toMatchObject({ name: 'alpha', state: null, error: expect.stringMatching(/events\.jsonl line \d+/) });
    expect(beta).toMatchObject({ name: 'team/beta', state: 'DIVERGENCE_WARNING', error: null });
    const table = runCli(['fleet'], { cwd: root }).stdout;
    expect(table).toMatch(/^alpha\s+UNREADABLE$/m);
    expect(table).toMatch(/^alpha: .*events\.jsonl line \d+/m);
  });

  it('says so when there is no session, and exits 0', () => {
    const root = tempDir();
    expect(runCli(['fleet'], { cwd: root })).toEqual({ code: 0, stdout: `No sessions under ${root}.\n`, stderr: '' });
    expect(runCli(['fleet', '--json'], { cwd: root })).toEqual({ code: 0, stdout: '{\n  "sessions": []\n}\n', stderr: '' });
  });

  it('a folder that is not there is one line on stderr and exit 1, as JSON with --json', () => {
    const root = tempDir();
    const missing = join(root, 'nope');
    expect(runCli(['fleet', missing], { cwd: root })).toEqual({ code: 1, stdout: '', stderr: `gapflow: ${missing}: no such folder\n` });
    writeFileSync(join(root, 'file'), '');
    const json = runCli(['fleet', join(root, 'file'), '--json'], { cwd: root });
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stderr)).toMatchObject({ code: 'log_error', message: `${join(root, 'file')}: not a folder` });
  });

  it('usage mistakes are one line and exit 2: --dir, --session, two places, an unknown option', () => {
    const root = tempDir();
    mkdirSync(join(root, 'a'));
    for (const argv of [
      ['fleet', '--dir', 'a'],
      ['fleet', 'a', '--store', 'a'],
      ['fleet', 'a', 'b'],
      ['fleet', '--session', 'a'],
      ['fleet', '--colour'],
    ]) {
      const result = runCli(argv, { cwd: root });
      expect(result.code, argv.join(' ')).toBe(2);
      expect(result.stderr.trimEnd().split('\n'), argv.join(' ')).toHaveLength(1);
      expect(result.stderr).not.toContain('pw@');
      expect(result.stdout).toBe('');
    }
  });

  it('a database out of reach is one line naming it without its password, exit 1', () => {
    const result = runCli(['fleet', '--store', 'postgres://me:pw@127.0.0.1:1/db'], { cwd: tempDir() });
    expect(result.code).toBe(1);
    expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(result.stderr).toContain('postgres://me@127.0.0.1:1/db: cannot reach the database');
    expect(result.stderr).not.toContain('pw@');
    expect(result.stdout).toBe('');
  });
});

describe('gapflow serve, from the bin', () => {
  it('prints its URL first, serves the rows, and stops on Ctrl-C with exit 0', async () => {
    const root = twoSessions();
    const port = await freePort();
    const run = spawnBin(['serve', '--port', String(port)], root);
    await until('the URL', () => run.stdout().includes('\n'), 15_000);
    expect(run.stdout().split('\n')[0]).toBe(`http://127.0.0.1:${port}/`);
    const response = await fetch(`http://127.0.0.1:${port}/api/sessions`, { signal: AbortSignal.timeout(10_000) });
    expect(((await response.json()) as { sessions: FleetRow[] }).sessions.map((row) => row.name)).toEqual(['alpha', 'team/beta']);
    run.child.kill('SIGINT');
    expect(await run.exited).toBe(0);
    expect(alive(run.child.pid!)).toBe(false);
    expect(run.stderr()).toBe('');
  }, 30_000);

  it('a folder that is not there fails with one line before it listens', async () => {
    const root = tempDir();
    const run = spawnBin(['serve', join(root, 'nope'), '--port', String(await freePort())], root);
    expect(await run.exited).toBe(1);
    expect(run.stderr()).toBe(`gapflow: ${join(root, 'nope')}: no such folder\n`);
    expect(run.stdout()).toBe('');
  }, 30_000);

  it('a port in use fails with one line', async () => {
    const root = tempDir();
    const port = await freePort();
    const squatter = createServer().listen(port, '127.0.0.1');
    try {
      const run = spawnBin(['serve', '--port', String(port)], root);
      expect(await run.exited).toBe(1);
      expect(run.stderr()).toBe(`gapflow: port ${port} is in use; pick another with --port\n`);
    } finally {
      squatter.close();
    }
  }, 30_000);

  it('says on stderr when --host takes it off loopback only', async () => {
    const root = tempDir();
    const port = await freePort();
    const run = spawnBin(['serve', '--port', String(port), '--host', '0.0.0.0'], root);
    await until('the warning', () => run.stderr().includes('\n'), 15_000);
    expect(run.stderr()).toBe(
      'gapflow: listening on 0.0.0.0, not loopback only: whoever can reach it reads every session; it answers any Host name, and a browser page only from the address it asked for (Origin http://<Host> or https://<Host>)\n',
    );
    expect(run.stdout().split('\n')[0]).toBe(`http://0.0.0.0:${port}/`);
    run.child.kill('SIGTERM');
    expect(await run.exited).toBe(0);
  }, 30_000);

  it('is refused in-process, where nothing could stop it', () => {
    const result = runCli(['serve'], { cwd: tempDir() });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('run it from the gapflow bin');
  });
});
