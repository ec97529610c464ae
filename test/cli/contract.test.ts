import { spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { StateJson } from '../../src/core/index.js';
import { FACTOR, WEIGHT } from '../support.js';
import {
  atBaseline,
  convergingAfterRoundOne,
  divergingAfterRoundOne,
  expectOneLineError,
  expectRefused,
  flatAfterRoundOne,
  runCli,
  Sandbox,
  word,
} from './helpers.js';

/*
 * Issue 2's CLI contract, driven through `run()` in-process (and, in the last
 * block, through the built bin as a real process). Every expected figure is
 * computed here from the gap rules (R6-R9), never read back from the code.
 */

let box: Sandbox;
beforeEach(() => {
  box = new Sandbox();
});
afterEach(() => {
  box.remove();
});

type Severity = 'CRITICAL' | 'HIGH' | 'MEDIUM' | 'LOW';
type GapState = 'OPEN' | 'IN_PROGRESS' | 'BLOCKED' | 'PROPOSED' | 'NEEDS_REVISION' | 'USER_DEFERRED' | 'ACCEPTED' | 'RESOLVED' | 'WONT_FIX';

function openFigures(gaps: readonly [Severity, GapState][]): { openGapCount: number; weightedOpen: number } {
  let openGapCount = 0;
  let weightedOpen = 0;
  for (const [severity, state] of gaps) {
    openGapCount += FACTOR[state];
    weightedOpen += FACTOR[state] * WEIGHT[severity];
  }
  return { openGapCount, weightedOpen };
}

/*
 * The scenario most tests here play. Baseline: GAP-A HIGH, GAP-B MEDIUM,
 * GAP-C LOW, GAP-D MEDIUM.
 * Round 1: A OPEN->IN_PROGRESS->PROPOSED->ACCEPTED (resolved, 4), B -> RESOLVED
 *   (resolved, 2), GAP-E LOW opened spawned by A (new, 1), C -> USER_DEFERRED
 *   (neither, R6). Unweighted 2-1 = +1, weighted 6-1 = +5: CONVERGING.
 * Round 2: GAP-F MEDIUM opened (new, 2), E -> RESOLVED (resolved, 1).
 *   Unweighted 1-1 = 0, weighted 1-2 = -1: FLAT, flat_count 1.
 * Round 3: D escalated MEDIUM -> HIGH (weighted new +2, R7), GAP-G CRITICAL
 *   opened (new, 16). Unweighted 0-1 = -1, weighted 0-18 = -18: DIVERGENCE_WARNING.
 */
const BASELINE: [Severity, GapState][] = [
  ['HIGH', 'OPEN'],
  ['MEDIUM', 'OPEN'],
  ['LOW', 'OPEN'],
  ['MEDIUM', 'OPEN'],
];
const AFTER_ROUND_1: [Severity, GapState][] = [
  ['HIGH', 'ACCEPTED'], // A
  ['MEDIUM', 'RESOLVED'], // B
  ['LOW', 'USER_DEFERRED'], // C
  ['MEDIUM', 'OPEN'], // D
  ['LOW', 'OPEN'], // E
];
const AFTER_ROUND_2: [Severity, GapState][] = [
  ['HIGH', 'ACCEPTED'],
  ['MEDIUM', 'RESOLVED'],
  ['LOW', 'USER_DEFERRED'],
  ['MEDIUM', 'OPEN'],
  ['LOW', 'RESOLVED'],
  ['MEDIUM', 'OPEN'], // F
];
const AFTER_ROUND_3: [Severity, GapState][] = [
  ['HIGH', 'ACCEPTED'],
  ['MEDIUM', 'RESOLVED'],
  ['LOW', 'USER_DEFERRED'],
  ['HIGH', 'OPEN'], // D, escalated
  ['LOW', 'RESOLVED'],
  ['MEDIUM', 'OPEN'],
  ['CRITICAL', 'OPEN'], // G
];

const ROUND_1 = {
  round: 1,
  openStart: openFigures(BASELINE).openGapCount,
  resolved: 2,
  new: 1,
  openEnd: openFigures(AFTER_ROUND_1).openGapCount,
  unweightedNet: 2 - 1,
  weightedNet: 4 + 2 - 1,
  weightedResolved: 4 + 2,
  weightedNew: 1,
  state: 'CONVERGING',
  flatCount: 0,
};
const ROUND_2 = {
  round: 2,
  openStart: openFigures(AFTER_ROUND_1).openGapCount,
  resolved: 1,
  new: 1,
  openEnd: openFigures(AFTER_ROUND_2).openGapCount,
  unweightedNet: 1 - 1,
  weightedNet: 1 - 2,
  weightedResolved: 1,
  weightedNew: 2,
  state: 'FLAT',
  flatCount: 1,
};
const ROUND_3 = {
  round: 3,
  openStart: openFigures(AFTER_ROUND_2).openGapCount,
  resolved: 0,
  new: 1,
  openEnd: openFigures(AFTER_ROUND_3).openGapCount,
  unweightedNet: 0 - 1,
  weightedNet: 0 - (16 + (4 - 2)),
  weightedResolved: 0,
  weightedNew: 16 + (4 - 2),
  state: 'DIVERGENCE_WARNING',
};

function baseline(): void {
  box.ok('init');
  box.ok('gap', 'open', 'GAP-A', '--severity', 'HIGH', '--title', 'Parser undefined');
  box.ok('gap', 'open', 'GAP-B', '--severity', 'MEDIUM', '--title', 'Retry policy');
  box.ok('gap', 'open', 'GAP-C', '--severity', 'LOW', '--title', 'Glossary typo');
  box.ok('gap', 'open', 'GAP-D', '--severity', 'MEDIUM', '--title', 'Error codes');
}

/** Plays the scenario through `rounds` closed rounds; returns each `round close` output. */
function play(rounds: 1 | 2 | 3): string[] {
  const closes: string[] = [];
  baseline();
  box.steps('round start', 'gap move GAP-A IN_PROGRESS', 'gap move GAP-A PROPOSED', 'gap move GAP-A ACCEPTED', 'gap move GAP-B RESOLVED');
  box.ok('gap', 'open', 'GAP-E', '--severity', 'LOW', '--spawned-by', 'GAP-A', '--title', 'Parser error text');
  box.ok('gap', 'move', 'GAP-C', 'USER_DEFERRED');
  closes.push(box.ok('round', 'close').stdout);
  if (rounds === 1) return closes;
  box.steps('round start', 'gap open GAP-F --severity MEDIUM', 'gap move GAP-E RESOLVED');
  closes.push(box.ok('round', 'close').stdout);
  if (rounds === 2) return closes;
  box.steps('round start', 'gap severity GAP-D HIGH');
  box.ok('gap', 'open', 'GAP-G', '--severity', 'CRITICAL', '--title', 'Schema undefined');
  closes.push(box.ok('round', 'close').stdout);
  return closes;
}

describe('state --json', () => {
  it('has every field the contract lists, with rounds, history and gaps entries of the listed shape', () => {
    play(1);
    const s = box.stateJson();
    for (const key of [
      'state',
      'outcome',
      'round',
      'roundOpen',
      'flatCount',
      'openGapCount',
      'weightedOpen',
      'config',
      'decision',
      'rounds',
      'history',
      'gaps',
    ]) {
      expect(s).toHaveProperty(key);
    }
    expect(Object.keys(s.config).sort()).toEqual(expect.arrayContaining(['criticalOverride', 'divergenceThreshold', 'maxRounds', 'stallThreshold']));
    expect(Object.keys(s.decision)).toEqual(expect.arrayContaining(['action', 'reason']));
    const roundKeys = [
      'round',
      'openStart',
      'resolved',
      'new',
      'openEnd',
      'unweightedNet',
      'weightedNet',
      'weightedResolved',
      'weightedNew',
      'state',
      'flatCount',
    ];
    expect(Object.keys(s.rounds[0]!)).toEqual(expect.arrayContaining(roundKeys));
    expect(Object.keys(s.history[0]!)).toEqual(expect.arrayContaining(['round', 'from', 'to', 'reason']));
    expect(Object.keys(s.gaps[0]!)).toEqual(expect.arrayContaining(['id', 'severity', 'state', 'title']));
  });

  it('at baseline: CONVERGING, outcome null, no round closed, the baseline open figures and the default config', () => {
    baseline();
    const s = box.stateJson();
    expect(s).toMatchObject({
      state: 'CONVERGING',
      outcome: null,
      round: 0,
      roundOpen: false,
      flatCount: 0,
      ...openFigures(BASELINE),
      config: { stallThreshold: 2, divergenceThreshold: 8, maxRounds: 10, criticalOverride: true },
      rounds: [],
    });
    expect(s.decision.action).toBe('continue');
    expect(s.decision.reason).not.toBe('');
    expect(s.gaps).toEqual([
      expect.objectContaining({ id: 'GAP-A', severity: 'HIGH', state: 'OPEN', title: 'Parser undefined' }),
      expect.objectContaining({ id: 'GAP-B', severity: 'MEDIUM', state: 'OPEN', title: 'Retry policy' }),
      expect.objectContaining({ id: 'GAP-C', severity: 'LOW', state: 'OPEN', title: 'Glossary typo' }),
      expect.objectContaining({ id: 'GAP-D', severity: 'MEDIUM', state: 'OPEN', title: 'Error codes' }),
    ]);
  });

  it('round counts closed rounds: while round 1 is open, round is 0 and roundOpen is true', () => {
    baseline();
    box.ok('round', 'start');
    expect(box.stateJson()).toMatchObject({ round: 0, roundOpen: true, state: 'CONVERGING' });
    box.ok('round', 'close');
    expect(box.stateJson()).toMatchObject({ round: 1, roundOpen: false });
  });

  it('after a progressing round: the round row recomputed from R6, CONVERGING, action continue', () => {
    play(1);
    const s = box.stateJson();
    expect(s).toMatchObject({ state: 'CONVERGING', outcome: null, round: 1, roundOpen: false, flatCount: 0, ...openFigures(AFTER_ROUND_1) });
    expect(s.rounds).toEqual([expect.objectContaining(ROUND_1)]);
    expect(s.decision.action).toBe('continue');
    expect(s.history).toEqual([expect.objectContaining({ round: 1, from: 'CONVERGING', to: 'CONVERGING' })]);
    expect(s.gaps).toContainEqual(expect.objectContaining({ id: 'GAP-E', severity: 'LOW', state: 'OPEN', title: 'Parser error text' }));
    expect(s.gaps).toContainEqual(expect.objectContaining({ id: 'GAP-C', state: 'USER_DEFERRED' }));
  });

  it('after a flat round: FLAT with flatCount 1, action continue, history CONVERGING -> FLAT with its reason', () => {
    play(2);
    const s = box.stateJson();
    expect(s).toMatchObject({ state: 'FLAT', outcome: null, round: 2, flatCount: 1, ...openFigures(AFTER_ROUND_2) });
    expect(s.rounds).toEqual([expect.objectContaining(ROUND_1), expect.objectContaining(ROUND_2)]);
    expect(s.decision.action).toBe('continue');
    const last = s.history.at(-1)!;
    expect(last).toMatchObject({ round: 2, from: 'CONVERGING', to: 'FLAT' });
    expect(last.reason).toMatch(/-1\b/);
  });

  it('after a round that opens a CRITICAL gap: DIVERGENCE_WARNING, action ask_user, escalation counted as weighted new (R5, R7)', () => {
    play(3);
    const s = box.stateJson();
    expect(s).toMatchObject({ state: 'DIVERGENCE_WARNING', outcome: null, round: 3, ...openFigures(AFTER_ROUND_3) });
    expect(s.rounds[2]).toMatchObject(ROUND_3);
    expect(s.decision.action).toBe('ask_user');
    const last = s.history.at(-1)!;
    expect(last).toMatchObject({ round: 3, from: 'FLAT', to: 'DIVERGENCE_WARNING' });
    expect(last.reason).toMatch(/CRITICAL/);
    expect(s.gaps).toContainEqual(expect.objectContaining({ id: 'GAP-D', severity: 'HIGH', state: 'OPEN' }));
  });

  it('PAUSED stops the loop with outcome still null; resume returns to the state it was paused in', () => {
    play(3);
    box.ok('decide', 'pause');
    expect(box.stateJson()).toMatchObject({ state: 'PAUSED', outcome: null, decision: { action: 'stop' } });
    box.ok('decide', 'resume');
    expect(box.stateJson()).toMatchObject({ state: 'DIVERGENCE_WARNING', outcome: null, decision: { action: 'ask_user' } });
  });

  it('COMPLETE sets the outcome and action stop (abandon: ABANDONED; force-complete: STALL_EXIT)', () => {
    play(3);
    box.ok('decide', 'force-complete');
    const forced = box.stateJson();
    expect(forced).toMatchObject({ state: 'COMPLETE', outcome: 'STALL_EXIT', decision: { action: 'stop' } });
    expect(forced.history.at(-1)).toMatchObject({ from: 'DIVERGENCE_WARNING', to: 'COMPLETE' });

    const other = new Sandbox();
    try {
      other.ok('init');
      other.ok('gap', 'open', 'GAP-A', '--severity', 'LOW');
      other.ok('decide', 'abandon');
      expect(other.stateJson()).toMatchObject({ state: 'COMPLETE', outcome: 'ABANDONED', decision: { action: 'stop' } });
    } finally {
      other.remove();
    }
  });

  it('approve with nothing severe open completes as GOOD_ENOUGH; over an open HIGH gap with a rationale as USER_APPROVED', () => {
    play(1);
    // Open now: D MEDIUM, E LOW, C LOW deferred: nothing CRITICAL or HIGH.
    box.ok('decide', 'approve');
    expect(box.stateJson()).toMatchObject({ state: 'COMPLETE', outcome: 'GOOD_ENOUGH' });

    const other = new Sandbox();
    try {
      atBaseline(other);
      other.ok('decide', 'approve', '--rationale', 'the parser gap is out of scope');
      expect(other.stateJson()).toMatchObject({ state: 'COMPLETE', outcome: 'USER_APPROVED' });
    } finally {
      other.remove();
    }
  });
});

describe('init flags are reflected in config (R13)', () => {
  it.each([
    [[], { stallThreshold: 2, divergenceThreshold: 8, maxRounds: 10, criticalOverride: true }],
    [['--preset', 'simple'], { stallThreshold: 2, divergenceThreshold: 8, maxRounds: 10, criticalOverride: true }],
    [['--preset', 'complex'], { stallThreshold: 3, divergenceThreshold: 12, maxRounds: 10, criticalOverride: true }],
    [['--preset', 'large'], { stallThreshold: 4, divergenceThreshold: 16, maxRounds: 10, criticalOverride: true }],
    [['--preset', 'large', '--stall-threshold', '5'], { stallThreshold: 5, divergenceThreshold: 16, maxRounds: 10, criticalOverride: true }],
    [['--preset', 'complex', '--divergence-threshold', '20'], { stallThreshold: 3, divergenceThreshold: 20, maxRounds: 10, criticalOverride: true }],
    [
      ['--stall-threshold', '4', '--divergence-threshold', '6', '--max-rounds', '7', '--no-critical-override'],
      { stallThreshold: 4, divergenceThreshold: 6, maxRounds: 7, criticalOverride: false },
    ],
  ])('init %s gives config %o', (flags, config) => {
    box.ok('init', ...flags);
    expect(box.stateJson().config).toEqual(config);
  });

  it.each([
    // [baseline gaps, expected N, D, max_rounds = max(10, ceil(0.6 x baseline))]
    [3, 2, 8, 10],
    [20, 3, 12, 12],
    [35, 4, 16, 21],
  ])('--preset auto with %i baseline gaps resolves to N=%i, D=%i, max_rounds=%i when round 1 starts', (gaps, n, d, maxRounds) => {
    box.ok('init', '--preset', 'auto');
    for (let i = 1; i <= gaps; i++) box.ok('gap', 'open', `GAP-${i}`, '--severity', 'LOW');
    box.ok('round', 'start');
    expect(box.stateJson().config).toEqual({ stallThreshold: n, divergenceThreshold: d, maxRounds, criticalOverride: true });
  });

  it('--preset auto with an explicit --max-rounds keeps the explicit value', () => {
    box.ok('init', '--preset', 'auto', '--max-rounds', '5');
    for (let i = 1; i <= 20; i++) box.ok('gap', 'open', `GAP-${i}`, '--severity', 'LOW');
    box.ok('round', 'start');
    expect(box.stateJson().config).toMatchObject({ stallThreshold: 3, divergenceThreshold: 12, maxRounds: 5 });
  });

  it('--no-critical-override makes a new CRITICAL count only by weight: -16 against D=20 is FLAT, not a warning', () => {
    box.ok('init', '--no-critical-override', '--divergence-threshold', '20');
    box.steps('gap open GAP-A --severity HIGH', 'round start', 'gap open GAP-X --severity CRITICAL', 'round close');
    expect(box.stateJson()).toMatchObject({ state: 'FLAT', flatCount: 1, rounds: [expect.objectContaining({ weightedNet: -16 })] });
  });
});

describe('round close prints the round summary', () => {
  it('a progressing round: resolved and new, both nets, the state and why', () => {
    const [out] = play(1);
    expect(out).toMatch(/resolved\D{0,3}2\b/i);
    expect(out).toMatch(/\bnew\D{0,3}1\b/i);
    expect(out).toMatch(/unweighted net\D{0,3}\+1\b/i);
    expect(out).toMatch(/(?<!un)weighted net\D{0,3}\+5\b/i);
    expect(out).toMatch(word('CONVERGING'));
    expect(out).toMatch(/why|because|reason|weighted_net/i);
  });

  it('a flat round: FLAT, weighted net -1 and the flat count toward the stall threshold (1/2)', () => {
    const out = play(2)[1]!;
    expect(out).toMatch(/unweighted net\D{0,3}0\b/i);
    expect(out).toMatch(/(?<!un)weighted net\D{0,3}-1\b/i);
    expect(out).toMatch(word('FLAT'));
    expect(out).toMatch(/\b1\/2\b/);
  });

  it('a round that opens a CRITICAL gap: DIVERGENCE_WARNING, weighted net -18, and the CRITICAL gap as the reason', () => {
    const out = play(3)[2]!;
    expect(out).toMatch(/(?<!un)weighted net\D{0,3}-18\b/i);
    expect(out).toMatch(/unweighted net\D{0,3}-1\b/i);
    expect(out).toMatch(word('DIVERGENCE_WARNING'));
    expect(out).toMatch(/CRITICAL/);
  });

  it('when the nets disagree in sign it says so and that the weighted one decides (R14)', () => {
    box.ok('init');
    for (let i = 1; i <= 5; i++) box.ok('gap', 'open', `GAP-L${i}`, '--severity', 'LOW');
    box.steps('gap open GAP-H --severity HIGH', 'round start');
    for (let i = 1; i <= 5; i++) box.ok('gap', 'move', `GAP-L${i}`, 'RESOLVED');
    box.ok('gap', 'open', 'GAP-X', '--severity', 'CRITICAL');
    const out = box.ok('round', 'close').stdout;
    // 5 LOW resolved, 1 CRITICAL new: unweighted 5-1 = +4, weighted 5-16 = -11.
    expect(out).toMatch(/unweighted net\D{0,3}\+4\b/i);
    expect(out).toMatch(/(?<!un)weighted net\D{0,3}-11\b/i);
    expect(out).toMatch(/disagree/i);
    expect(out).toMatch(/weighted[^\n]*decides|decid[^\n]*weighted/i);
    expect(out).toMatch(word('DIVERGENCE_WARNING'));
  });
});

describe('prompt, summary, status and replay', () => {
  it.each([
    ['CONVERGING', atBaseline],
    ['FLAT', flatAfterRoundOne],
  ])('prompt in %s prints one line saying nothing is to be decided, exit 0', (state, build) => {
    build(box);
    const result = box.gf('prompt');
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout.trimEnd().split('\n')).toHaveLength(1);
    expect(result.stdout).toMatch(/nothing/i);
    expect(result.stdout).toMatch(word(state));
  });

  it('prompt in DIVERGENCE_WARNING prints the decision prompt with the CRITICAL cause and the options', () => {
    divergingAfterRoundOne(box);
    const result = box.gf('prompt');
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toMatch(word('DIVERGENCE_WARNING'));
    expect(result.stdout).toMatch(word('GAP-C1'));
    for (const option of [/narrow scope/i, /accept complexity/i, /prioriti[sz]e critical/i, /pause/i, /force complete/i]) {
      expect(result.stdout).toMatch(option);
    }
  });

  it('summary before COMPLETE is refused: exit 1, one line naming the state', () => {
    convergingAfterRoundOne(box);
    expectRefused(box, ['summary'], [word('CONVERGING'), /COMPLETE/]);
  });

  it('summary once COMPLETE lists the open gaps under Known Limitations, CRITICAL first', () => {
    play(3);
    box.ok('decide', 'force-complete');
    const result = box.gf('summary');
    expect(result).toMatchObject({ code: 0, stderr: '' });
    const limitations = result.stdout.slice(result.stdout.search(/Known Limitations/i));
    expect(limitations).toMatch(/Known Limitations/i);
    const g = limitations.search(word('GAP-G'));
    const d = limitations.search(word('GAP-D'));
    const f = limitations.search(word('GAP-F'));
    expect(g).toBeGreaterThanOrEqual(0);
    expect(d).toBeGreaterThan(g);
    expect(f).toBeGreaterThan(d);
  });

  it('status --write writes status.md into the session folder, the same text status prints, and leaves the log alone', () => {
    play(3);
    const printed = box.ok('status');
    expect(existsSync(box.statusPath)).toBe(false);
    const logBefore = box.logBytes()!;
    const written = box.ok('status', '--write');
    expect(written.stdout).toContain(box.statusPath);
    expect(existsSync(join(box.root, 'status.md'))).toBe(false);
    const text = readFileSync(box.statusPath, 'utf8');
    expect(text).toBe(printed.stdout);
    expect(Buffer.compare(box.logBytes()!, logBefore)).toBe(0);
    for (const heading of ['Session Configuration', 'Round Progress', 'Severity Breakdown', 'State History', 'Gap Inventory']) {
      expect(text).toContain(heading);
    }
  });

  it('status.md rows carry the recomputed figures, and flat count "-" for a DIVERGENCE_WARNING round (R4, R9)', () => {
    play(3);
    box.ok('status', '--write');
    const text = readFileSync(box.statusPath, 'utf8');
    const row = (...cells: string[]) => new RegExp(`^\\|\\s*${cells.map((c) => c.replace(/[+.]/g, '\\$&')).join('\\s*\\|\\s*')}\\s*\\|`, 'm');
    expect(text).toMatch(row('1', '4', '2', '1', '2.5', '+1', '+5', 'CONVERGING', '0'));
    expect(text).toMatch(row('2', '2.5', '1', '1', '2.5', '0', '-1', 'FLAT', '1'));
    expect(text).toMatch(row('3', '2.5', '0', '1', '3.5', '-1', '-18', 'DIVERGENCE_WARNING', '-'));
  });

  it('replay prints the event count and the state', () => {
    play(1);
    // session.started, 4 baseline opens, round.started, 3 moves of A, B resolved, E opened, C deferred, round.closed.
    const expected = 1 + 4 + 1 + 3 + 1 + 1 + 1 + 1;
    expect(box.logLines()).toHaveLength(expected);
    const result = box.ok('replay');
    expect(result.stdout).toMatch(word(String(expected)));
    expect(result.stdout).toMatch(word('CONVERGING'));
  });

  it('a gap event between rounds is recorded after its own round.started, and replay counts both (R8)', () => {
    play(1);
    box.ok('gap', 'open', 'GAP-X', '--severity', 'LOW');
    const expected = 13 + 2;
    expect(box.logLines()).toHaveLength(expected);
    expect(box.logLines()[13]).toContain('"round.started"');
    expect(box.ok('replay').stdout).toMatch(word(String(expected)));
    expect(box.stateJson()).toMatchObject({ round: 1, roundOpen: true });
  });
});

describe('the session folder: --dir, then $GAPFLOW_DIR, then the nearest .gapflow upward', () => {
  const logIn = (dir: string) => join(dir, 'events.jsonl');

  it('with neither, init creates ./.gapflow under the cwd and later commands find it there', () => {
    expect(runCli(['init'], { cwd: box.root })).toMatchObject({ code: 0, stderr: '' });
    expect(existsSync(logIn(join(box.root, '.gapflow')))).toBe(true);
    expect(runCli(['gap', 'open', 'GAP-A', '--severity', 'LOW'], { cwd: box.root }).code).toBe(0);
    const state = runCli(['state', '--json'], { cwd: box.root });
    expect((JSON.parse(state.stdout) as StateJson).gaps).toHaveLength(1);
    // A subfolder finds it too, the nearest .gapflow upward; a folder the search cannot reach it from does not.
    const below = join(box.root, 'below');
    mkdirSync(below);
    expect(runCli(['state', '--json'], { cwd: below }).stdout).toBe(state.stdout);
    expectOneLineError(runCli(['state'], { cwd: below, env: { CLAUDE_PROJECT_DIR: below } }), 1, [/init/]);
  });

  it('$GAPFLOW_DIR (absolute) is used when there is no --dir', () => {
    const envDir = join(box.root, 'from-env');
    expect(runCli(['init'], { cwd: box.root, env: { GAPFLOW_DIR: envDir } }).code).toBe(0);
    expect(existsSync(logIn(envDir))).toBe(true);
    expect(existsSync(join(box.root, '.gapflow'))).toBe(false);
    expect(runCli(['state', '--json'], { cwd: '/', env: { GAPFLOW_DIR: envDir } }).code).toBe(0);
  });

  it('$GAPFLOW_DIR (relative) is resolved against the cwd', () => {
    expect(runCli(['init'], { cwd: box.root, env: { GAPFLOW_DIR: 'rel/sess' } }).code).toBe(0);
    expect(existsSync(logIn(join(box.root, 'rel', 'sess')))).toBe(true);
  });

  it('--dir beats $GAPFLOW_DIR', () => {
    const envDir = join(box.root, 'from-env');
    const flagDir = join(box.root, 'from-flag');
    expect(runCli(['init', '--dir', flagDir], { cwd: box.root, env: { GAPFLOW_DIR: envDir } }).code).toBe(0);
    expect(existsSync(logIn(flagDir))).toBe(true);
    expect(existsSync(envDir)).toBe(false);
  });

  it('--dir works before the command, as --dir=DIR, and relative to the cwd', () => {
    expect(runCli(['--dir', 'a', 'init'], { cwd: box.root }).code).toBe(0);
    expect(existsSync(logIn(join(box.root, 'a')))).toBe(true);
    expect(runCli(['init', '--dir=b'], { cwd: box.root }).code).toBe(0);
    expect(existsSync(logIn(join(box.root, 'b')))).toBe(true);
    expect(runCli([`--dir=${join(box.root, 'a')}`, 'gap', 'open', 'GAP-A', '--severity', 'LOW'], { cwd: '/' }).code).toBe(0);
    const state = runCli(['state', '--json', '--dir', 'a'], { cwd: box.root });
    expect((JSON.parse(state.stdout) as StateJson).gaps).toEqual([expect.objectContaining({ id: 'GAP-A' })]);
  });

  it('an empty $GAPFLOW_DIR counts as unset; an empty --dir is a usage error', () => {
    expect(runCli(['init'], { cwd: box.root, env: { GAPFLOW_DIR: '' } }).code).toBe(0);
    expect(existsSync(logIn(join(box.root, '.gapflow')))).toBe(true);
    expectOneLineError(runCli(['state', '--dir', ''], { cwd: box.root }), 2, [/--dir needs a folder/]);
  });

  it('status --write writes into the folder --dir names, not the cwd', () => {
    expect(runCli(['init', '--dir', 'x'], { cwd: box.root }).code).toBe(0);
    expect(runCli(['status', '--write', '--dir', 'x'], { cwd: box.root }).code).toBe(0);
    expect(existsSync(join(box.root, 'x', 'status.md'))).toBe(true);
    expect(existsSync(join(box.root, 'status.md'))).toBe(false);
  });
});

describe('a refusal says what to type next', () => {
  it('approving over an open HIGH gap asks for a rationale', () => {
    convergingAfterRoundOne(box);
    expect(box.gf('decide', 'approve').stderr.trimEnd()).toMatch(/GAP-H1.*\(add --rationale TEXT\)$/);
  });

  it.each([
    [['round', 'start'], 'run: gapflow prompt, for the options'],
    [['gap', 'open', 'X', '--severity', 'LOW'], 'run: gapflow prompt, for the options'],
  ])('in DIVERGENCE_WARNING `%s` ends with (%s)', (argv, hint) => {
    divergingAfterRoundOne(box);
    const result = box.gf(...argv);
    expectOneLineError(result, 1, []);
    expect(result.stderr.trimEnd().endsWith(`(${hint})`)).toBe(true);
  });

  it('a pause is undone by `gapflow decide resume`, and the refusal says so', () => {
    convergingAfterRoundOne(box);
    box.ok('decide', 'pause');
    expect(box.gf('round', 'start').stderr.trimEnd()).toMatch(/\(run: gapflow decide resume\)$/);
  });
});

describe('odd words', () => {
  it.each([['constructor'], ['toString'], ['__proto__'], ['hasOwnProperty']])('`gapflow %s` is an unknown command (exit 2)', (name) => {
    expectOneLineError(runCli([name], { cwd: box.root }), 2, [/unknown command/]);
  });

  it('no command at all, even with --dir given, is a usage error', () => {
    expectOneLineError(runCli([], { cwd: box.root }), 2, [/a command is needed/]);
    expectOneLineError(box.gf(), 2, [/a command is needed/]);
  });

  it('a log line with control characters in its type is reported without them', () => {
    atBaseline(box);
    appendFileSync(box.logPath, '{"v":1,"seq":4,"id":"x","at":"2026-01-01T00:00:00Z","type":"gap.\\u001b[31mx","data":{}}\n');
    const result = box.gf('state');
    expectOneLineError(result, 1, [/line 4/]);
    expect(result.stderr).not.toContain('\u001b');
  });

  it('`decide constructor` is no decision: invalid input (exit 1) listing the decisions', () => {
    expectOneLineError(box.gf('decide', 'constructor'), 1, [/"constructor" is not one of narrow-scope/]);
  });

  it('a baseline move is not announced as counted: nothing counts before round 1', () => {
    atBaseline(box);
    expect(box.ok('gap', 'move', 'GAP-M1', 'RESOLVED').stdout).not.toMatch(/counts/);
    box.ok('round', 'start');
    expect(box.ok('gap', 'move', 'GAP-H1', 'RESOLVED').stdout).toContain('(counts as resolved)');
    expect(box.ok('gap', 'move', 'GAP-M1', 'OPEN').stdout).toContain('(reopened: counts as new)');
  });
});

describe('the built command as a real process', () => {
  const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
  const pkg = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as { bin: Record<string, string> };
  const bin = join(repo, pkg.bin.gapflow!);
  const env = { ...process.env };
  delete env.GAPFLOW_DIR;

  const spawn = (command: string, args: string[], cwd: string) => {
    const result = spawnSync(command, args, { cwd, env, encoding: 'utf8', timeout: 60_000 });
    return { code: result.status, stdout: result.stdout, stderr: result.stderr };
  };

  it('`node <bin from package.json>` runs init, gap open and state --json with exit 0', { timeout: 30_000 }, () => {
    expect(existsSync(bin), `${bin} is missing: \`npm run build\` makes it`).toBe(true);
    expect(spawn('node', [bin, 'init', '--dir', box.dir], box.root)).toMatchObject({ code: 0, stderr: '' });
    expect(spawn('node', [bin, '--dir', box.dir, 'gap', 'open', 'GAP-A', '--severity', 'HIGH'], box.root)).toMatchObject({ code: 0, stderr: '' });
    const state = spawn('node', [bin, 'state', '--json', '--dir', box.dir], box.root);
    expect(state).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(state.stdout)).toMatchObject({ state: 'CONVERGING', round: 0, openGapCount: 1, weightedOpen: 4, outcome: null });
  });

  it('a refusal exits 1 with one stderr line and the log untouched; an unknown command exits 2', { timeout: 30_000 }, () => {
    box.ok('init');
    box.ok('gap', 'open', 'GAP-A', '--severity', 'HIGH');
    const before = box.logBytes()!;
    const refused = spawn('node', [bin, 'gap', 'move', 'GAP-NOPE', 'IN_PROGRESS', '--dir', box.dir], box.root);
    expectOneLineError({ code: refused.code ?? -1, stdout: refused.stdout, stderr: refused.stderr }, 1, [word('GAP-NOPE')]);
    expect(Buffer.compare(box.logBytes()!, before)).toBe(0);
    const usage = spawn('node', [bin, 'frobnicate', '--dir', box.dir], box.root);
    expectOneLineError({ code: usage.code ?? -1, stdout: usage.stdout, stderr: usage.stderr }, 2, [word('frobnicate')]);
  });

  it('a reader that stops early (`status | head -c 1`) ends the command quietly, with no stack trace', { timeout: 30_000 }, () => {
    box.ok('init');
    for (let i = 0; i < 300; i++) box.ok('gap', 'open', `GAP-${i}`, '--severity', 'LOW', '--title', 'x'.repeat(200));
    const result = spawn('bash', ['-c', `node "${bin}" status --dir "${box.dir}" | head -c 1 >/dev/null; echo "exit \${PIPESTATUS[0]}"`], box.root);
    expect(result.stderr).toBe('');
    expect(result.stdout.trim()).toBe('exit 0');
  });

  it('`npx gapflow --help` runs from the project folder and lists the commands', { timeout: 60_000 }, () => {
    // --no-install: resolve the project's own bin, never fetch a package of that name.
    const result = spawn('npx', ['--no-install', 'gapflow', '--help'], repo);
    expect(result.code, result.stderr).toBe(0);
    for (const command of [
      'init',
      'gap open',
      'gap move',
      'gap severity',
      'round start',
      'round close',
      'decide',
      'state',
      'status',
      'prompt',
      'summary',
      'replay',
    ]) {
      expect(result.stdout).toContain(command);
    }
  });
});
