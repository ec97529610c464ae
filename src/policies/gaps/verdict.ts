import type { ConvergenceConfig } from '../../../machines/index.js';
import { lastRoundClosed } from '../round-limit.js';
import { yesNo } from '../tree.js';
import { signed, type CheckLine, type CheckTree, type GapRoundFigures, type PolicyVerdict, type Verdict } from '../types.js';

type Round = GapRoundFigures;

/** One of the gap rules (docs/rules.md#the-verdict-at-a-rounds-close): when it holds, the verdict it gives, and how the CONVERGENCE CHECK tree shows it either way. */
interface GapRule {
  verdict: Verdict;
  reason: string;
  holds(round: Round, config: ConvergenceConfig): boolean;
  detail(round: Round, config: ConvergenceConfig): string;
  line(round: Round, config: ConvergenceConfig, holds: boolean): CheckLine;
}

const net = (round: Round) => `weighted_net = ${signed(round.weightedNet)}`;
const critical = (round: Round) => round.criticalIntroduced.join(', ');

/** R2, strict: a round diverges only below -D. */
export function belowDivergence(weightedNet: number, config: Pick<ConvergenceConfig, 'divergenceThreshold'>): boolean {
  return weightedNet < -config.divergenceThreshold;
}

/**
 * The gap rules for one round, stated once, in their priority order: an
 * empty inventory converges and the last round is the limit (R12), a
 * CRITICAL introduction (R5) and divergence (R2) warn, then the weighted net
 * decides between progress and flat. The stall itself is the machine's
 * business (flat_count), not the verdict's.
 */
const RULES: readonly GapRule[] = [
  {
    verdict: 'converged',
    reason: 'nothing_left_open',
    holds: (r) => r.openCount === 0,
    detail: (r) => `${net(r)}, open count reached 0`,
    line: (r, _, holds) => ({ text: `Nothing left open: ${yesNo(holds)} (open count ${r.openCount})` }),
  },
  {
    verdict: 'limit',
    reason: 'last_round',
    holds: (r, c) => lastRoundClosed(r.round, c.maxRounds),
    detail: (r, c) => `round ${r.round}: max_rounds (${c.maxRounds}) reached`,
    line: (r, c, holds) => ({ text: `Maximum reached: ${yesNo(holds)} (${r.round} ${holds ? '>=' : '<'} ${c.maxRounds})` }),
  },
  {
    verdict: 'diverging',
    reason: 'critical_introduced',
    holds: (r, c) => c.criticalOverride && r.criticalIntroduced.length > 0,
    detail: (r) => `CRITICAL introduced (${critical(r)})`,
    line: (r, _, holds) => ({ text: `CRITICAL introduced: ${yesNo(holds)}${r.criticalIntroduced.length > 0 ? ` (${critical(r)})` : ''}` }),
  },
  {
    verdict: 'diverging',
    reason: 'weighted_net_below_divergence',
    holds: (r, c) => belowDivergence(r.weightedNet, c),
    detail: (r, c) => `${net(r)} < -${c.divergenceThreshold}`,
    line: (r, c, holds) => ({
      text: `Diverging: ${yesNo(holds)} (weighted_net ${r.weightedNet} ${holds ? '<' : '>='} -${c.divergenceThreshold})`,
      notes: [`Weighted resolved: ${r.weightedResolved}, Weighted new: ${r.weightedNew}`],
    }),
  },
  {
    verdict: 'progress',
    reason: 'weighted_net_positive',
    holds: (r) => r.weightedNet > 0,
    detail: (r) => net(r),
    line: (r, _, holds) => ({ text: `Progress: ${yesNo(holds)} (weighted_net ${r.weightedNet} ${holds ? '>' : '<='} 0)` }),
  },
];

/** The gap rules' verdict for one round: the first rule that holds, else flat. */
export function gapVerdict(round: Round, config: ConvergenceConfig): PolicyVerdict {
  const figures = {
    openCount: round.openCount,
    weightedNet: round.weightedNet,
    weightedResolved: round.weightedResolved,
    weightedNew: round.weightedNew,
    criticalIntroduced: critical(round) || null,
  };
  const rule = RULES.find((r) => r.holds(round, config));
  if (rule) return { verdict: rule.verdict, reason: rule.reason, detail: rule.detail(round, config), figures };
  return { verdict: 'flat', reason: 'no_weighted_progress', detail: `${net(round)}, no weighted progress`, figures };
}

const DECISION: Record<Verdict, string> = {
  converged: 'STOP (nothing left open)',
  stopped: 'STOP (stop requested)',
  limit: 'STOP (max_rounds reached)',
  diverging: 'ASK USER (divergence warning)',
  progress: 'CONTINUE',
  flat: 'CONTINUE',
};

/** The CONVERGENCE CHECK tree (`check --verbose`), drawn for the gap rules on a closed round; `flatCount` is the machine's after it. */
export function gapCheckTree(round: Round, config: ConvergenceConfig, flatCount: number): CheckTree {
  const { verdict } = gapVerdict(round, config);
  const stalled = verdict === 'flat' && flatCount >= config.stallThreshold;
  return {
    iteration: round.round,
    lines: [
      ...RULES.map((rule) => rule.line(round, config, rule.holds(round, config))),
      { text: `Flat count: ${flatCount} (stall at ${config.stallThreshold})` },
    ],
    decision: stalled ? 'ASK USER (stalled)' : DECISION[verdict],
  };
}
