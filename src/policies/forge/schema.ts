import * as z from 'zod';
import { onFirstUse } from '../types.js';

/*
 * The forge policy's schemas (its settings and one iteration's metrics), apart
 * from its rules (index.ts) so that reading a session's policies loads no zod:
 * only a call that parses settings or metrics reaches this module (policy.ts).
 */

/** Forge's convergence settings and their defaults (docs/policies.md#settings): threshold 0.80, 2 minimum rounds, unanimous unless a minimum consensus is named. */
export const Settings = onFirstUse(() =>
  z
    .strictObject({
      threshold: z.number().min(0).max(1).default(0.8),
      minRounds: z.int().min(1).max(1000).default(2),
      minConsensus: z.int().min(1).max(1000).optional(),
      /** gapflow's addition to forge as first described: an optional round limit. */
      maxRounds: z.int().min(1).max(100_000).optional(),
    })
    .transform((s) => ({ ...s, unanimous: s.minConsensus === undefined })),
);
export type ForgeSettings = z.output<ReturnType<typeof Settings>>;

export const Metrics = onFirstUse(() => {
  const Participant = z.string().min(1).max(200);
  const Item = z.string().max(5000);
  return z.strictObject({
    critiques: z
      .array(
        z.strictObject({
          participant: Participant,
          score: z.number().min(0).max(100),
          weaknesses: z.array(Item).max(1000).default([]),
          suggestions: z.array(Item).max(1000).default([]),
        }),
      )
      .max(1000),
    /** The round's draft or synthesis text; a whole forge round must fit one log line (1 MiB), which the writer checks in bytes. */
    draft: z.string().max(500_000),
    /** The participants' raw vote replies: parsed at verdict time (R17), so a better parser re-reads old logs. */
    votes: z.array(z.strictObject({ participant: Participant, reply: z.string().max(100_000) })).max(1000),
  });
});
export type ForgeMetrics = z.output<ReturnType<typeof Metrics>>;
