import type { DecisionData, DecisionOutcome } from '../../events/index.js';
import type { ConvergenceConfig, MachineState } from '../../machines/index.js';
import { formatCount, type CombinedVerdict } from '../policies/index.js';
import { roundInput, soleNarrator } from './read-model.js';
import type { Step } from './step.js';
import type { PolicyView, RoundFigures } from './view.js';

type Machine = Pick<MachineState, 'flatCount' | 'outcome'>;

/**
 * Why a round close led where it did, from the combined verdict and its
 * reason code. A session that runs one policy tells it in that policy's own
 * words when it has them (the gap policy: status.md's State History wording);
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
  const told = tellRoundStep(step, round, config, machine, combined, policies);
  // R25: only a work round counts toward a stall.
  return combined.verdict === 'flat' && round.kind !== 'work' ? `${told}; a ${round.kind} round leaves flat_count as it was` : told;
}

function tellRoundStep(step: Step, round: RoundFigures, config: ConvergenceConfig, machine: Machine, combined: CombinedVerdict, policies: PolicyView): string {
  const sole = soleNarrator({ policies });
  if (sole?.narrate) return sole.narrate(combined.reason, step, roundInput(round, config, machine.flatCount));
  if (step.from === 'STALLED') return `stalled: no progress for ${config.stallThreshold} consecutive ${config.stallThreshold === 1 ? 'round' : 'rounds'}`;
  const why = `${combined.verdict}: ${combined.detail}`;
  if (step.to === 'STALLED') return `${why}; flat_count = ${machine.flatCount} reached stall_threshold ${config.stallThreshold}`;
  if (combined.verdict === 'flat') return `${why}; flat_count = ${machine.flatCount} (${machine.flatCount}/${config.stallThreshold} toward stall)`;
  if (combined.verdict === 'progress' && step.from === 'FLAT') return `${why}; flat_count reset to 0`;
  return why;
}

/** What a session stood at when a decision was folded: its open counts and, after it, the round limit. */
export interface DecisionFigures {
  openCount: number;
  weightedOpen: number;
  maxRounds: number;
  /** An extension made before round 1 under preset auto: the limit is auto's own until round 1 settles it (R24). */
  limitProvisional?: boolean;
}

/** Why a decision led where it did; the user's rationale, if any, closes it. */
export function describeDecision(data: DecisionData, outcome: Pick<DecisionOutcome, 'machine' | 'steps'>, figures?: DecisionFigures): string {
  const why = data.rationale ? `; rationale: ${data.rationale}` : '';
  return `${decisionEffect(data, outcome, figures)}${why}`;
}

/** What a decision did, in words: the history's reason without the rationale, and decisions.md's Effect. */
export function decisionEffect(data: DecisionData, outcome: Pick<DecisionOutcome, 'machine' | 'steps'>, figures?: DecisionFigures): string {
  const { machine } = outcome;
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
    case 'prioritize':
      // From a divergence warning it is the user's answer to it (as prioritize critical is); otherwise a focus only.
      return `user prioritized: focus on ${gaps}${outcome.steps.length > 0 ? '; flat_count reset to 0' : ''}`;
    case 'extend_rounds': {
      const limit = !figures
        ? ''
        : figures.limitProvisional
          ? `; max_rounds ${figures.maxRounds} for now: round 1 settles preset auto's limit, and the rounds are added to it`
          : `; max_rounds now ${figures.maxRounds}`;
      return `${extendedBy(data.rounds ?? 0)}${limit}`;
    }
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

function extendedBy(rounds: number): string {
  return `user extended the round limit by ${rounds} ${rounds === 1 ? 'round' : 'rounds'}`;
}

/** An extension made before round 1 under preset auto, once round 1 has settled the limit it adds to (R24). */
export function settledExtensionEffect(rounds: number, maxRounds: number, settled: number): string {
  return `${extendedBy(rounds)}; max_rounds ${maxRounds} from round 1 (preset auto settled ${settled} when it started)`;
}
