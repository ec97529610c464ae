import * as z from 'zod';
import { onFirstUse } from '../types.js';

/*
 * The budget policy's schemas (its limits and one round's spend), apart from
 * its rules (index.ts) so that reading a session's policies loads no zod:
 * only a call that parses settings or metrics reaches this module (policy.ts).
 */

/** A session's limits, each optional: money (any currency, as the user counts it), tokens, and seconds. */
export const Settings = onFirstUse(() =>
  z.strictObject({
    cost: z.number().positive().max(1e12).optional(),
    tokens: z.int().positive().max(1e15).optional(),
    seconds: z.number().positive().max(1e12).optional(),
  }),
);
export type BudgetSettings = z.output<ReturnType<typeof Settings>>;

/** One round's spend: one or more of cost, tokens and seconds, none below zero. */
export const Metrics = onFirstUse(() =>
  z
    .strictObject({
      cost: z.number().min(0).max(1e12).optional(),
      tokens: z.int().min(0).max(1e15).optional(),
      seconds: z.number().min(0).max(1e12).optional(),
    })
    .refine((m) => m.cost !== undefined || m.tokens !== undefined || m.seconds !== undefined, 'give cost, tokens or seconds (one or more)'),
);
export type BudgetMetrics = z.output<ReturnType<typeof Metrics>>;
