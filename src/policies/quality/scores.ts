import * as z from 'zod';
import { onFirstUse } from '../types.js';

/*
 * Seed 004's scores: the twelve dimensions and their weights, the settings
 * and one iteration's metrics as the schemas read them, the overall score
 * and the minimum thresholds. The policy's rules (index.ts) judge these.
 */

/** Seed 004's Quality Dimensions, in percent (they sum to 100). */
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

const score = () => z.number().min(0).max(100);

/** Seed 004's THRESHOLDS and algorithm parameters; `dropThreshold` is the issue's "drop of more than 5 points". */
export const Settings = onFirstUse(() =>
  z
    .strictObject({
      minScore: score().default(85),
      minTestCoverage: score().default(80),
      minSecurity: score().default(100),
      targetScore: score().default(95),
      targetTestCoverage: score().default(90),
      convergenceThreshold: z.number().min(0).max(100).default(2),
      dropThreshold: z.number().min(0).max(100).default(5),
      minIterations: z.int().min(1).max(1000).default(2),
      maxIterations: z.int().min(1).max(1000).default(10),
    })
    .refine((s) => s.minIterations <= s.maxIterations, 'minIterations must not exceed maxIterations'),
);
export type QualitySettings = z.output<ReturnType<typeof Settings>>;

/** One iteration: all twelve dimension scores, or only an overall score. */
export const Metrics = onFirstUse(() => {
  const one = score();
  const Dimensions = z.strictObject(Object.fromEntries(QUALITY_DIMENSIONS.map((d) => [d, one])) as Record<QualityDimension, typeof one>);
  return z
    .strictObject({ score: one.optional(), dimensions: Dimensions.optional() })
    .refine((m) => (m.score === undefined) !== (m.dimensions === undefined), 'give either score or all twelve dimensions, not both');
});
export type QualityMetrics = z.output<ReturnType<typeof Metrics>>;


/** The weighted overall of seed 004 (or the overall score given), unrounded: thresholds judge it as it is. */
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
