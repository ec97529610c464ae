import * as z from 'zod/mini';
import '../../../events/zod-locale.js';
import { onFirstUse } from '../types.js';
import { QUESTIONS_PRESETS } from './index.js';

/*
 * The questions policy's schemas (its settings and one iteration's metrics), apart
 * from its rules (index.ts) so that reading a session's policies loads no zod:
 * only a call that parses settings or metrics reaches this module (policy.ts).
 */

const count = () => z.int().check(z.minimum(0), z.maximum(1_000_000));

/** Explicit settings beat the preset (Balanced unless named). */
export const Settings = onFirstUse(() =>
  z
    .pipe(
      z.strictObject({
        preset: z._default(z.enum(['conservative', 'balanced', 'aggressive']), 'balanced'),
        minIterations: z.optional(z.int().check(z.minimum(1), z.maximum(1000))),
        maxIterations: z.optional(z.int().check(z.minimum(1), z.maximum(1000))),
        stabilityThreshold: z.optional(z.int().check(z.minimum(1), z.maximum(1000))),
        questionThreshold: z.optional(count()),
        confidenceThreshold: z.optional(z.number().check(z.minimum(0), z.maximum(1))),
      }),
      z.transform(({ preset, ...explicit }) => {
        const given = Object.fromEntries(Object.entries(explicit).filter(([, v]) => v !== undefined));
        return { preset, ...QUESTIONS_PRESETS[preset], ...given };
      }),
    )
    .check(z.refine((s) => s.minIterations <= s.maxIterations, 'minIterations must not exceed maxIterations')),
);
export type QuestionsSettings = z.output<ReturnType<typeof Settings>>;

/** One iteration: the open questions and the counts of high- and medium-confidence items. */
export const Metrics = onFirstUse(() => {
  const n = count();
  return z.strictObject({ open: n, high: n, medium: n });
});
export type QuestionsMetrics = z.output<ReturnType<typeof Metrics>>;
