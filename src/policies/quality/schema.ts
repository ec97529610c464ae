import * as z from 'zod';
import { onFirstUse } from '../types.js';
import { QUALITY_DIMENSIONS, type QualityDimension } from './scores.js';

/*
 * The quality policy's schemas (its settings and one iteration's metrics), apart
 * from its rules (index.ts) so that reading a session's policies loads no zod:
 * only a call that parses settings or metrics reaches this module (policy.ts).
 */

const score = () => z.number().min(0).max(100);

/** The quality policy's thresholds and algorithm parameters (docs/policies.md#settings); `dropThreshold` is the "drop of more than 5 points". */
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
