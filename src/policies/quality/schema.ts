import * as z from 'zod/mini';
import '../../../events/zod-locale.js';
import { onFirstUse } from '../types.js';
import { QUALITY_DIMENSIONS, type QualityDimension } from './scores.js';

/*
 * The quality policy's schemas (its settings and one iteration's metrics), apart
 * from its rules (index.ts) so that reading a session's policies loads no zod:
 * only a call that parses settings or metrics reaches this module (policy.ts).
 */

const score = () => z.number().check(z.minimum(0), z.maximum(100));

/** The quality policy's thresholds and algorithm parameters (docs/policies.md#settings); `dropThreshold` is the "drop of more than 5 points". */
export const Settings = onFirstUse(() =>
  z
    .strictObject({
      minScore: z._default(score(), 85),
      minTestCoverage: z._default(score(), 80),
      minSecurity: z._default(score(), 100),
      targetScore: z._default(score(), 95),
      targetTestCoverage: z._default(score(), 90),
      convergenceThreshold: z._default(z.number().check(z.minimum(0), z.maximum(100)), 2),
      dropThreshold: z._default(z.number().check(z.minimum(0), z.maximum(100)), 5),
      minIterations: z._default(z.int().check(z.minimum(1), z.maximum(1000)), 2),
      maxIterations: z._default(z.int().check(z.minimum(1), z.maximum(1000)), 10),
    })
    .check(z.refine((s) => s.minIterations <= s.maxIterations, 'minIterations must not exceed maxIterations')),
);
export type QualitySettings = z.output<ReturnType<typeof Settings>>;

/** One iteration: all twelve dimension scores, or only an overall score. */
export const Metrics = onFirstUse(() => {
  const one = score();
  const Dimensions = z.strictObject(Object.fromEntries(QUALITY_DIMENSIONS.map((d) => [d, one])) as Record<QualityDimension, typeof one>);
  return z
    .strictObject({ score: z.optional(one), dimensions: z.optional(Dimensions) })
    .check(z.refine((m) => (m.score === undefined) !== (m.dimensions === undefined), 'give either score or all twelve dimensions, not both'));
});
export type QualityMetrics = z.output<ReturnType<typeof Metrics>>;
