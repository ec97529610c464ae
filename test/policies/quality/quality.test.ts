import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { qualityPolicy } from '../../../src/policies/index.js';
import type { Session } from '../../../src/index.js';
import { toStateJson } from '../../../src/core/index.js';
import { Sandbox, expectRefused } from '../../cli/helpers.js';
import { newSession } from '../../support.js';

/** The quality dimensions' weights (docs/policies.md#settings), restated: weight in percent. */
const SEED_WEIGHTS: Record<string, number> = {
  correctness: 15,
  completeness: 10,
  robustness: 10,
  readability: 10,
  maintainability: 10,
  complexity: 8,
  duplication: 7,
  testCoverage: 10,
  testQuality: 5,
  security: 8,
  documentation: 4,
  style: 3,
};

function play(scores: number[], settings: Record<string, unknown> = {}): Session {
  const s = newSession({ policies: ['quality'], policySettings: { quality: settings } });
  for (const score of scores) s.recordMetrics('quality', { score });
  return s;
}

const quality = (s: Session) => toStateJson(s.view).policies.find((p) => p.name === 'quality')!;

describe('quality policy: scoring and thresholds', () => {
  it('the weights are the documented table and total 100%', () => {
    expect(Object.values(SEED_WEIGHTS).reduce((a, b) => a + b, 0)).toBe(100);
    const dims = Object.fromEntries(Object.keys(SEED_WEIGHTS).map((d, i) => [d, 60 + 3 * i]));
    const expected = Object.entries(SEED_WEIGHTS).reduce((sum, [d, w]) => sum + (w / 100) * dims[d]!, 0);
    const s = newSession({ policies: ['quality'] });
    s.recordMetrics('quality', { dimensions: dims });
    expect(quality(s).figures.overall).toBeCloseTo(expected, 2);
  });

  it('the default thresholds: minimum 85 overall, 80 test coverage, 100 security; 2, 2 and 10 for the algorithm', () => {
    expect(qualityPolicy.settings.parse({})).toMatchObject({
      minScore: 85,
      minTestCoverage: 80,
      minSecurity: 100,
      targetScore: 95,
      targetTestCoverage: 90,
      convergenceThreshold: 2,
      minIterations: 2,
      maxIterations: 10,
    });
  });

  it('the minimum needs test coverage >= 80 and security = 100 besides an overall >= 85', () => {
    const all = (v: number) => Object.fromEntries(Object.keys(SEED_WEIGHTS).map((d) => [d, v]));
    const record = (dims: Record<string, number>) => {
      const s = newSession({ policies: ['quality'] });
      s.recordMetrics('quality', { dimensions: dims });
      return quality(s).figures.meetsMinimum;
    };
    expect(record({ ...all(100) })).toBe(true);
    expect(record({ ...all(100), security: 99 })).toBe(false);
    expect(record({ ...all(100), testCoverage: 79 })).toBe(false);
    expect(record({ ...all(80), security: 100 })).toBe(false); // 0.92 × 80 + 0.08 × 100 = 81.6
  });
});

describe("quality policy: the stop rule of R18 and the issue's verdicts", () => {
  it('the first iteration counts as progress', () => {
    const s = play([90]);
    expect(quality(s)).toMatchObject({ verdict: 'progress', reason: 'first_iteration' });
  });

  it('converged: score >= 85 AND |score[n] - score[n-1]| < 2 AND n >= 2: COMPLETE, CONVERGED', () => {
    const s = play([80, 86, 87]);
    expect(toStateJson(s.view).rounds.map((r) => r.verdict?.verdict)).toEqual(['progress', 'progress', 'converged']);
    expect(toStateJson(s.view)).toMatchObject({ state: 'COMPLETE', outcome: 'CONVERGED', round: 3 });
  });

  it('a change of exactly the threshold (2) is not convergence but progress', () => {
    const s = play([86, 88]);
    expect(quality(s)).toMatchObject({ verdict: 'progress', reason: 'score_rose' });
  });

  it('at n >= 10 it stops whatever the score: COMPLETE, MAX_ROUNDS', () => {
    const s = play([50, 52, 54, 56, 58, 60, 62, 64, 66]);
    expect(toStateJson(s.view).state).toBe('CONVERGING');
    s.recordMetrics('quality', { score: 68 });
    expect(quality(s)).toMatchObject({ verdict: 'limit', reason: 'max_iterations' });
    expect(toStateJson(s.view)).toMatchObject({ state: 'COMPLETE', outcome: 'MAX_ROUNDS', round: 10 });
  });

  it('diverging on a drop of more than 5 points; a drop of exactly 5 is only flat', () => {
    const s = play([80, 74]);
    expect(quality(s)).toMatchObject({ verdict: 'diverging', reason: 'score_dropped' });
    expect(toStateJson(s.view).state).toBe('DIVERGENCE_WARNING');
    expect(quality(play([80, 75]))).toMatchObject({ verdict: 'flat', reason: 'score_fell' });
  });

  it('flat on a smaller change below the minimum (stuck below the minimum); two in a row stall', () => {
    const s = play([70, 71]);
    expect(quality(s)).toMatchObject({ verdict: 'flat', reason: 'stuck_below_minimum' });
    expect(toStateJson(s.view)).toMatchObject({ state: 'FLAT', flatCount: 1 });
    s.recordMetrics('quality', { score: 70.5 });
    expect(toStateJson(s.view).state).toBe('DIVERGENCE_WARNING');
    expect(s.view.history.map((h) => h.to)).toContain('STALLED');
  });

  it('a steady score at the minimum before min_iterations is flat, not converged', () => {
    const s = play([90, 91], { minIterations: 3 });
    expect(quality(s)).toMatchObject({ verdict: 'flat', reason: 'minimum_iterations_not_met' });
    s.recordMetrics('quality', { score: 91.5 });
    expect(toStateJson(s.view)).toMatchObject({ state: 'COMPLETE', outcome: 'CONVERGED' });
  });

  it('R18 names only the score: a steady overall >= 85 converges though security is below 100; meetsMinimum is only reported', () => {
    const dims = Object.fromEntries(Object.keys(SEED_WEIGHTS).map((d) => [d, d === 'security' ? 90 : 91]));
    const overall = Object.entries(SEED_WEIGHTS).reduce((sum, [d, w]) => sum + (w / 100) * dims[d]!, 0);
    expect(overall).toBeGreaterThanOrEqual(85);
    const s = newSession({ policies: ['quality'] });
    s.recordMetrics('quality', { dimensions: dims });
    s.recordMetrics('quality', { dimensions: dims });
    expect(quality(s)).toMatchObject({ verdict: 'converged', reason: 'converged', figures: { meetsMinimum: false } });
    expect(quality(s).detail).not.toContain('below the minimum');
    expect(toStateJson(s.view)).toMatchObject({ state: 'COMPLETE', outcome: 'CONVERGED' });
  });

  it('compares unrounded figures: 85 then 86.996 (|Δ| 1.996 < 2) converges', () => {
    expect(Math.abs(86.996 - 85)).toBeLessThan(2);
    const s = play([85, 86.996]);
    expect(quality(s)).toMatchObject({ verdict: 'converged', reason: 'converged' });
    expect(quality(s).detail).toContain('|Δ| 1.996 < 2');
  });

  it('compares unrounded figures: a weighted overall of 84.996 is below 85, though it shows as 85', () => {
    const dims = Object.fromEntries(Object.keys(SEED_WEIGHTS).map((d) => [d, 84.996]));
    const overall = Object.entries(SEED_WEIGHTS).reduce((sum, [d, w]) => sum + (w / 100) * dims[d]!, 0);
    expect(overall).toBeLessThan(85);
    // Coverage and security minimums at 0, so that only the score can keep it from converging.
    const s = newSession({ policies: ['quality'], policySettings: { quality: { minTestCoverage: 0, minSecurity: 0 } } });
    s.recordMetrics('quality', { dimensions: dims });
    s.recordMetrics('quality', { dimensions: dims });
    expect(quality(s)).toMatchObject({ verdict: 'flat', reason: 'stuck_below_minimum' });
    expect(quality(s).figures.overall).toBe(Math.round(overall * 100) / 100);
  });
});

describe('quality policy through the CLI', () => {
  let box: Sandbox;
  afterEach(() => box.remove());

  it("writes each iteration's scores.json with the R18 fields, one folder per iteration", () => {
    box = new Sandbox();
    box.ok('init', '--policy', 'quality', '--quality-min-score', '80');
    const dims = Object.keys(SEED_WEIGHTS).map((d, i) => `--dimension=${d.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}=${80 + (i % 5)}`);
    box.ok('record', 'quality', ...dims);
    box.ok('record', 'quality', '--score', '83');
    const first = JSON.parse(readFileSync(join(box.dir, 'quality', 'v1', 'scores.json'), 'utf8'));
    const overall = Object.keys(SEED_WEIGHTS).reduce((sum, d, i) => sum + (SEED_WEIGHTS[d]! / 100) * (80 + (i % 5)), 0);
    expect(Object.keys(first).sort()).toEqual(['converged', 'dimensions', 'iteration', 'meetsMinimum', 'overall']);
    expect(first).toMatchObject({ iteration: 1, converged: false, meetsMinimum: false });
    expect(first.overall).toBeCloseTo(overall, 2);
    expect(first.dimensions.testCoverage).toBe(80 + (7 % 5));
    const second = JSON.parse(readFileSync(join(box.dir, 'quality', 'v2', 'scores.json'), 'utf8'));
    // 83 >= 80 (--quality-min-score), |83 - overall| < 2, n = 2
    expect(second).toEqual({ overall: 83, dimensions: {}, iteration: 2, converged: Math.abs(83 - overall) < 2, meetsMinimum: true });
  });

  it('refuses --score with --dimension, a partial set of dimensions, and an unknown dimension, writing nothing', () => {
    box = new Sandbox();
    box.ok('init', '--policy', 'quality');
    const all = Object.keys(SEED_WEIGHTS).map((d) => `--dimension=${d}=90`);
    expectRefused(box, ['record', 'quality', '--score', '80', ...all], ['either score or all twelve dimensions']);
    expectRefused(box, ['record', 'quality', '--dimension', 'style=3'], ['metrics.dimensions.correctness']);
    expectRefused(box, ['record', 'quality', ...all, '--dimension', 'speed=3'], ['speed']);
    expectRefused(box, ['record', 'quality', '--score', '101'], ['metrics.score']);
    expectRefused(box, ['init', '--policy', 'quality'], ['already']);
  });

  it('init refuses unknown policies, settings of policies not enabled, and bad settings', () => {
    box = new Sandbox();
    expectRefused(box, ['init', '--policy', 'quality,speed'], ['unknown policy "speed"']);
    expectRefused(box, ['init', '--quality-min-score', '80'], ['settings for quality, which is not enabled']);
    expectRefused(box, ['init', '--policy', 'quality', '--quality-min-score', 'lots'], ['quality settings: minScore']);
    expectRefused(box, ['init', '--policy', 'quality', '--complete-when', 'sometimes'], ['--complete-when', '"sometimes"', 'any, all']);
  });
});
