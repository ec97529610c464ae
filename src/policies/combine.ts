import { lastRoundClosed } from './round-limit.js';
import type { Figure, PolicyVerdict, Verdict } from './types.js';

export type CompleteWhen = 'any' | 'all';

/** One policy's verdict for one round. */
export interface NamedVerdict extends PolicyVerdict {
  policy: string;
}

/** A round's combined verdict and the policies that decided it. */
export interface CombinedVerdict {
  verdict: Verdict;
  /** The reason code of the first deciding policy (`max_rounds` when the round limit decided). */
  reason: string;
  /** The policies whose verdicts decided it, in the session's order. */
  policies: string[];
  detail: string;
}

/**
 * The combining rule (R15): diverging if any policy diverges; converged when
 * every policy (or, with `any`, one) converged; stopped when any was asked to
 * stop; limit when any hit its limit; progress when any progressed; else
 * flat. One policy's verdict passes through unchanged.
 */
export function combine(verdicts: readonly NamedVerdict[], completeWhen: CompleteWhen = 'all'): CombinedVerdict {
  const having = (v: Verdict) => verdicts.filter((x) => x.verdict === v);
  const converged = having('converged');
  const everyConverged = converged.length === verdicts.length && verdicts.length > 0;
  const decide = (verdict: Verdict, by: readonly NamedVerdict[]): CombinedVerdict => ({
    verdict,
    reason: by[0]?.reason ?? 'no_policy',
    policies: by.map((x) => x.policy),
    detail: by.map((x) => `${x.policy}: ${x.detail}`).join('; '),
  });
  if (having('diverging').length > 0) return decide('diverging', having('diverging'));
  if (completeWhen === 'all' ? everyConverged : converged.length > 0) return decide('converged', converged);
  if (having('stopped').length > 0) return decide('stopped', having('stopped'));
  if (having('limit').length > 0) return decide('limit', having('limit'));
  if (having('progress').length > 0) return decide('progress', having('progress'));
  return decide('flat', verdicts);
}

export type { Figure };

/** What R12 asks of a closing round: its number, the session's round limit (null: none), and its open count (null: no policy reads gap events). */
export interface RoundBounds {
  round: number;
  maxRounds: number | null;
  openCount: number | null;
}

/**
 * R12, one rule for every combination of policies, applied to the combined
 * verdict: a round that closes with nothing left open converges, even if it
 * would otherwise have warned; otherwise closing round `max_rounds` ends the
 * session whatever the round's verdict (a policy's own limit stays as it
 * said). Nothing here applies without an inventory or a limit.
 */
export function withSessionRules(combined: CombinedVerdict, bounds: RoundBounds): CombinedVerdict {
  if (bounds.openCount === 0) {
    if (combined.verdict === 'converged') return combined;
    return { verdict: 'converged', reason: 'nothing_left_open', policies: [], detail: `round ${bounds.round}: open count reached 0` };
  }
  if (bounds.maxRounds === null || !lastRoundClosed(bounds.round, bounds.maxRounds)) return combined;
  if (combined.verdict === 'converged' || combined.verdict === 'limit') return combined;
  return { verdict: 'limit', reason: 'max_rounds', policies: [], detail: `round ${bounds.round}: max_rounds (${bounds.maxRounds}) reached` };
}
