import * as z from 'zod/mini';
import '../../../events/zod-locale.js';
import { onFirstUse } from '../types.js';

/*
 * The forge policy's schemas (its settings and one iteration's metrics), apart
 * from its rules (index.ts) so that reading a session's policies loads no zod:
 * only a call that parses settings or metrics reaches this module (policy.ts).
 */

/** Forge's convergence settings and their defaults (docs/policies.md#settings): threshold 0.80, 2 minimum rounds, unanimous unless a minimum consensus is named. */
export const Settings = onFirstUse(() =>
  z.pipe(
    z.strictObject({
      threshold: z._default(z.number().check(z.minimum(0), z.maximum(1)), 0.8),
      minRounds: z._default(z.int().check(z.minimum(1), z.maximum(1000)), 2),
      minConsensus: z.optional(z.int().check(z.minimum(1), z.maximum(1000))),
      /** gapflow's addition to forge as first described: an optional round limit. */
      maxRounds: z.optional(z.int().check(z.minimum(1), z.maximum(100_000))),
    }),
    z.transform((s) => ({ ...s, unanimous: s.minConsensus === undefined })),
  ),
);
export type ForgeSettings = z.output<ReturnType<typeof Settings>>;

export const Metrics = onFirstUse(() => {
  const Participant = z.string().check(z.minLength(1), z.maxLength(200));
  const Item = z.string().check(z.maxLength(5000));
  return z.strictObject({
    critiques: z
      .array(
        z.strictObject({
          participant: Participant,
          score: z.number().check(z.minimum(0), z.maximum(100)),
          weaknesses: z._default(z.array(Item).check(z.maxLength(1000)), []),
          suggestions: z._default(z.array(Item).check(z.maxLength(1000)), []),
        }),
      )
      .check(z.maxLength(1000)),
    /** The round's draft or synthesis text; a whole forge round must fit one log line (1 MiB), which the writer checks in bytes. */
    draft: z.string().check(z.maxLength(500_000)),
    /** The participants' raw vote replies: parsed at verdict time (R17), so a better parser re-reads old logs. */
    votes: z.array(z.strictObject({ participant: Participant, reply: z.string().check(z.maxLength(100_000)) })).check(z.maxLength(1000)),
  });
});
export type ForgeMetrics = z.output<ReturnType<typeof Metrics>>;
