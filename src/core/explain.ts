import type { DecisionData } from '../../events/index.js';
import type { ConvergenceConfig, MachineState } from '../../machines/index.js';
import { formatCount, type CombinedVerdict } from '../policies/index.js';
import { roundInput, soleNarrator } from './policies.js';
import type { Step } from './step.js';
import type { PolicyView, RoundFigures } from './view.js';

type Machine = Pick<MachineState, 'flatCount' | 'outcome'>;

/**
 * Why a round close led where it did, from the combined verdict and its
 * reason code. A session that runs one policy tells it in that policy's own
 * words when it has them (the gap policy: seed 003's State History wording);
 * otherwise the verdict and the deciding policies' details say it.
 */
export function describeRoundStep(
  step: Step,
  round: RoundFigures,
  config: ConvergenceConfig,
  machine: Machine,
  combined: CombinedVerdict,
  policies: PolicyView,
): string {
  const sole = soleNarrator({ policies });
  if (sole?.narrate) return sole.narrate(combined.reason, step, roundInput(round, config, machine.flatCount));
  if (step.from === 'STALLED') return `stalled: no progress for ${config.stallThreshold} consecutive rounds`;
  const why = `${combined.verdict}: ${combined.detail}`;
  if (step.to === 'STALLED') return `${why}; flat_count = ${machine.flatCount} reached stall_threshold ${config.stallThreshold}`;
  if (combined.verdict === 'flat') return `${why}; flat_count = ${machine.flatCount} (${machine.flatCount}/${config.stallThreshold} toward stall)`;
  if (combined.verdict === 'progress' && step.from === 'FLAT') return `${why}; flat_count reset to 0`;
  return why;
}

/** Why a decision led where it did; the user's rationale, if any, closes it. */
export function describeDecision(data: DecisionData, machine: Machine, figures?: { openCount: number; weightedOpen: number }): string {
  const why = data.rationale ? `; rationale: ${data.rationale}` : '';
  return `${decisionEffect(data, machine, figures)}${why}`;
}

function decisionEffect(data: DecisionData, machine: Machine, figures?: { openCount: number; weightedOpen: number }): string {
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
