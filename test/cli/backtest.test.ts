import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMemorySession, Refusal } from '../../src/index.js';
import type { EventBodyInput, SessionSettings } from '../../events/index.js';
import { backtestSettingsProblem } from '../../src/cli/index.js';
import { expectOneLineError, runCli } from './helpers.js';

/*
 * `gapflow backtest` over the recorded sessions in test/fixtures/backtest
 * (made by its make.sh through the CLI). The figures are checked against
 * sessions built afresh through the library with each setting, from the
 * same recorded requests: never against the backtest's own output.
 */

const FIXTURES = fileURLToPath(new URL('../fixtures/backtest', import.meta.url));
const SESSIONS = ['converges-steadily', 'critical-divergence', 'max-rounds', 'paused-resumed', 'stalls-narrowed'];

interface Line {
  seq: number;
  type: string;
  data: Record<string, unknown>;
}

function recordedLines(session: string): Line[] {
  return readFileSync(join(FIXTURES, session, 'events.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Line);
}

/** What a session built afresh from the record's requests did: its warnings, its stop, and the record's line it was refused at. */
function replayedDirectly(session: string, settings: SessionSettings) {
  const [first, ...rest] = recordedLines(session);
  const live = createMemorySession({ ...(first!.data as SessionSettings), ...settings });
  let refusedAt: number | null = null;
  for (const line of rest) {
    if (live.view.machine.state === 'COMPLETE') break;
    const { outcome: _recorded, ...data } = line.data;
    try {
      live.record({ type: line.type, data } as EventBodyInput);
    } catch (error) {
      if (!(error instanceof Refusal)) throw error;
      refusedAt = line.seq;
      break;
    }
  }
  const { history, machine } = live.view;
  const warnings = history.filter((h) => h.cause === 'round' && h.to === 'DIVERGENCE_WARNING').map((h) => h.round);
  const completed = history.find((h) => h.to === 'COMPLETE');
  return { warnings, stop: completed ? { round: completed.round, outcome: machine.outcome } : null, refusedAt };
}

interface JsonRow {
  setting: string;
  run: { warnings: { round: number }[]; stop: { round: number; outcome: string } | null; diverged: { line: number; round: number; reason: string } | null };
  comparison: { warningsRaised: number[]; warningsMissed: number[]; stop: { shift: string; rounds: number } };
}
interface JsonReport {
  settings: string[];
  sessions: { session: string; recorded: { warnings: { round: number }[]; stop: { round: number } | null }; rows: JsonRow[] }[];
}

/** Every file under `root` with its bytes and modification time. */
function snapshot(root: string): Map<string, { bytes: Buffer; mtimeMs: number }> {
  const files = new Map<string, { bytes: Buffer; mtimeMs: number }>();
  for (const entry of readdirSync(root, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    files.set(path, { bytes: readFileSync(path), mtimeMs: statSync(path).mtimeMs });
  }
  return files;
}

describe('backtest over the recorded fixtures with --grid stall-threshold=2..4', () => {
  it('gives one row per session and setting whose warnings, stops and departures match sessions built afresh with that stall threshold', {
    timeout: 60_000,
  }, () => {
    const result = runCli(['backtest', FIXTURES, '--grid', 'stall-threshold=2..4', '--json'], { cwd: FIXTURES });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout) as JsonReport;
    expect(report.settings).toEqual(['stall-threshold=2', 'stall-threshold=3', 'stall-threshold=4']);
    expect(report.sessions.map((s) => s.session)).toEqual(SESSIONS);
    let departures = 0;
    let changedWarnings = 0;
    for (const { session, rows, recorded } of report.sessions) {
      expect(rows.map((r) => r.setting)).toEqual(report.settings);
      for (const [i, row] of rows.entries()) {
        const direct = replayedDirectly(session, { stallThreshold: 2 + i });
        const where = `${session} ${row.setting}`;
        expect(
          row.run.warnings.map((w) => w.round),
          where,
        ).toEqual(direct.warnings);
        expect(row.run.stop && { round: row.run.stop.round, outcome: row.run.stop.outcome }, where).toEqual(direct.stop);
        expect(row.run.diverged?.line ?? null, where).toEqual(direct.refusedAt);
        const recordedRounds = recorded.warnings.map((w) => w.round);
        expect(row.comparison.warningsRaised, where).toEqual(direct.warnings.filter((r) => !recordedRounds.includes(r)));
        if (direct.stop && recorded.stop) {
          const shift = direct.stop.round - recorded.stop.round;
          expect(row.comparison.stop, where).toMatchObject({ shift: shift === 0 ? 'same' : shift < 0 ? 'earlier' : 'later', rounds: Math.abs(shift) });
        }
        if (direct.refusedAt !== null) departures += 1;
        if (direct.warnings.join() !== recordedRounds.join()) changedWarnings += 1;
      }
    }
    // The fixtures are chosen so the grid matters: some settings leave the record, some warn elsewhere.
    expect(departures).toBeGreaterThanOrEqual(3);
    expect(changedWarnings).toBeGreaterThanOrEqual(3);
  });

  it('prints the same as a table: what each session did, then a row per session and setting', { timeout: 60_000 }, () => {
    const result = runCli(['backtest', '.', '--grid', 'stall-threshold=2..4'], { cwd: FIXTURES });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe('Recorded:');
    expect(lines).toContain('  stalls-narrowed: warned at 3 (stall); stopped at round 5 (CONVERGED)');
    expect(lines).toContain('  max-rounds: no warning; stopped at round 6 (MAX_ROUNDS)');
    const header = lines.findIndex((line) => line.startsWith('session '));
    const rows = lines.slice(header + 1);
    expect(rows).toHaveLength(SESSIONS.length * 3);
    for (const session of SESSIONS) {
      for (const n of [2, 3, 4]) expect(rows.filter((row) => row.startsWith(`${session} `) && row.includes(` stall-threshold=${n} `))).toHaveLength(1);
    }
    // Under N = 2 the max-rounds session (recorded with N = 3) stalls at its second flat round in a row, round 3.
    const stalls = rows.find((row) => row.startsWith('max-rounds ') && row.includes('stall-threshold=2'))!;
    expect(stalls).toContain('3 (stall)');
    expect(stalls).toContain(
      'warns at 3 where the record did not; diverged from the record at round 3: this run warns here and the record has no decision for it',
    );
    // Under N = 3 the stall that narrowed scope at round 3 never comes: the narrowing no longer fits.
    const narrowed = rows.find((row) => row.startsWith('stalls-narrowed ') && row.includes('stall-threshold=3'))!;
    expect(narrowed).toContain(
      'no warning at 3 where the record warned; diverged from the record at round 3: the record decides narrow-scope in DIVERGENCE_WARNING; this run is FLAT there',
    );
    const same = rows.find((row) => row.startsWith('converges-steadily ') && row.includes('stall-threshold=4'))!;
    expect(same).toMatch(/4 CONVERGED\s+as recorded$/);
  });

  it('compares stops: a lower round limit stops earlier, a higher one has not stopped by the end of the record', () => {
    const lower = runCli(['backtest', 'max-rounds', '--set', 'max-rounds=4'], { cwd: FIXTURES });
    expect(lower.stdout).toMatch(/max-rounds +max-rounds=4 +- +4 MAX_ROUNDS +stops 2 rounds earlier\n$/);
    const higher = runCli(['backtest', 'max-rounds', '--set', 'max-rounds=8'], { cwd: FIXTURES });
    expect(higher.stdout).toContain('not stopped by round 6, where the record stopped');
  });

  it('combines --set and several --grid as a product', () => {
    const result = runCli(
      ['backtest', 'converges-steadily', '--set', 'critical-override=off', '--grid', 'stall-threshold=2..3', '--grid', 'max-rounds=3..4', '--json'],
      { cwd: FIXTURES },
    );
    const report = JSON.parse(result.stdout) as JsonReport;
    expect(report.settings).toEqual([
      'critical-override=off stall-threshold=2 max-rounds=3',
      'critical-override=off stall-threshold=2 max-rounds=4',
      'critical-override=off stall-threshold=3 max-rounds=3',
      'critical-override=off stall-threshold=3 max-rounds=4',
    ]);
    // The session converged at round 4: a limit of 3 stops it a round earlier.
    expect(report.sessions[0]!.rows.map((r) => r.run.stop?.outcome)).toEqual(['MAX_ROUNDS', 'CONVERGED', 'MAX_ROUNDS', 'CONVERGED']);
  });
});

describe('backtest under the settings a session ran with', () => {
  const OLD_LOGS = fileURLToPath(new URL('../fixtures/old-logs/v5', import.meta.url));

  it('follows every released log of every policy to where it ended, as recorded', { timeout: 60_000 }, () => {
    const result = runCli(['backtest', OLD_LOGS, '--json'], { cwd: OLD_LOGS });
    expect(result.code, result.stderr).toBe(0);
    const report = JSON.parse(result.stdout) as JsonReport;
    expect(report.sessions.length).toBeGreaterThanOrEqual(11);
    for (const { session, recorded, rows } of report.sessions) {
      const [row] = rows;
      expect(row!.setting).toBe('as recorded');
      expect(row!.run.diverged, session).toBeNull();
      expect(row!.run.warnings, session).toEqual(recorded.warnings);
      expect(row!.run.stop, session).toEqual(recorded.stop);
    }
  });

  it("changes a policy's own settings by init's flag names: forge's round limit below the round it converged at stops it there", () => {
    const result = runCli(['backtest', 'forge', '--grid', 'forge-max-rounds=2..3', '--json'], { cwd: OLD_LOGS });
    const [forge] = (JSON.parse(result.stdout) as JsonReport).sessions;
    expect(forge!.recorded.stop).toMatchObject({ round: 4, outcome: 'CONVERGED' });
    expect(forge!.rows.map((r) => r.run.stop)).toEqual([
      { round: 2, outcome: 'MAX_ROUNDS', by: 'round' },
      { round: 3, outcome: 'MAX_ROUNDS', by: 'round' },
    ]);
  });
});

describe('backtest reads and never writes', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'gapflow-backtest-'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('leaves every file under the DIRs with its bytes and mtime, and adds none', { timeout: 60_000 }, () => {
    cpSync(FIXTURES, join(root, 'sessions'), { recursive: true });
    const before = snapshot(root);
    for (const extra of [[], ['--json']]) {
      const result = runCli(['backtest', 'sessions', '--grid', 'stall-threshold=1..4', '--set', 'max-rounds=5', ...extra], { cwd: root });
      expect(result.code, result.stderr).toBe(0);
    }
    const after = snapshot(root);
    expect([...after.keys()].sort()).toEqual([...before.keys()].sort());
    for (const [path, was] of before) {
      expect(Buffer.compare(after.get(path)!.bytes, was.bytes), path).toBe(0);
      expect(after.get(path)!.mtimeMs, path).toBe(was.mtimeMs);
    }
  });

  it('with no DIR replays the current session, found as other commands find it, and writes nothing there', () => {
    const project = join(root, 'project');
    mkdirSync(join(project, 'src'), { recursive: true });
    cpSync(join(FIXTURES, 'stalls-narrowed'), join(project, '.gapflow'), { recursive: true });
    const before = snapshot(root);
    const result = runCli(['backtest', '--set', 'stall-threshold=3'], { cwd: join(project, 'src') });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('stall-threshold=3');
    expect(result.stdout).toContain('diverged from the record at round 3');
    expect([...snapshot(root).keys()].sort()).toEqual([...before.keys()].sort());
  });

  it('finds the sessions in a folder of projects, each in its .gapflow', () => {
    for (const name of ['alpha', 'beta']) cpSync(join(FIXTURES, 'converges-steadily'), join(root, name, '.gapflow'), { recursive: true });
    mkdirSync(join(root, 'no-session-here'));
    const result = runCli(['backtest', '.', '--json'], { cwd: root });
    const report = JSON.parse(result.stdout) as JsonReport;
    expect(report.sessions.map((s) => s.session)).toEqual([join('alpha', '.gapflow'), join('beta', '.gapflow')]);
    expect(report.sessions[0]!.rows.map((r) => r.setting)).toEqual(['as recorded']);
  });

  it('names a damaged log and replays nothing', () => {
    const dir = join(root, 'torn');
    cpSync(join(FIXTURES, 'converges-steadily'), dir, { recursive: true });
    writeFileSync(join(dir, 'events.jsonl'), `${readFileSync(join(dir, 'events.jsonl'), 'utf8')}{"v":5,"seq":`);
    expectOneLineError(runCli(['backtest', 'torn'], { cwd: root }), 1, ['events.jsonl', 'a backtest replays whole logs only']);
  });
});

describe('backtest refuses bad input with one line naming it', () => {
  const refusals: [string, string[], (string | RegExp)[]][] = [
    [
      'an unknown setting, with the nearest',
      ['--set', 'stall-treshold=3'],
      ['--set stall-treshold=3', '"stall-treshold" is no setting', 'did you mean stall-threshold?'],
    ],
    ['a range that runs backwards', ['--grid', 'stall-threshold=4..2'], ['--grid stall-threshold=4..2', '4 > 2']],
    ['a value that is no number', ['--set', 'stall-threshold=many'], ['--set stall-threshold=many', 'whole number', '"many"']],
    ['a grid that is no range', ['--grid', 'max-rounds=3-5'], ['--grid max-rounds=3-5', 'A..B']],
    ['a value the session schema refuses', ['--grid', 'stall-threshold=0..2'], ['--grid stall-threshold=0..2 (0)', 'at least 1']],
    ['a grid over a switch', ['--grid', 'critical-override=0..1'], ['critical-override is not a number to step through']],
    ['a setting without a value', ['--set', 'stall-threshold'], ['--set takes NAME=VALUE']],
    ['a setting given twice', ['--set', 'max-rounds=4', '--grid', 'max-rounds=2..3'], ['"max-rounds" is given twice']],
    ['a folder with no session', ['nowhere'], ['"nowhere": no session there']],
    [
      'grids whose product is too many runs',
      ['--grid', 'stall-threshold=1..40', '--grid', 'max-rounds=1..40'],
      ['the grids make 1600 settings to replay; at most 1000'],
    ],
  ];
  for (const [what, argv, mentions] of refusals) {
    it(`${what}: exit 1, nothing on stdout`, () => {
      const before = snapshot(FIXTURES);
      expectOneLineError(runCli(['backtest', ...(argv.includes('nowhere') ? [] : ['.']), ...argv], { cwd: FIXTURES }), 1, mentions);
      expect(snapshot(FIXTURES).size).toBe(before.size);
    });
  }

  it('sessions named both as DIR and with --dir are a usage error (exit 2)', () => {
    expectOneLineError(runCli(['backtest', 'max-rounds', '--dir', 'paused-resumed'], { cwd: FIXTURES }), 2, ['as DIR arguments or with --dir, not both']);
  });

  it('an unknown option is a usage error (exit 2)', () => {
    expectOneLineError(runCli(['backtest', '.', '--gird', 'stall-threshold=2..4'], { cwd: FIXTURES }), 2, ['--gird', 'did you mean --grid?']);
  });
});

describe('backtest settings, read where the words enter', () => {
  it('are judged by the schema a session start is judged by', () => {
    expect(backtestSettingsProblem({ stallThreshold: 0 })).toBe('0 is too small: at least 1');
    expect(backtestSettingsProblem({ stallThreshold: 3, maxRounds: 12 })).toBeNull();
    expect(backtestSettingsProblem({ policySettings: { nope: {} } })).toBe('no policy is named nope');
  });
});
