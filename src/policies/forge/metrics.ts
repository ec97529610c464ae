/** Forge's metrics (figures 0..1), weighted as docs/policies.md#verdicts lists them. */

export interface Critique {
  participant: string;
  score: number;
  weaknesses: string[];
  suggestions: string[];
}

/** Jaccard similarity of the lower-cased whitespace-separated words; 0 when both are empty. */
export function textSimilarity(a: string, b: string): number {
  const words = (s: string) => new Set(s.toLowerCase().split(/\s+/).filter(Boolean));
  const x = words(a);
  const y = words(b);
  let shared = 0;
  for (const w of x) if (y.has(w)) shared += 1;
  const union = x.size + y.size - shared;
  return union === 0 ? 0 : shared / union;
}

/** (mean score / 100 + (1 - min(stddev / 50, 1))) / 2; 0 with no critiques, or no critique round (null). */
export function agreementScore(critiques: readonly Critique[] | null): number {
  if (critiques === null || critiques.length === 0) return 0;
  const mean = critiques.reduce((s, c) => s + c.score, 0) / critiques.length;
  const variance = critiques.reduce((s, c) => s + (c.score - mean) ** 2, 0) / critiques.length;
  return (mean / 100 + (1 - Math.min(Math.sqrt(variance) / 50, 1))) / 2;
}

/** 1 - min(weaknesses + suggestions over 20, 1): fewer issues is better; 0.5 with no critique round (null). */
export function issueScore(critiques: readonly Critique[] | null): number {
  if (critiques === null) return 0.5;
  const issues = critiques.reduce((s, c) => s + c.weaknesses.length + c.suggestions.length, 0);
  return 1 - Math.min(issues / 20, 1);
}

/** Similarity of the last two drafts (high similarity, low velocity); 0 before there are two. */
export function changeVelocity(drafts: readonly string[]): number {
  if (drafts.length < 2) return 0;
  return textSimilarity(drafts.at(-1)!, drafts.at(-2)!);
}

function countSections(draft: string): number {
  return draft.split('\n').filter((l) => l.startsWith('#')).length;
}

/** 0.9 when the section counts of the last three drafts differ by at most 1 step to step, else 0.5; 0 before two drafts. */
export function sectionStability(drafts: readonly string[]): number {
  if (drafts.length < 2) return 0;
  const counts = drafts.slice(-3).map(countSections);
  const stable = counts.every((c, i) => i === 0 || Math.abs(c - counts[i - 1]!) <= 1);
  return stable ? 0.9 : 0.5;
}

/** The metric weights; semantic similarity uses text similarity as its proxy. */
const METRIC_WEIGHTS = {
  agreementScore: 0.3,
  changeVelocity: 0.25,
  issueCount: 0.25,
  semanticSimilarity: 0.1,
  sectionStability: 0.1,
} as const;

export interface ForgeMetricScores {
  agreementScore: number;
  changeVelocity: number;
  issueCount: number;
  semanticSimilarity: number;
  sectionStability: number;
}

/** `critiques`: those of the most recent round that had any, null when none had ("the most recent critique round"). */
export function metricScores(critiques: readonly Critique[] | null, drafts: readonly string[]): ForgeMetricScores {
  const velocity = changeVelocity(drafts);
  return {
    agreementScore: agreementScore(critiques),
    changeVelocity: velocity,
    issueCount: issueScore(critiques),
    semanticSimilarity: velocity,
    sectionStability: sectionStability(drafts),
  };
}

/** 0.6 × the weighted metrics + 0.4 × the mean vote score / 100 (0.5 with no votes). */
export function overallScore(metrics: ForgeMetricScores, voteScores: readonly number[]): number {
  const metric = (Object.keys(METRIC_WEIGHTS) as (keyof ForgeMetricScores)[]).reduce((s, k) => s + metrics[k] * METRIC_WEIGHTS[k], 0);
  const vote = voteScores.length === 0 ? 0.5 : voteScores.reduce((s, v) => s + v / 100, 0) / voteScores.length;
  return metric * 0.6 + vote * 0.4;
}

/** R16: stalled when, over the last three scores, none beats the one before it by more than 0.02. */
export function isStalled(scores: readonly number[]): boolean {
  if (scores.length < 3) return false;
  const [a, b, c] = scores.slice(-3) as [number, number, number];
  return !(b > a + 0.02 || c > b + 0.02);
}

export type Trend = 'improving' | 'stable' | 'degrading' | 'unknown';

/** R16: the mean of the last two round-over-round differences (one, with two scores). */
export function trendOf(scores: readonly number[]): Trend {
  if (scores.length < 2) return 'unknown';
  const recent = scores.slice(-3);
  const diffs = recent.slice(1).map((s, i) => s - recent[i]!);
  const mean = diffs.reduce((s, d) => s + d, 0) / diffs.length;
  if (mean > 0.05) return 'improving';
  if (mean < -0.05) return 'degrading';
  return 'stable';
}
