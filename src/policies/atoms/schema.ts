import * as z from 'zod/mini';
import '../../../events/zod-locale.js';
import { onFirstUse } from '../types.js';

/*
 * The atoms policy's schemas (its settings and one iteration's metrics), apart
 * from its rules (index.ts) so that reading a session's policies loads no zod:
 * only a call that parses settings or metrics reaches this module (policy.ts).
 */

export const Settings = onFirstUse(() =>
  z.strictObject({
    /** Consecutive stalled iterations before the stall stop (and the session's stall threshold when atoms runs alone). */
    maxStallCount: z._default(z.int().check(z.minimum(1), z.maximum(1000)), 3),
    maxIterations: z._default(z.int().check(z.minimum(1), z.maximum(100_000)), 20),
  }),
);
export type AtomsSettings = z.output<ReturnType<typeof Settings>>;

export const Metrics = onFirstUse(() => {
  const count = z.int().check(z.minimum(0), z.maximum(10_000_000));
  /** The base-case check the CLI ran (`--verify "CMD"`): recorded, so replay never runs it again. */
  const Verify = z.strictObject({
    command: z.string().check(z.minLength(1), z.maxLength(2000)),
    /** null when the command was killed (timeout or signal). */
    exitCode: z.nullable(z.int()),
    durationMs: z.number().check(z.minimum(0)),
    timedOut: z._default(z.boolean(), false),
  });
  return z.strictObject({
    pending: count,
    resolved: count,
    stopRequested: z._default(z.boolean(), false),
    redirectRequested: z._default(z.boolean(), false),
    verify: z.optional(Verify),
  });
});
export type AtomsMetrics = z.output<ReturnType<typeof Metrics>>;
