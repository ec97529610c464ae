import type { QualityMetrics, QualitySettings } from './schema.js';

/*
 * The quality policy's scores: the twelve dimensions and their weights, the overall score
 * and the minimum thresholds (the schemas of the settings and metrics are in
 * schema.ts). The policy's rules (index.ts) judge these.
 */

/** The twelve quality dimensions' weights, in percent (they sum to 100; docs/policies.md#settings). */
export const QUALITY_WEIGHTS = {
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
} as const;
export type QualityDimension = keyof typeof QUALITY_WEIGHTS;
export const QUALITY_DIMENSIONS = Object.keys(QUALITY_WEIGHTS) as QualityDimension[];

/** The weighted overall score (or the overall score given), unrounded: thresholds judge it as it is. */
export function overallScore(m: QualityMetrics): number {
  if (!m.dimensions) return m.score!;
  const dims = m.dimensions;
  return QUALITY_DIMENSIONS.reduce((sum, d) => sum + QUALITY_WEIGHTS[d] * dims[d], 0) / 100;
}

/**
 * The minimum thresholds: overall, and test coverage and security when the
 * dimensions are known. Reported (scores.json `meetsMinimum`), never a stop
 * condition: R18's rule names only the score.
 */
export function meetsMinimum(s: QualitySettings, m: QualityMetrics): boolean {
  const overall = overallScore(m) >= s.minScore;
  if (!m.dimensions) return overall;
  return overall && m.dimensions.testCoverage >= s.minTestCoverage && m.dimensions.security >= s.minSecurity;
}
