import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PgLog } from '../../src/index.js';
import type { StateJson } from '../../src/core/index.js';
import { postgresServer } from '../postgres.js';
import { BIN, childKeeper, until } from './children.js';
import { expectOneLineError, runCli, type CliResult } from './helpers.js';
import { stopInput } from './hook-inputs.js';

/*
 * The global options `--store URL|DIR` and `--session NAME` (and
 * `$GAPFLOW_STORE`, `$GAPFLOW_SESSION`) as a user meets them: a whole loop
 * on a PostgreSQL session gives the figures the same loop gives in a folder;
 * a folder store keeps each session in `DIR/NAME/.gapflow`; options beat the
 * environment and a named folder beats `$GAPFLOW_STORE`; every refusal is
 * one line that writes nothing, in the folders or in the database; retries
 * by event id and `--expect-seq` hold on a database; and `watch` follows a
 * database session that another process writes to.
 */

const root = mkdtempSync(join(tmpdir(), 'gapflow-store-option-'));
const databaseUrl = postgresServer();
afterAll(() => rmSync(root, { recursive: true, force: true }));

type Env = Record<string, string | undefined>;

// Every call runs from the test's own folder and stops looking for a `.gapflow` there, with only the environment given.
const gf = (argv: string[], env: Env = {}): CliResult => runCli(argv, { cwd: root, env: { CLAUDE_PROJECT_DIR: root, ...env } });
const db = (session: string): string[] => ['--store', databaseUrl(), '--session', session];

function ok(argv: string[], env: Env = {}): CliResult {
  const result = gf(argv, env);
  expect(result.stderr, `gapflow ${argv.join(' ')}`).toBe('');
  expect(result.code, `gapflow ${argv.join(' ')}`).toBe(0);
  return result;
}

const stateOf = (where: string[], env: Env = {}): StateJson => JSON.parse(ok(['state', '--json', ...where], env).stdout) as StateJson;
const gapIds = (where: string[], env: Env = {}): string[] => stateOf(where, env).gaps.map((gap) => gap.id);

/** Every file under the test's folder with its bytes, so a refusal can be shown to have written nothing there. */
function files(dir = root): Record<string, string> {
  const found: Record<string, string> = {};
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) Object.assign(found, files(path));
    else found[relative(root, path)] = readFileSync(path).toString('base64');
  }
  return found;
}

/**
 * What the database holds, read with a client of its own (not gapflow's):
 * every stream with its version and last checksum, every event line. The
 * checkpoints are left out, a cache a read may write.
 */
async function database(): Promise<{ streams: unknown[]; events: unknown[] }> {
  const client = new pg.Client({ connectionString: databaseUrl() });
  await client.connect();
  try {
    const made = await client.query<{ made: string | null }>(`SELECT to_regclass('gapflow.events')::text AS made`);
    if (made.rows[0]!.made === null) return { streams: [], events: [] };
    const streams = await client.query('SELECT name, version, last_sum FROM gapflow.streams ORDER BY name');
    const events = await client.query('SELECT stream, seq, line FROM gapflow.events ORDER BY stream, seq');
    return { streams: streams.rows, events: events.rows };
  } finally {
    await client.end();
  }
}

/** Runs a call that must fail: the exit code, one `gapflow: ` line on stderr naming what it must, nothing on stdout, nothing written anywhere. */
async function expectFailsCleanly(argv: string[], code: 1 | 2, mentions: (string | RegExp)[], env: Env = {}): Promise<CliResult> {
  const [filesBefore, databaseBefore] = [files(), await database()];
  const result = gf(argv, env);
  expectOneLineError(result, code, mentions);
  expect(files(), 'files under the test folder').toEqual(filesBefore);
  expect(await database(), 'the database').toEqual(databaseBefore);
  return result;
}

/*
 * One loop, written as data so the test can work out its figures itself.
 */

const WEIGHT = { CRITICAL: 16, HIGH: 4, MEDIUM: 2, LOW: 1 } as const;
type Severity = keyof typeof WEIGHT;
type Step = { open: string; severity: Severity } | { resolve: string } | 'round start' | 'round close';

const LOOP: Step[] = [
  { open: 'G-C1', severity: 'CRITICAL' },
  { open: 'G-H1', severity: 'HIGH' },
  { open: 'G-H2', severity: 'HIGH' },
  { open: 'G-M1', severity: 'MEDIUM' },
  { open: 'G-L1', severity: 'LOW' },
  'round start',
  { resolve: 'G-C1' },
  { resolve: 'G-L1' },
  { open: 'G-M2', severity: 'MEDIUM' },
  'round close',
  'round start',
  { resolve: 'G-H1' },
  { open: 'G-L2', severity: 'LOW' },
  'round close',
];

function play(where: string[]): void {
  ok(['init', ...where]);
  for (const step of LOOP) {
    if (step === 'round start' || step === 'round close') ok([...step.split(' '), ...where]);
    else if ('open' in step) ok(['gap', 'open', step.open, '--severity', step.severity, '--title', `Title of ${step.open}`, ...where]);
    else ok(['gap', 'move', step.resolve, 'RESOLVED', ...where]);
  }
}

/** The loop's figures worked out from LOOP alone: the gaps still open, and each round's weighted resolved, new and net. */
function expectedFigures() {
  const open = new Map<string, Severity>();
  const rounds: { weightedResolved: number; weightedNew: number; weightedNet: number; openEnd: number }[] = [];
  let current: { resolved: number; opened: number } | null = null;
  for (const step of LOOP) {
    if (step === 'round start') current = { resolved: 0, opened: 0 };
    else if (step === 'round close') {
      rounds.push({ weightedResolved: current!.resolved, weightedNew: current!.opened, weightedNet: current!.resolved - current!.opened, openEnd: open.size });
      current = null;
    } else if ('open' in step) {
      open.set(step.open, step.severity);
      if (current) current.opened += WEIGHT[step.severity];
    } else {
      if (current) current.resolved += WEIGHT[open.get(step.resolve)!];
      open.delete(step.resolve);
    }
  }
  const weightedOpen = [...open.values()].reduce((sum, severity) => sum + WEIGHT[severity], 0);
  return { open, weightedOpen, rounds };
}

/** An exported log's events without what differs between two plays of one loop: when, the random ids, the checksums. */
function eventsOf(where: string[]): unknown[] {
  return ok(['export', ...where])
    .stdout.trimEnd()
    .split('\n')
    .map((line) => {
      const { at: _at, id: _id, sum: _sum, ...rest } = JSON.parse(line) as Record<string, unknown>;
      return rest;
    });
}

describe('a database session runs the whole loop with the figures of a folder session', () => {
  it('init, gaps of every severity, two rounds with moves: state, next, status, verify and the events are those of the same loop in a folder', {
    timeout: 60_000,
  }, () => {
    const folder = ['--dir', join(root, 'loop-folder')];
    const database = db('loop');
    play(folder);
    play(database);
    const expected = expectedFigures();

    const fromDatabase = stateOf(database);
    expect(fromDatabase).toEqual(stateOf(folder));
    // Worked out from the loop: 16/4/2/1 per severity still open, and each round's weighted net.
    expect(fromDatabase.weightedOpen).toBe(expected.weightedOpen);
    expect(fromDatabase.openGapCount).toBe(expected.open.size);
    expect(
      fromDatabase.gaps
        .filter((gap) => gap.state === 'OPEN')
        .map((gap) => gap.id)
        .sort(),
    ).toEqual([...expected.open.keys()].sort());
    expect(
      fromDatabase.rounds.map(({ weightedResolved, weightedNew, weightedNet, openEnd }) => ({ weightedResolved, weightedNew, weightedNet, openEnd })),
    ).toEqual(expected.rounds);
    expect(fromDatabase).toMatchObject({ state: 'CONVERGING', round: expected.rounds.length, roundOpen: false, eventCount: 1 + LOOP.length });
    // The URL may say postgresql:// too: the same session.
    expect(stateOf(['--store', databaseUrl().replace(/^postgres:/, 'postgresql:'), '--session', 'loop'])).toEqual(fromDatabase);

    const next = JSON.parse(ok(['next', '--json', ...database]).stdout) as { weightedOpen: number; openGaps: Record<string, string[]> };
    expect(next).toEqual(JSON.parse(ok(['next', '--json', ...folder]).stdout));
    expect(next.weightedOpen).toBe(expected.weightedOpen);
    for (const severity of Object.keys(WEIGHT) as Severity[]) {
      expect(next.openGaps[severity]!.sort(), severity).toEqual(
        [...expected.open]
          .filter(([, s]) => s === severity)
          .map(([id]) => id)
          .sort(),
      );
    }

    const status = ok(['status', ...database]).stdout;
    expect(status).toBe(ok(['status', ...folder]).stdout);
    expect(status).toContain(`Open count: ${expected.open.size} (weighted ${expected.weightedOpen})`);

    // verify names where it looked and the last checksum (which covers each event's time): the rest is the same.
    const verified = (where: string[], location: string) =>
      ok(['verify', ...where])
        .stdout.replace(location, 'LOG')
        .replace(/\(last [0-9a-f]{16}\)/, '(last SUM)');
    const inDatabase = verified(database, new PgLog(databaseUrl(), 'loop').location);
    expect(inDatabase).toBe(verified(folder, join(root, 'loop-folder', 'events.jsonl')));
    expect(inDatabase).toBe(`OK: LOG: ${1 + LOOP.length} events, seq 1 to ${1 + LOOP.length}, checksum chain intact (last SUM)\n`);

    expect(eventsOf(database)).toEqual(eventsOf(folder));
  });
});

describe('a folder store keeps each session in DIR/NAME/.gapflow', () => {
  it('--store DIR --session a/b makes DIR/a/b/.gapflow/events.jsonl, and $GAPFLOW_STORE=DIR with --session finds it', { timeout: 30_000 }, () => {
    const store = join(root, 'folders');
    ok(['init', '--store', store, '--session', 'team/alpha']);
    const log = join(store, 'team', 'alpha', '.gapflow', 'events.jsonl');
    expect(existsSync(log)).toBe(true);
    ok(['gap', 'open', 'A-1', '--severity', 'HIGH', '--store', store, '--session', 'team/alpha']);
    expect(readFileSync(log, 'utf8')).toContain('"id":"A-1"');

    expect(gapIds(['--session', 'team/alpha'], { GAPFLOW_STORE: store })).toEqual(['A-1']);
    expect(gapIds([], { GAPFLOW_STORE: store, GAPFLOW_SESSION: 'team/alpha' })).toEqual(['A-1']);
    // A store named from the cwd: the same session.
    expect(gapIds(['--store', 'folders', '--session', 'team/alpha'])).toEqual(['A-1']);
    ok(['gap', 'open', 'A-2', '--severity', 'LOW', '--session', 'team/alpha'], { GAPFLOW_STORE: store });
    expect(readFileSync(log, 'utf8')).toContain('"id":"A-2"');
    expect(readdirSync(store)).toEqual(['team']);
  });

  it('a session folder that holds events.jsonl itself is found as DIR/NAME, and written there', { timeout: 30_000 }, () => {
    const store = join(root, 'flat-store');
    ok(['init', '--dir', join(store, 'direct')]);
    ok(['gap', 'open', 'D-1', '--severity', 'MEDIUM', '--store', store, '--session', 'direct']);
    expect(readFileSync(join(store, 'direct', 'events.jsonl'), 'utf8')).toContain('"id":"D-1"');
    expect(existsSync(join(store, 'direct', '.gapflow'))).toBe(false);
    expect(gapIds(['--session', 'direct'], { GAPFLOW_STORE: store })).toEqual(['D-1']);
  });

  it('init where a session folder holds events.jsonl itself finds that session and refuses, making no second one beside it', { timeout: 30_000 }, async () => {
    const store = join(root, 'taken-store');
    ok(['init', '--dir', join(store, 'proj')]);
    ok(['gap', 'open', 'OLD-1', '--severity', 'HIGH', '--dir', join(store, 'proj')]);
    await expectFailsCleanly(['init', '--store', store, '--session', 'proj'], 1, [join(store, 'proj')]);
    expect(existsSync(join(store, 'proj', '.gapflow'))).toBe(false);
    expect(gapIds(['--store', store, '--session', 'proj'])).toEqual(['OLD-1']);
  });
});

describe('precedence: options beat the environment, and a folder named beats $GAPFLOW_STORE', () => {
  // Three sessions, each told apart by its one gap: a folder, a folder store's session and a database session.
  let folder: string;
  let envFolder: string;
  let store: string;
  beforeAll(() => {
    folder = join(root, 'prec-dir');
    envFolder = join(root, 'prec-env-dir');
    store = join(root, 'prec-store');
    for (const [where, gap] of [
      [['--dir', folder], 'BY-DIR'],
      [['--dir', envFolder], 'BY-ENV-DIR'],
      [['--store', store, '--session', 's'], 'BY-STORE'],
      [['--store', store, '--session', 'other'], 'BY-OTHER-SESSION'],
      [db('prec'), 'BY-DATABASE'],
    ] as const) {
      ok(['init', ...where]);
      ok(['gap', 'open', gap, '--severity', 'LOW', ...where]);
    }
  }, 30_000);

  it('--dir beats $GAPFLOW_STORE, a folder store or a database, for reads and writes', { timeout: 30_000 }, () => {
    for (const url of [store, databaseUrl()]) {
      const env = { GAPFLOW_STORE: url, GAPFLOW_SESSION: url === store ? 's' : 'prec' };
      expect(gapIds(['--dir', folder], env), url).toEqual(['BY-DIR']);
    }
    ok(['gap', 'open', 'DIR-2', '--severity', 'LOW', '--dir', folder], { GAPFLOW_STORE: databaseUrl(), GAPFLOW_SESSION: 'prec' });
    expect(gapIds(['--dir', folder])).toEqual(['BY-DIR', 'DIR-2']);
    expect(gapIds(db('prec'))).toEqual(['BY-DATABASE']);
  });

  it('$GAPFLOW_DIR beats $GAPFLOW_STORE, a folder store or a database', { timeout: 30_000 }, () => {
    expect(gapIds([], { GAPFLOW_DIR: envFolder, GAPFLOW_STORE: store, GAPFLOW_SESSION: 's' })).toEqual(['BY-ENV-DIR']);
    expect(gapIds([], { GAPFLOW_DIR: envFolder, GAPFLOW_STORE: databaseUrl(), GAPFLOW_SESSION: 'prec' })).toEqual(['BY-ENV-DIR']);
  });

  it('--store beats $GAPFLOW_DIR and $GAPFLOW_STORE, and --session beats $GAPFLOW_SESSION', { timeout: 30_000 }, () => {
    expect(gapIds(['--store', store, '--session', 's'], { GAPFLOW_DIR: envFolder })).toEqual(['BY-STORE']);
    expect(gapIds(db('prec'), { GAPFLOW_DIR: envFolder })).toEqual(['BY-DATABASE']);
    expect(gapIds(['--store', store], { GAPFLOW_STORE: databaseUrl(), GAPFLOW_SESSION: 's' })).toEqual(['BY-STORE']);
    expect(gapIds(['--session', 's'], { GAPFLOW_STORE: store, GAPFLOW_SESSION: 'other' })).toEqual(['BY-STORE']);
    expect(gapIds([], { GAPFLOW_STORE: store, GAPFLOW_SESSION: 'other' })).toEqual(['BY-OTHER-SESSION']);
  });
});

describe('usage errors and refusals: one line on stderr, nothing on stdout, nothing written', () => {
  beforeAll(() => {
    // A session in the database, so its tables exist and a refusal has something it could have written to.
    ok(['init', ...db('kept')]);
  }, 30_000);

  it('a session name with no store to find it in is a usage error (exit 2), not a call that goes to another session', { timeout: 30_000 }, async () => {
    await expectFailsCleanly(['state', '--session', 'alpha'], 2, ['--session', '--store']);
    await expectFailsCleanly(['gap', 'open', 'X-1', '--severity', 'LOW', '--session', 'alpha', '--dir', join(root, 'prec-dir')], 2, ['--session', '--store']);
  });

  it('a store without a session name is a usage error (exit 2) naming --session', { timeout: 30_000 }, async () => {
    for (const argv of [
      ['state', '--store', databaseUrl()],
      ['init', '--store', join(root, 'no-name')],
      ['gap', 'open', 'X', '--severity', 'LOW', '--store', databaseUrl()],
    ]) {
      await expectFailsCleanly(argv, 2, ['--session NAME']);
    }
    await expectFailsCleanly(['init'], 2, ['--session NAME'], { GAPFLOW_STORE: databaseUrl() });
  });

  const BAD_NAMES: [string, string][] = [
    ['a space', 'team a'],
    ['a control character', 'a\u0001b'],
    ['a .. part', 'a/../b'],
    ['a leading ..', '../escape'],
    ['a leading -', '-x'],
    ['a leading .', '.hidden'],
    ['129 characters', 'x'.repeat(129)],
  ];

  it.each(BAD_NAMES)(
    'a session name with %s is refused (exit 1) naming --session, in a database or a folder store, by option or by environment',
    { timeout: 30_000 },
    async (_what, name) => {
      for (const store of [databaseUrl(), join(root, 'bad-names')]) {
        await expectFailsCleanly(['init', '--store', store, `--session=${name}`], 1, ['--session:']);
        await expectFailsCleanly(['state', '--store', store, `--session=${name}`], 1, ['--session:']);
        await expectFailsCleanly(['init'], 1, ['--session:'], { GAPFLOW_STORE: store, GAPFLOW_SESSION: name });
      }
      expect(existsSync(join(root, 'bad-names'))).toBe(false);
    },
  );

  it('a name of 128 characters is taken: the limit is 128, not less', { timeout: 30_000 }, () => {
    ok(['init', ...db('y'.repeat(128))]);
    expect(new PgLog(databaseUrl(), 'y'.repeat(128)).exists()).toBe(true);
  });

  it('init --write-status on a database session is a usage error (exit 2), and no session is made', { timeout: 30_000 }, async () => {
    await expectFailsCleanly(['init', '--write-status', ...db('with-status')], 2, ['init --write-status', 'status --write --dir']);
    expect(new PgLog(databaseUrl(), 'with-status').exists()).toBe(false);
  });

  it('status --write on a database session needs --dir (exit 2 without it); with it, status.md and decisions.md go into that folder', {
    timeout: 30_000,
  }, async () => {
    ok(['gap', 'open', 'K-1', '--severity', 'HIGH', '--title', 'Kept', ...db('kept')]);
    await expectFailsCleanly(['status', '--write', ...db('kept')], 2, ['status --write', '--dir']);
    const out = join(root, 'reports');
    const wrote = ok(['status', '--write', '--dir', out, ...db('kept')]).stdout;
    expect(wrote).toBe(`Wrote ${join(out, 'status.md')}\nWrote ${join(out, 'decisions.md')}\n`);
    expect(readFileSync(join(out, 'status.md'), 'utf8')).toBe(ok(['status', ...db('kept')]).stdout);
    expect(readFileSync(join(out, 'decisions.md'), 'utf8')).toBe(ok(['status', '--decisions', ...db('kept')]).stdout);
    // The folder holds the reports only: the session stays in the database.
    expect(readdirSync(out).sort()).toEqual(['decisions.md', 'status.md']);
    expect(gapIds(db('kept'))).toEqual(['K-1']);
  });

  it.each([['repair'], ['backtest']])(
    '%s reads folders only: on a database it is a usage error (exit 2) saying to name the folder with --dir',
    { timeout: 30_000 },
    async (command) => {
      await expectFailsCleanly([command, ...db('kept')], 2, ['names a database', '--dir']);
      await expectFailsCleanly([command, '--session', 'kept'], 2, ['names a database', '--dir'], { GAPFLOW_STORE: databaseUrl() });
    },
  );

  it('viz on a database session draws the chart with the session state marked (it reads a session, not a folder)', { timeout: 30_000 }, () => {
    const drawn = ok(['viz', ...db('kept')]).stdout;
    expect(drawn).toMatch(/^stateDiagram-v2\n/);
    expect(drawn).toContain(`class ${stateOf(db('kept')).state} current`);
  });

  it('hook claude with --store or --session is answered as a misconfigured hook: exit 0, a systemMessage on stdout, nothing written', {
    timeout: 30_000,
  }, async () => {
    const stdin = JSON.stringify(stopInput(root));
    for (const where of [db('kept'), ['--session', 'kept'], ['--store', join(root, 'hook-store'), '--session', 'x']]) {
      const [filesBefore, databaseBefore] = [files(), await database()];
      const result = runCli(['hook', 'claude', ...where], { cwd: root, env: { CLAUDE_PROJECT_DIR: root }, stdin });
      expect(result.code, result.stderr).toBe(0);
      const answer = JSON.parse(result.stdout) as Record<string, unknown>;
      expect(Object.keys(answer)).toEqual(['systemMessage']);
      expect(answer.systemMessage).toContain('hook claude works on a session folder (--dir), not on a store (--store, --session)');
      // One line for the user's terminal, since the agent is let stop.
      expect(result.stderr).toMatch(/^gapflow hook: [^\n]*letting the agent stop\n$/);
      expect(files()).toEqual(filesBefore);
      expect(await database()).toEqual(databaseBefore);
    }
  });

  it('a session missing from the database is refused (exit 1), naming the session and the init that makes it', { timeout: 30_000 }, async () => {
    for (const argv of [['state'], ['gap', 'open', 'N-1', '--severity', 'LOW'], ['round', 'start'], ['status'], ['verify'], ['export']]) {
      await expectFailsCleanly([...argv, ...db('nobody')], 1, ['no session nobody in', '`gapflow init --store URL --session nobody` creates one']);
    }
    expect(new PgLog(databaseUrl(), 'nobody').exists()).toBe(false);
  });

  it('a database out of reach is refused (exit 1) in one line that never shows the password', { timeout: 30_000 }, async () => {
    const url = 'postgres://ops:s3cret-pass@127.0.0.1:1/gapflow';
    for (const argv of [['state'], ['init'], ['gap', 'open', 'U-1', '--severity', 'LOW']]) {
      const result = await expectFailsCleanly([...argv, '--store', url, '--session', 'far'], 1, [
        'postgres://ops@127.0.0.1:1/gapflow',
        'cannot reach the database',
      ]);
      expect(result.stderr).not.toContain('s3cret-pass');
    }
  });
});

describe('writes on a database session: retried by event id, guarded by --expect-seq', () => {
  it('a write retried with its --event-id appends nothing the second time, and says it was a duplicate', { timeout: 30_000 }, async () => {
    const where = db('retries');
    ok(['init', ...where]);
    const first = JSON.parse(ok(['gap', 'open', 'R-1', '--severity', 'HIGH', '--event-id', 'req-1', '--json', ...where]).stdout) as {
      events: { seq: number; id: string }[];
      duplicate?: boolean;
    };
    expect(first.duplicate).toBeUndefined();
    expect(first.events.map((e) => [e.seq, e.id])).toEqual([[2, 'req-1']]);
    const before = await database();

    const again = JSON.parse(ok(['gap', 'open', 'R-1', '--severity', 'HIGH', '--event-id', 'req-1', '--json', ...where]).stdout) as typeof first;
    expect(again.duplicate).toBe(true);
    expect(again.events).toEqual(first.events);
    // And without --json, from another call: still nothing appended.
    ok(['gap', 'open', 'R-1', '--severity', 'HIGH', '--event-id', 'req-1', ...where]);
    expect(await database()).toEqual(before);
    expect(stateOf(where)).toMatchObject({ eventCount: 2, openGapCount: 1, weightedOpen: WEIGHT.HIGH });

    // A round close retried is one close, not two rounds.
    ok(['round', 'start', ...where]);
    ok(['round', 'close', '--event-id', 'close-1', ...where]);
    ok(['round', 'close', '--event-id', 'close-1', ...where]);
    expect(stateOf(where)).toMatchObject({ round: 1, roundOpen: false, eventCount: 4 });
  });

  it('--expect-seq is taken while the stream ends there, and refused (exit 1, nothing written) once another writer moved it on', {
    timeout: 30_000,
  }, async () => {
    const where = db('expect');
    ok(['init', ...where]);
    const seen = stateOf(where).eventCount;
    ok(['gap', 'open', 'E-1', '--severity', 'LOW', '--expect-seq', String(seen), ...where]);

    // Two writers read the same seq; the first to write wins, the second is refused.
    const read = stateOf(where).eventCount;
    expect(read).toBe(seen + 1);
    ok(['gap', 'open', 'E-2', '--severity', 'MEDIUM', '--expect-seq', String(read), ...where]);
    await expectFailsCleanly(['gap', 'open', 'E-3', '--severity', 'CRITICAL', '--expect-seq', String(read), ...where], 1, [
      `expected the log to end at seq ${read}, but it ends at seq ${read + 1}`,
    ]);
    expect(gapIds(where)).toEqual(['E-1', 'E-2']);
  });
});

describe('watch on a database session', () => {
  const spawnBin = childKeeper();

  it('watch --json follows the session: appends made by other processes come as new JSON lines, without a restart', { timeout: 60_000 }, async () => {
    const where = db('watched');
    ok(['init', ...where]);
    ok(['gap', 'open', 'W-1', '--severity', 'HIGH', ...where]);
    const watching = spawnBin(['watch', '--json', ...where], root);
    const lines = () =>
      watching
        .stdout()
        .split('\n')
        .filter((line) => line !== '');
    await until('the first line', () => lines().length >= 1, 30_000);
    const first = JSON.parse(lines()[0]!) as { events: unknown[]; state: StateJson };
    expect(first).toEqual({ events: [], state: stateOf(where) });

    // From this process (in-process CLI), then from a process of its own (the bin).
    ok(['gap', 'open', 'W-2', '--severity', 'CRITICAL', '--title', 'Heard', ...where]);
    await until('the line for W-2', () => lines().length >= 2, 15_000);
    const second = JSON.parse(lines()[1]!) as { events: { seq: number; type: string; data: Record<string, unknown> }[]; state: StateJson };
    expect(second.events.map((e) => [e.seq, e.type, e.data.id])).toEqual([[3, 'gap.opened', 'W-2']]);
    expect(second.state).toMatchObject({ openGapCount: 2, weightedOpen: WEIGHT.HIGH + WEIGHT.CRITICAL, eventCount: 3 });

    const other = spawnSync(process.execPath, [BIN, 'gap', 'move', 'W-1', 'RESOLVED', ...where], {
      cwd: root,
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '' },
      timeout: 30_000,
    });
    expect(other.stderr).toBe('');
    expect(other.status).toBe(0);
    await until('the line for the move', () => lines().length >= 3, 15_000);
    const third = JSON.parse(lines()[2]!) as typeof second;
    expect(third.events.map((e) => [e.seq, e.type])).toEqual([[4, 'gap.moved']]);
    expect(third.state).toEqual(stateOf(where));
    expect(third.state.weightedOpen).toBe(WEIGHT.CRITICAL);

    watching.child.kill('SIGINT');
    expect(await watching.exited).toBe(0);
    expect(watching.stderr()).toBe('');
    expect(lines()).toHaveLength(3);
  });
});
