import { formatCount as count, signed, type RoundInput } from '../types.js';

/**
 * A round's step in the wording of status.md's State History, from the gap verdict's
 * reason code: how a session that runs the gap policy alone tells its history.
 */
export function narrateGapStep(reason: string, step: { from: string; to: string }, round: RoundInput): string {
  const { gaps, config, flatCount } = round;
  const net = `weighted_net = ${signed(gaps.weightedNet)}`;
  if (step.from === 'STALLED')
    return `stalled: no weighted progress for ${config.stallThreshold} consecutive ${config.stallThreshold === 1 ? 'round' : 'rounds'}`;
  if (step.to === 'STALLED') return `${net}, flat_count = ${flatCount} reached stall_threshold ${config.stallThreshold}`;
  switch (reason) {
    case 'nothing_left_open':
      return `${net}, open count reached 0: converged`;
    case 'last_round':
      return `${net}, open count ${count(gaps.openCount)}: max_rounds (${config.maxRounds}) reached`;
    case 'critical_introduced':
      return `${net}, triggered by CRITICAL introduction (${gaps.criticalIntroduced.join(', ')})`;
    case 'weighted_net_below_divergence':
      return `${net} < -${config.divergenceThreshold} (divergence_threshold)`;
    case 'weighted_net_positive':
      return step.from === 'FLAT' ? `${net}, flat_count reset to 0` : net;
    default:
      return `${net}, flat_count = ${flatCount} (${flatCount}/${config.stallThreshold} toward stall)`;
  }
}
