import { num, yesNo } from '../tree.js';
import { policyRules, type CheckTree, type Figure, type PolicyVerdict } from '../types.js';
import { meetsMinimum, overallScore } from './scores.js';
import type { QualityMetrics, QualitySettings } from './schema.js';

export { meetsMinimum, overallScore, QUALITY_DIMENSIONS, QUALITY_WEIGHTS, type QualityDimension } from './scores.js';
export type { QualityMetrics, QualitySettings } from './schema.js';

const round2 = (x: number) => Math.round(x * 100) / 100;

interface Step {
  verdict: PolicyVerdict['verdict'];
  reason: string;
  detail: string;
  stop: string | null;
}

/** The figures as they are shown: overall and Δ to two decimals. */
export interface QualityFigures {
  iteration: number;
  overall: number;
  previous: number | null;
  delta: number | null;
  meetsMinimum: boolean;
  meetsTarget: boolean;
}

/** The unrounded figures the rules compare (a Δ of 1.996 is under 2, though it shows as 2). */
interface Raw {
  iteration: number;
  overall: number;
  previous: number | null;
  delta: number | null;
}

function rawFigures(history: readonly QualityMetrics[]): Raw {
  const overall = overallScore(history.at(-1)!);
  const previous = history.length > 1 ? overallScore(history.at(-2)!) : null;
  return { iteration: history.length, overall, previous, delta: previous === null ? null : overall - previous };
}

export function qualityFigures(s: QualitySettings, history: readonly QualityMetrics[]): QualityFigures {
  const last = history.at(-1)!;
  const raw = rawFigures(history);
  const coverage = last.dimensions ? last.dimensions.testCoverage >= s.targetTestCoverage : true;
  return {
    iteration: raw.iteration,
    overall: round2(raw.overall),
    previous: raw.previous === null ? null : round2(raw.previous),
    delta: raw.delta === null ? null : round2(raw.delta),
    meetsMinimum: meetsMinimum(s, last),
    meetsTarget: raw.overall >= s.targetScore && coverage,
  };
}

/** x with two decimals, or more when two would print it equal to the limit it is compared with (1.996 against 2). */
function beside(x: number, limit: number): string {
  for (let places = 2; places <= 6; places++) {
    const shown = Number(x.toFixed(places));
    if (shown !== limit || x === limit) return String(shown);
  }
  return String(x);
}

const steadyOf = (s: QualitySettings, r: Raw) => r.delta !== null && Math.abs(r.delta) < s.convergenceThreshold;

/**
 * R18's stop rule exactly (score >= the minimum score, |Δ| under the
 * convergence threshold, n at least the minimum; or n at the maximum), on
 * unrounded figures; then the issue's verdicts: a drop of more than 5 points
 * diverges, a rise of at least the threshold is progress, anything smaller
 * is flat.
 */
function qualityStep(s: QualitySettings, r: Raw): Step {
  const d = r.delta;
  const steady = steadyOf(s, r);
  const atMinimum = r.overall >= s.minScore;
  if (atMinimum && steady && r.iteration >= s.minIterations) {
    return {
      verdict: 'converged',
      reason: 'converged',
      detail: `score ${beside(r.overall, s.minScore)} >= ${s.minScore}, |Δ| ${beside(Math.abs(d!), s.convergenceThreshold)} < ${s.convergenceThreshold}, n ${r.iteration} >= ${s.minIterations}`,
      stop: 'converged',
    };
  }
  if (r.iteration >= s.maxIterations) {
    return {
      verdict: 'limit',
      reason: 'max_iterations',
      detail: `n ${r.iteration} >= max ${s.maxIterations} (score ${num(r.overall)})`,
      stop: 'maximum reached',
    };
  }
  if (d === null) return { verdict: 'progress', reason: 'first_iteration', detail: `first iteration: score ${num(r.overall)}`, stop: null };
  const moved = `score ${num(r.previous!)} -> ${num(r.overall)} (${d > 0 ? `+${beside(d, s.convergenceThreshold)}` : beside(d, -s.dropThreshold)})`;
  if (d < -s.dropThreshold) return { verdict: 'diverging', reason: 'score_dropped', detail: `${moved}: dropped more than ${s.dropThreshold}`, stop: null };
  if (d >= s.convergenceThreshold) return { verdict: 'progress', reason: 'score_rose', detail: moved, stop: null };
  if (!atMinimum) {
    const why = steady ? 'stuck below the minimum' : 'fell, below the minimum';
    return { verdict: 'flat', reason: steady ? 'stuck_below_minimum' : 'score_fell', detail: `${moved}: ${why} ${s.minScore}`, stop: null };
  }
  if (steady) return { verdict: 'flat', reason: 'minimum_iterations_not_met', detail: `${moved}: n ${r.iteration} < ${s.minIterations}`, stop: null };
  return { verdict: 'flat', reason: 'score_fell', detail: `${moved}: fell`, stop: null };
}

function verdict(s: QualitySettings, history: readonly QualityMetrics[]): PolicyVerdict {
  const f = qualityFigures(s, history);
  const { stop: _stop, ...step } = qualityStep(s, rawFigures(history));
  const last = history.at(-1)!;
  const dims: Record<string, Figure> = last.dimensions ? { testCoverage: last.dimensions.testCoverage, security: last.dimensions.security } : {};
  return { ...step, figures: { ...f, ...dims } };
}

function check(s: QualitySettings, history: readonly QualityMetrics[]): CheckTree {
  const f = qualityFigures(s, history);
  const raw = rawFigures(history);
  const last = history.at(-1)!;
  const step = qualityStep(s, raw);
  const d = raw.delta;
  const minimumNotes = last.dimensions
    ? [`Test coverage: ${num(last.dimensions.testCoverage)} (min ${s.minTestCoverage}), Security: ${num(last.dimensions.security)} (min ${s.minSecurity})`]
    : [];
  const steady = steadyOf(s, raw);
  const atMinimum = raw.overall >= s.minScore;
  return {
    iteration: f.iteration,
    lines: [
      { text: `Minimum met: ${yesNo(f.iteration >= s.minIterations)} (${f.iteration} ${f.iteration >= s.minIterations ? '>=' : '<'} ${s.minIterations})` },
      { text: `Maximum reached: ${yesNo(f.iteration >= s.maxIterations)} (${f.iteration} ${f.iteration >= s.maxIterations ? '>=' : '<'} ${s.maxIterations})` },
      { text: `Score at minimum: ${yesNo(atMinimum)} (${beside(raw.overall, s.minScore)} ${atMinimum ? '>=' : '<'} ${s.minScore})` },
      {
        text: `Score steady: ${yesNo(steady)} (${d === null ? 'no previous score' : `|Δ| ${beside(Math.abs(d), s.convergenceThreshold)} ${steady ? '<' : '>='} ${s.convergenceThreshold}`})`,
        notes: [`Previous: ${raw.previous === null ? 'none' : num(raw.previous)}, Current: ${num(raw.overall)}`],
      },
      { text: `Dropped: ${yesNo(d !== null && d < -s.dropThreshold)} (more than ${s.dropThreshold} points)` },
      { text: `Meets minimum thresholds: ${yesNo(f.meetsMinimum)} (reported, not a stop condition)`, notes: minimumNotes },
    ],
    decision: step.stop ? `STOP (${step.stop})` : 'CONTINUE',
  };
}

/** The quality policy's per-iteration report (`scores.json`), for iteration `n` (1-based) of `history`. */
export function qualityReport(s: QualitySettings, history: readonly QualityMetrics[], n = history.length) {
  const upTo = history.slice(0, n);
  const last = upTo.at(-1)!;
  return {
    overall: round2(overallScore(last)),
    dimensions: last.dimensions ? { ...last.dimensions } : {},
    iteration: n,
    converged: qualityStep(s, rawFigures(upTo)).verdict === 'converged',
    meetsMinimum: meetsMinimum(s, last),
  };
}

const kebabToCamel = (name: string) => name.trim().replace(/[-_](\w)/g, (_, c: string) => c.toUpperCase());
const numeric = (v: string) => (/^\s*[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?\s*$/i.test(v) ? Number(v) : v);

/** `--dimension test-coverage=94` (repeatable) into `{ testCoverage: 94 }`; the schema judges names and values. */
function dimensionsFrom(values: string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const item of values) {
    const at = item.indexOf('=');
    if (at < 1) throw new Error(`--dimension ${JSON.stringify(item).slice(0, 60)}: give NAME=SCORE, e.g. --dimension test-coverage=94`);
    out[kebabToCamel(item.slice(0, at))] = numeric(item.slice(at + 1));
  }
  return out;
}

export const qualityRules = policyRules<QualitySettings, QualityMetrics>({
  name: 'quality',
  summary: 'a weighted quality score over twelve dimensions (or one overall score) per iteration',
  settingFlags: {
    'min-score': 'minScore',
    'min-test-coverage': 'minTestCoverage',
    'min-security': 'minSecurity',
    'target-score': 'targetScore',
    'target-test-coverage': 'targetTestCoverage',
    'convergence-threshold': 'convergenceThreshold',
    'drop-threshold': 'dropThreshold',
    'min-iterations': 'minIterations',
    'max-iterations': 'maxIterations',
  },
  recordFlags: {
    score: { type: 'string', value: 'number', placeholder: 'S', oneOf: true },
    dimension: { type: 'string', multiple: true, placeholder: 'NAME=S', oneOf: true },
  },
  fromFlags: (v) => ({
    ...(typeof v.score === 'string' ? { score: numeric(v.score) } : {}),
    ...(Array.isArray(v.dimension) ? { dimensions: dimensionsFrom(v.dimension) } : {}),
  }),
  verdict,
  check,
  columns: [
    ['Score', 'overall'],
    ['Δ', 'delta'],
    ['Meets Minimum', 'meetsMinimum'],
  ],
  // Each iteration's scores are kept beside the session, in quality/v<N>/scores.json.
  reports: (s, history, n) => {
    const report = qualityReport(s, history, n);
    return [{ path: `quality/v${report.iteration}/scores.json`, content: `${JSON.stringify(report, null, 2)}\n` }];
  },
});
