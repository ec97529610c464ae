import * as z from 'zod/mini';
import '../../../events/zod-locale.js';
import { onFirstUse } from '../types.js';

/*
 * The budget policy's schemas (its limits and one round's spend), apart from
 * its rules (index.ts) so that reading a session's policies loads no zod:
 * only a call that parses settings or metrics reaches this module (policy.ts).
 */

/** A session's limits, each optional: money (any currency, as the user counts it), tokens, and seconds. */
export const Settings = onFirstUse(() =>
  z.strictObject({
    cost: z.optional(z.number().check(z.positive(), z.maximum(1e12))),
    tokens: z.optional(z.int().check(z.positive(), z.maximum(1e15))),
    seconds: z.optional(z.number().check(z.positive(), z.maximum(1e12))),
  }),
);
export type BudgetSettings = z.output<ReturnType<typeof Settings>>;

/** One round's spend: one or more of cost, tokens and seconds, none below zero. */
export const Metrics = onFirstUse(() =>
  z
    .strictObject({
      cost: z.optional(z.number().check(z.minimum(0), z.maximum(1e12))),
      tokens: z.optional(z.int().check(z.minimum(0), z.maximum(1e15))),
      seconds: z.optional(z.number().check(z.minimum(0), z.maximum(1e12))),
    })
    .check(z.refine((m) => m.cost !== undefined || m.tokens !== undefined || m.seconds !== undefined, 'give cost, tokens or seconds (one or more)')),
);
export type BudgetMetrics = z.output<ReturnType<typeof Metrics>>;
