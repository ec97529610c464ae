import * as z from 'zod';
import { onFirstUse } from '../types.js';

/*
 * The atoms policy's schemas (its settings and one iteration's metrics), apart
 * from its rules (index.ts) so that reading a session's policies loads no zod:
 * only a call that parses settings or metrics reaches this module (policy.ts).
 */

export const Settings = onFirstUse(() =>
  z.strictObject({
    /** Consecutive stalled iterations before the stall stop (and the session's stall threshold when atoms runs alone). */
    maxStallCount: z.int().min(1).max(1000).default(3),
    maxIterations: z.int().min(1).max(100_000).default(20),
  }),
);
export type AtomsSettings = z.output<ReturnType<typeof Settings>>;

export const Metrics = onFirstUse(() => {
  const count = z.int().min(0).max(10_000_000);
  /** The base-case check the CLI ran (`--verify "CMD"`): recorded, so replay never runs it again. */
  const Verify = z.strictObject({
    command: z.string().min(1).max(2000),
    /** null when the command was killed (timeout or signal). */
    exitCode: z.int().nullable(),
    durationMs: z.number().min(0),
    timedOut: z.boolean().default(false),
  });
  return z.strictObject({
    pending: count,
    resolved: count,
    stopRequested: z.boolean().default(false),
    redirectRequested: z.boolean().default(false),
    verify: Verify.optional(),
  });
});
export type AtomsMetrics = z.output<ReturnType<typeof Metrics>>;
