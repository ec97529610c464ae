import * as z from 'zod';
import { onFirstUse } from '../types.js';
import { QUESTIONS_PRESETS } from './index.js';

/*
 * The questions policy's schemas (its settings and one iteration's metrics), apart
 * from its rules (index.ts) so that reading a session's policies loads no zod:
 * only a call that parses settings or metrics reaches this module (policy.ts).
 */

const count = () => z.int().min(0).max(1_000_000);

/** Explicit settings beat the preset (Balanced unless named). */
export const Settings = onFirstUse(() =>
  z
    .strictObject({
      preset: z.enum(['conservative', 'balanced', 'aggressive']).default('balanced'),
      minIterations: z.int().min(1).max(1000).optional(),
      maxIterations: z.int().min(1).max(1000).optional(),
      stabilityThreshold: z.int().min(1).max(1000).optional(),
      questionThreshold: count().optional(),
      confidenceThreshold: z.number().min(0).max(1).optional(),
    })
    .transform(({ preset, ...explicit }) => {
      const given = Object.fromEntries(Object.entries(explicit).filter(([, v]) => v !== undefined));
      return { preset, ...QUESTIONS_PRESETS[preset], ...given };
    })
    .refine((s) => s.minIterations <= s.maxIterations, 'minIterations must not exceed maxIterations'),
);
export type QuestionsSettings = z.output<ReturnType<typeof Settings>>;

/** One iteration: the open questions and the counts of high- and medium-confidence items. */
export const Metrics = onFirstUse(() => {
  const n = count();
  return z.strictObject({ open: n, high: n, medium: n });
});
export type QuestionsMetrics = z.output<ReturnType<typeof Metrics>>;
