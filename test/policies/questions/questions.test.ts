import { afterEach, describe, expect, it } from 'vitest';
import { renderCheckTree, questionsPolicy } from '../../../src/policies/index.js';
import type { Session } from '../../../src/index.js';
import { toStateJson } from '../../../src/core/index.js';
import { Sandbox } from '../../cli/helpers.js';
import { newSession } from '../../support.js';

/** The questions presets (docs/policies.md#settings), restated so the test checks the code against the documented table, not against itself. */
const TUNING = {
  conservative: { minIterations: 3, maxIterations: 7, stabilityThreshold: 3, questionThreshold: 2, confidenceThreshold: 0.9 },
  balanced: { minIterations: 2, maxIterations: 5, stabilityThreshold: 2, questionThreshold: 3, confidenceThreshold: 0.8 },
  aggressive: { minIterations: 1, maxIterations: 3, stabilityThreshold: 2, questionThreshold: 5, confidenceThreshold: 0.7 },
};

type Iteration = [open: number, high: number, medium: number];

function play(iterations: Iteration[], settings: Record<string, unknown> = {}): Session {
  const s = newSession({ policies: ['questions'], policySettings: { questions: settings } });
  for (const [open, high, medium] of iterations) s.recordMetrics('questions', { open, high, medium });
  return s;
}

const latest = (s: Session) => toStateJson(s.view).policies.find((p) => p.name === 'questions')!;

describe('questions policy: the decision flow, in its order', () => {
  it('iteration < minimum: continue; the first iteration counts as progress', () => {
    const s = play([[12, 2, 2]]);
    expect(latest(s)).toMatchObject({ verdict: 'progress', reason: 'first_iteration' });
    expect(toStateJson(s.view)).toMatchObject({ state: 'CONVERGING', round: 1 });
  });

  it('iteration < minimum with no fewer open questions: continue, but flat (minimum not met)', () => {
    const s = play(
      [
        [12, 2, 2],
        [12, 2, 2],
      ],
      { preset: 'conservative' },
    );
    expect(latest(s)).toMatchObject({ verdict: 'flat', reason: 'minimum_not_met' });
    expect(toStateJson(s.view)).toMatchObject({ state: 'FLAT', flatCount: 1 });
  });

  it('the minimum holds even when an early stop would fire: 2 open questions at iteration 1 of 2', () => {
    const s = play([[2, 0, 0]]);
    expect(latest(s).verdict).toBe('progress');
    expect(toStateJson(s.view).state).toBe('CONVERGING');
  });

  it('iteration >= maximum: stop (maximum reached), COMPLETE with MAX_ROUNDS', () => {
    const s = play([
      [20, 1, 1],
      [18, 1, 1],
      [16, 1, 1],
      [14, 1, 1],
      [12, 1, 1],
    ]);
    expect(latest(s)).toMatchObject({ verdict: 'limit', reason: 'maximum_reached' });
    expect(toStateJson(s.view)).toMatchObject({ state: 'COMPLETE', outcome: 'MAX_ROUNDS', round: TUNING.balanced.maxIterations });
  });

  it('questions_stable_count >= 2: stop (research exhausted), COMPLETE with CONVERGED', () => {
    const s = play([
      [9, 1, 1],
      [9, 1, 1],
    ]);
    expect(latest(s)).toMatchObject({ verdict: 'flat' });
    expect(toStateJson(s.view).state).toBe('FLAT');
    s.recordMetrics('questions', { open: 9, high: 1, medium: 1 });
    expect(latest(s)).toMatchObject({ verdict: 'converged', reason: 'questions_stable' });
    expect(latest(s).figures.stableCount).toBe(2);
    expect(toStateJson(s.view)).toMatchObject({ state: 'COMPLETE', outcome: 'CONVERGED' });
  });

  it('open_questions_count <= 3: stop (few enough for human)', () => {
    const s = play([
      [8, 1, 1],
      [3, 1, 1],
    ]);
    expect(latest(s)).toMatchObject({ verdict: 'converged', reason: 'few_questions' });
    expect(toStateJson(s.view)).toMatchObject({ state: 'COMPLETE', outcome: 'CONVERGED' });
  });

  it('all questions resolved early (edge case): 0 open at iteration 2 stops', () => {
    const s = play([
      [8, 1, 1],
      [0, 5, 0],
    ]);
    expect(latest(s)).toMatchObject({ verdict: 'converged', reason: 'few_questions' });
  });

  it('high_confidence_ratio > 0.80: stop (spec mostly verified); exactly 0.80 does not', () => {
    // 30 / (30 + 2 + 5) = 0.81
    const s = play([
      [8, 1, 1],
      [5, 30, 2],
    ]);
    expect(latest(s)).toMatchObject({ verdict: 'converged', reason: 'high_confidence' });
    // 32 / (32 + 4 + 4) = 0.80 exactly: not above
    const t = play([
      [8, 1, 1],
      [4, 32, 4],
    ]);
    expect(latest(t).verdict).toBe('progress');
    expect(toStateJson(t.view).state).toBe('CONVERGING');
  });

  it('otherwise continue: progress when open questions fell, flat when they did not', () => {
    const s = play([
      [12, 1, 1],
      [10, 1, 1],
    ]);
    expect(latest(s)).toMatchObject({ verdict: 'progress', reason: 'questions_fell' });
    s.recordMetrics('questions', { open: 11, high: 1, medium: 1 });
    expect(latest(s)).toMatchObject({ verdict: 'flat', reason: 'questions_not_fewer' });
    expect(toStateJson(s.view)).toMatchObject({ state: 'FLAT', flatCount: 1 });
  });

  it('names oscillation (open count toggling between two values) in the reason', () => {
    const s = play(
      [
        [8, 1, 1],
        [9, 1, 1],
        [8, 1, 1],
        [9, 1, 1],
      ],
      { preset: 'conservative' },
    );
    expect(latest(s)).toMatchObject({ verdict: 'flat', reason: 'oscillating' });
    expect(latest(s).detail).toContain('oscillate');
    expect(latest(s).figures.stableCount).toBe(0);
  });

  it('alone, the session stalls one flat iteration after the stability threshold (conservative: 3 + 1)', () => {
    const stall = TUNING.conservative.stabilityThreshold + 1;
    const s = play(
      [
        [12, 1, 1],
        [12, 1, 2],
        [13, 1, 1],
        [14, 1, 1],
      ],
      { preset: 'conservative' },
    );
    expect(toStateJson(s.view)).toMatchObject({ state: 'FLAT', flatCount: 3, config: { stallThreshold: stall } });
    s.recordMetrics('questions', { open: 15, high: 1, medium: 1 });
    expect(s.view.history.map((h) => h.to)).toContain('STALLED');
    expect(toStateJson(s.view).state).toBe('DIVERGENCE_WARNING');
  });
});

describe('questions policy: the stability stop comes before the stall (soloStallThreshold)', () => {
  it('balanced 8, 9, 9, 9: flat, flat, then research exhausted at iteration 4, never DIVERGENCE_WARNING', () => {
    const s = play([
      [8, 1, 1],
      [9, 1, 1],
      [9, 1, 1],
    ]);
    expect(toStateJson(s.view).state).toBe('FLAT');
    s.recordMetrics('questions', { open: 9, high: 1, medium: 1 });
    // The stable count grows by one per unchanged iteration: 0, 0, 1, 2.
    expect(latest(s)).toMatchObject({ verdict: 'converged', reason: 'questions_stable', figures: { stableCount: TUNING.balanced.stabilityThreshold } });
    expect(toStateJson(s.view)).toMatchObject({ state: 'COMPLETE', outcome: 'CONVERGED', round: 4 });
    expect(s.view.history.map((h) => h.to)).not.toContain('DIVERGENCE_WARNING');
  });

  it('conservative 9, 9, 9, 9 reaches its stability threshold 3', () => {
    const s = play(
      [
        [9, 1, 1],
        [9, 1, 1],
        [9, 1, 1],
        [9, 1, 1],
      ],
      { preset: 'conservative' },
    );
    expect(latest(s)).toMatchObject({ verdict: 'converged', reason: 'questions_stable', figures: { stableCount: TUNING.conservative.stabilityThreshold } });
    expect(toStateJson(s.view)).toMatchObject({ state: 'COMPLETE', outcome: 'CONVERGED' });
  });

  it('an explicit stall threshold still wins, and with another policy the session default (2) applies', () => {
    const s = newSession({ policies: ['questions'], stallThreshold: 2 });
    for (const open of [8, 9, 9]) s.recordMetrics('questions', { open, high: 1, medium: 1 });
    expect(toStateJson(s.view).state).toBe('DIVERGENCE_WARNING');
    expect(toStateJson(newSession({ policies: ['questions', 'quality'] }).view).config.stallThreshold).toBe(2);
  });
});

describe('questions policy: its figures and the oscillation detector', () => {
  it('the stable count resets to 0 when the count changed (9, 9, 8: 0; 9, 9, 8, 8: 1)', () => {
    const s = play(
      [
        [9, 1, 1],
        [9, 1, 1],
        [8, 1, 1],
      ],
      { preset: 'conservative' },
    );
    expect(latest(s).figures.stableCount).toBe(0);
    s.recordMetrics('questions', { open: 8, high: 1, medium: 1 });
    expect(latest(s).figures.stableCount).toBe(1);
  });

  it('while the open count oscillates between two values every iteration is flat (oscillating), the falls too', () => {
    const s = play(
      [
        [8, 1, 1],
        [9, 1, 1],
        [8, 1, 1],
        [9, 1, 1],
      ],
      { preset: 'conservative', maxIterations: 20, stabilityThreshold: 10 },
    );
    const seen = [latest(s)];
    for (const open of [8, 9, 8]) {
      s.recordMetrics('questions', { open, high: 1, medium: 1 });
      seen.push(latest(s));
    }
    expect(seen.map((v) => [v.verdict, v.reason])).toEqual(Array.from({ length: 4 }, () => ['flat', 'oscillating']));
  });

  it('oscillation needs four iterations toggling between exactly two values', () => {
    const osc = (opens: number[]) =>
      latest(
        play(
          opens.map((o) => [o, 1, 1] as Iteration),
          { preset: 'conservative', maxIterations: 20, stabilityThreshold: 10 },
        ),
      ).figures.oscillating;
    expect(osc([8, 9, 8, 9])).toBe(true);
    expect(osc([9, 8, 9])).toBe(false); // three are not enough
    expect(osc([9, 9, 9, 9])).toBe(false); // unchanged is not toggling
    expect(osc([8, 9, 7, 9])).toBe(false); // three values
    expect(osc([8, 9, 8, 10])).toBe(false);
    expect(osc([12, 10, 8, 9, 8, 9])).toBe(true); // only the last four count
  });

  it('an empty spec (no high, medium or open items) has a high-confidence ratio of 0', () => {
    const s = play(
      [
        [4, 1, 1],
        [0, 0, 0],
      ],
      { questionThreshold: 0 },
    );
    expect(latest(s).figures.highConfidenceRatio).toBe(0);
    const settings = s.view.policies.settings.get('questions');
    const history = s.view.policies.records.get('questions')!.map((r) => r.metrics);
    expect(renderCheckTree(questionsPolicy.check(settings, history))).toContain('High confidence: NO (0.00 < 0.80)');
  });
});

describe('questions policy: presets', () => {
  it.each(Object.entries(TUNING))('the %s preset is its documented column', (preset, expected) => {
    expect(questionsPolicy.settings.parse({ preset })).toMatchObject(expected);
  });

  it('balanced is the default, and an explicit setting beats the preset', () => {
    expect(questionsPolicy.settings.parse({})).toMatchObject(TUNING.balanced);
    expect(questionsPolicy.settings.parse({ preset: 'aggressive', maxIterations: 4 })).toMatchObject({ ...TUNING.aggressive, maxIterations: 4 });
  });

  it('aggressive stops after one iteration with 5 open questions; balanced does not', () => {
    expect(toStateJson(play([[5, 1, 1]], { preset: 'aggressive' }).view)).toMatchObject({ state: 'COMPLETE', outcome: 'CONVERGED' });
    expect(toStateJson(play([[5, 1, 1]]).view).state).toBe('CONVERGING');
  });
});

describe('questions policy: the verbose log, recomputed', () => {
  it('reproduces the CONVERGENCE CHECK tree for iteration 3 (previous 7, current 5; high 13, medium 4)', () => {
    const s = play([
      [9, 10, 4],
      [7, 11, 4],
      [5, 13, 4],
    ]);
    const settings = s.view.policies.settings.get('questions');
    const history = s.view.policies.records.get('questions')!.map((r) => r.metrics);
    // The formulas: the count resets when the open count changed; ratio = high / (high + medium + open).
    const ratio = (13 / (13 + 4 + 5)).toFixed(2);
    const stable = 0;
    expect(renderCheckTree(questionsPolicy.check(settings, history))).toBe(
      [
        'CONVERGENCE CHECK (Iteration 3)',
        '├─ Minimum met: YES (3 >= 2)',
        '├─ Maximum reached: NO (3 < 5)',
        `├─ Questions stable: NO (count: ${stable}, need: 2)`,
        '│   └─ Previous: 7, Current: 5, Changed: YES',
        '├─ Low questions: NO (5 > 3)',
        `├─ High confidence: NO (${ratio} < 0.80)`,
        '│   └─ High: 13, Medium: 4, Open: 5',
        '└─ DECISION: CONTINUE',
        '',
      ].join('\n'),
    );
  });
});

describe('questions policy through the CLI', () => {
  let box: Sandbox;
  afterEach(() => box.remove());

  it('init with a preset, record, check --verbose and the frontmatter block', () => {
    box = new Sandbox();
    box.ok('init', '--policy', 'questions', '--questions-preset', 'aggressive', '--questions-question-threshold', '2');
    box.ok('record', 'questions', '--open', '6', '--high', '3', '--medium', '1');
    box.ok('record', 'questions', '--open', '4', '--high', '5', '--medium', '1');
    const verbose = box.ok('check', '--verbose').stdout;
    expect(verbose).toContain('CONVERGENCE CHECK (Iteration 2)');
    expect(verbose).toContain('├─ Low questions: NO (4 > 2)');
    // aggressive: confidence threshold 0.70; 5 / (5 + 1 + 4) = 0.50
    expect(verbose).toContain(`├─ High confidence: NO (${(5 / 10).toFixed(2)} < 0.70)`);
    const front = box.ok('state', '--format', 'frontmatter').stdout;
    expect(front).toBe(
      [
        '---',
        'convergence:',
        '  iteration: 2',
        '  open_questions_count: 4',
        '  questions_stable_count: 0',
        '  high_confidence_ratio: 0.50',
        '  verdict: progress',
        '  reason: questions_fell',
        '---',
        '',
      ].join('\n'),
    );
    box.ok('record', 'questions', '--open', '4', '--high', '5', '--medium', '1');
    expect(box.stateJson()).toMatchObject({ state: 'COMPLETE', outcome: 'MAX_ROUNDS' });
  });
});
