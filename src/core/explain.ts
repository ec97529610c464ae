import type { DecisionData } from '../../events/index.js';
import type { ConvergenceConfig } from '../../machines/index.js';
import { formatCount, signed } from './numbers.js';
import type { CombinedVerdict } from '../policies/index.js';
import type { Step } from './step.js';
import type { MachineView, RoundFigures } from './view.js';

type MachineState = Pick<MachineView, 'flatCount' | 'outcome'>;

/** Why a round close led where it did, in seed 003's State History wording. */
export function describeRoundStep(
  step: Step,
  round: Pick<RoundFigures, 'weightedNet' | 'criticalIntroduced' | 'openEnd' | 'round'>,
  config: ConvergenceConfig,
  machine: MachineState,
  combined: CombinedVerdict | null = null,
): string {
  if (combined) return describePolicyStep(step, combined, config, machine);
  const net = `weighted_net = ${signed(round.weightedNet)}`;
  if (step.from === 'STALLED') {
    return `stalled: no weighted progress for ${config.stallThreshold} consecutive rounds`;
  }
  switch (step.rule) {
    case 'nothingLeftOpen':
      return `${net}, open count reached 0: converged`;
    case 'lastRoundClosed':
      return `${net}, open count ${formatCount(round.openEnd ?? 0)}: max_rounds (${config.maxRounds}) reached`;
    case 'criticalIntroduced':
      return `${net}, triggered by CRITICAL introduction (${round.criticalIntroduced.join(', ')})`;
    case 'weightedNetBelowDivergence':
      return `${net} < -${config.divergenceThreshold} (divergence_threshold)`;
    case 'weightedNetPositive':
      return step.from === 'FLAT' ? `${net}, flat_count reset to 0` : net;
    case 'flatCountReachesStall':
      return `${net}, flat_count = ${machine.flatCount} reached stall_threshold ${config.stallThreshold}`;
    default:
      return `${net}, flat_count = ${machine.flatCount} (${machine.flatCount}/${config.stallThreshold} toward stall)`;
  }
}

/** Why a round close led where it did when the policies' combined verdict decided. */
function describePolicyStep(step: Step, combined: CombinedVerdict, config: ConvergenceConfig, machine: MachineState): string {
  if (step.from === 'STALLED') return `stalled: no progress for ${config.stallThreshold} consecutive rounds`;
  const why = `${combined.verdict}: ${combined.detail}`;
  if (step.rule === 'flatCountReachesStall') return `${why}; flat_count = ${machine.flatCount} reached stall_threshold ${config.stallThreshold}`;
  if (combined.verdict === 'flat') return `${why}; flat_count = ${machine.flatCount} (${machine.flatCount}/${config.stallThreshold} toward stall)`;
  if (combined.verdict === 'progress' && step.from === 'FLAT') return `${why}; flat_count reset to 0`;
  return why;
}

/** Why a decision led where it did; the user's rationale, if any, closes it. */
export function describeDecision(data: DecisionData, machine: MachineState, figures?: { openCount: number; weightedOpen: number }): string {
  const why = data.rationale ? `; rationale: ${data.rationale}` : '';
  return `${decisionEffect(data, machine, figures)}${why}`;
}

function decisionEffect(data: DecisionData, machine: MachineState, figures?: { openCount: number; weightedOpen: number }): string {
  const gaps = (data.gaps ?? []).join(', ');
  switch (data.kind) {
    case 'narrow_scope':
      return `user narrowed scope: deferred ${gaps}; flat_count reset to 0`;
    case 'accept_complexity':
      // With no gap open (a session of metric policies has none) a baseline of 0 open would say nothing true.
      if (!figures || (figures.openCount === 0 && figures.weightedOpen === 0)) {
        return 'user accepted complexity: the loop goes on from the current figures (no gaps open); flat_count reset to 0';
      }
      return `user accepted complexity: new baseline of ${formatCount(figures.openCount)} open (weighted ${formatCount(figures.weightedOpen)}); flat_count reset to 0`;
    case 'prioritize_critical':
      return `user prioritized CRITICAL: focus on ${gaps}; flat_count reset to 0`;
    case 'pause':
      return 'user paused the session';
    case 'resume':
      return 'user resumed the session';
    case 'force_complete':
      return `user forced completion: ${machine.outcome}`;
    case 'abandon':
      return `user abandoned the session: ${machine.outcome}`;
    case 'approve': {
      const risk = data.acknowledgment === 'critical_risk' && gaps ? '; CRITICAL risk acknowledged' : '';
      return `user approved: ${machine.outcome}${gaps ? ` over ${gaps}` : ''}${risk}`;
    }
  }
}
