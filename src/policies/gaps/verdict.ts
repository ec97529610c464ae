import type { ConvergenceConfig } from '../../../machines/index.js';
import { yesNo } from '../tree.js';
import { lastRoundClosed } from '../round-limit.js';
import type { CheckTree, GapRoundFigures, PolicyVerdict } from '../types.js';

/**
 * Seed 003's rules for one round, stated once, in their priority order: an
 * empty inventory converges and the last round is the limit (R12), a
 * CRITICAL introduction (R5) and divergence (R2) warn, then the weighted net
 * decides between progress and flat. The stall itself is the machine's
 * business (flat_count), not the verdict's.
 */
export function gapVerdict(round: GapRoundFigures, config: ConvergenceConfig): PolicyVerdict {
  const net = round.weightedNet;
  const figures = {
    openCount: round.openCount,
    weightedNet: net,
    weightedResolved: round.weightedResolved,
    weightedNew: round.weightedNew,
    criticalIntroduced: round.criticalIntroduced.join(', ') || null,
  };
  const say = (verdict: PolicyVerdict['verdict'], reason: string, detail: string): PolicyVerdict => ({ verdict, reason, detail, figures });
  const signed = net > 0 ? `+${net}` : String(net);
  if (round.openCount === 0) return say('converged', 'nothing_left_open', `weighted_net = ${signed}, open count reached 0`);
  if (lastRoundClosed(round.round, config.maxRounds)) return say('limit', 'last_round', `round ${round.round}: max_rounds (${config.maxRounds}) reached`);
  if (config.criticalOverride && round.criticalIntroduced.length > 0) {
    return say('diverging', 'critical_introduced', `CRITICAL introduced (${round.criticalIntroduced.join(', ')})`);
  }
  if (net < -config.divergenceThreshold) {
    return say('diverging', 'weighted_net_below_divergence', `weighted_net = ${signed} < -${config.divergenceThreshold}`);
  }
  if (net > 0) return say('progress', 'weighted_net_positive', `weighted_net = ${signed}`);
  return say('flat', 'no_weighted_progress', `weighted_net = ${signed}, no weighted progress`);
}

/** The CONVERGENCE CHECK tree of seed 000, drawn for seed 003's rules on a closed round; `flatCount` is the machine's after it. */
export function gapCheckTree(round: GapRoundFigures, config: ConvergenceConfig, flatCount: number): CheckTree {
  const v = gapVerdict(round, config);
  const net = round.weightedNet;
  const critical = config.criticalOverride && round.criticalIntroduced.length > 0;
  const decision: Record<PolicyVerdict['verdict'], string> = {
    converged: 'STOP (nothing left open)',
    stopped: 'STOP (stop requested)',
    limit: 'STOP (max_rounds reached)',
    diverging: 'ASK USER (divergence warning)',
    progress: 'CONTINUE',
    flat: flatCount >= config.stallThreshold ? 'ASK USER (stalled)' : 'CONTINUE',
  };
  return {
    iteration: round.round,
    lines: [
      { text: `Nothing left open: ${yesNo(round.openCount === 0)} (open count ${round.openCount})` },
      { text: `Maximum reached: ${yesNo(lastRoundClosed(round.round, config.maxRounds))} (${round.round} ${lastRoundClosed(round.round, config.maxRounds) ? '>=' : '<'} ${config.maxRounds})` },
      { text: `CRITICAL introduced: ${yesNo(critical)}${round.criticalIntroduced.length > 0 ? ` (${round.criticalIntroduced.join(', ')})` : ''}` },
      {
        text: `Diverging: ${yesNo(net < -config.divergenceThreshold)} (weighted_net ${net} ${net < -config.divergenceThreshold ? '<' : '>='} -${config.divergenceThreshold})`,
        notes: [`Weighted resolved: ${round.weightedResolved}, Weighted new: ${round.weightedNew}`],
      },
      { text: `Progress: ${yesNo(net > 0)} (weighted_net ${net} ${net > 0 ? '>' : '<='} 0)` },
      { text: `Flat count: ${flatCount} (stall at ${config.stallThreshold})` },
    ],
    decision: decision[v.verdict],
  };
}
