import type { DecisionKind } from '../../events/index.js';
import {
  decisionOptions,
  lastClosedRound,
  tracksGaps,
  type DecisionOption,
  type Gap,
  type Recommendation,
  type RoundFigures,
  type SessionView,
} from '../core/index.js';
import { formatCount, signed } from '../policies/index.js';
import { counted } from './counted.js';

/*
 * The user's options as `next --json` gives them to a loop in any language:
 * each decision with its words (label, effect, why it is recommended), the
 * gaps it names, and the request that takes it. Loads no schema,
 * statechart or immer (`next` answers from the head checkpoint).
 */

/** A gap as a loop reads it. */
export interface GapEntry {
  id: string;
  severity: Gap['severity'];
  state: Gap['state'];
  title: string;
}

/** One option as `next --json` lists it. */
export interface OptionEntry {
  kind: DecisionKind;
  label: string;
  recommended: boolean;
  gaps: GapEntry[];
  effect: string;
  /** The request's fields the user must supply before it can be sent (`data.gaps`); empty when `event` is whole. */
  requires: string[];
  /** The line to give `append` (as JSON, one line) to take the option; null while `requires` is not empty. */
  event: DecisionOption['event'];
  /** Why this option is the one recommended; null for the others. */
  why: string | null;
}

export function gapEntry(gap: Gap): GapEntry {
  return { id: gap.id, severity: gap.severity, state: gap.state, title: gap.title };
}

const ids = (gaps: readonly Gap[]): string => gaps.map((g) => g.id).join(', ');

const LABELS: Readonly<Record<DecisionKind, string>> = {
  narrow_scope: 'Narrow scope',
  accept_complexity: 'Accept complexity',
  prioritize_critical: 'Prioritize CRITICAL',
  pause: 'Pause',
  resume: 'Resume',
  force_complete: 'Force complete',
  abandon: 'Abandon',
  approve: 'Approve',
  extend_rounds: 'Extend rounds',
  prioritize: 'Prioritize',
};

/**
 * Why these gaps are the ones suggested for deferral (R28): spawned this
 * round or marked non-blocking when narrow scope is recommended; otherwise
 * the fallback, open MEDIUM/LOW gaps no other gap waits on.
 */
export function deferralGround(option: Pick<DecisionOption, 'fallback'>): string {
  return option.fallback !== true
    ? 'MEDIUM/LOW, spawned this round or marked non-blocking, none waited on'
    : 'MEDIUM/LOW, open, no other gap waits on them; none was spawned this round or marked non-blocking';
}

/** What taking the option does, with the session's figures. */
function effect(view: SessionView, option: DecisionOption): string {
  const gaps = tracksGaps(view);
  switch (option.kind) {
    case 'narrow_scope':
      return option.gaps.length > 0
        ? `Defers ${ids(option.gaps)} (${deferralGround(option)}; a deferred gap counts half), resets the flat count and goes to CONVERGING`
        : 'Defers the open gaps you name in data.gaps (a deferred gap counts half), resets the flat count and goes to CONVERGING';
    case 'accept_complexity':
      return gaps
        ? `Resets the baseline to the current gap count (${formatCount(view.open.count)} open, weighted ${formatCount(view.open.weighted)}), resets the flat count and goes to CONVERGING`
        : 'The loop goes on with a fresh flat count (CONVERGING)';
    case 'prioritize_critical':
      return `Focuses the next rounds on ${ids(option.gaps)} until ${option.gaps.length === 1 ? 'it closes' : 'they close'}, resets the flat count and goes to CONVERGING`;
    case 'pause':
      return 'Saves the session as it is; resume returns to DIVERGENCE_WARNING';
    case 'force_complete': {
      if (!gaps) return 'Completes the session where it stands (outcome STALL_EXIT)';
      const critical = option.gaps.some((g) => g.severity === 'CRITICAL') ? '; CRITICAL gaps are open: the spec may be unimplementable' : '';
      return `Completes the session (outcome STALL_EXIT); the final summary lists ${counted(option.gaps.length, 'unfinished gap')} under Known Limitations${critical}`;
    }
    case 'abandon':
      return 'Stops here without completing the work (outcome ABANDONED)';
    default:
      return LABELS[option.kind];
  }
}

/** Why the recommended option is recommended, with the figure that decided it. */
function why(view: SessionView, round: RoundFigures, option: DecisionOption, reason: Recommendation): string {
  const { stallThreshold, divergenceThreshold } = view.config;
  switch (reason) {
    case 'critical': {
      const introduced = option.gaps.filter((g) => round.criticalIntroduced.includes(g.id));
      return introduced.length > 0
        ? `round ${round.round} introduced CRITICAL ${ids(introduced)}: settle it before anything else`
        : `CRITICAL ${ids(option.gaps)} still open: settle it before anything else`;
    }
    case 'spawned_minor_gaps':
      return `${ids(option.gaps)} ${option.gaps.length === 1 ? 'is' : 'are'} MEDIUM/LOW, spawned in round ${round.round} or marked non-blocking, and no gap waits on ${option.gaps.length === 1 ? 'it' : 'them'}: deferring ${option.gaps.length === 1 ? 'it' : 'them'} narrows the scope back`;
    case 'stall_with_progress':
      return `no net progress for ${stallThreshold} rounds, though round ${round.round} resolved ${counted(round.resolved, 'gap')} (weighted ${round.weightedResolved}) against ${round.new} new (weighted ${round.weightedNew}): the new gaps look like the real scope`;
    case 'stall_without_progress':
      return `no net progress for ${stallThreshold} rounds, and round ${round.round} resolved no gap: the work looks stuck and needs the user`;
    case 'scope_grew':
      return `weighted net ${signed(round.weightedNet)} is below -${divergenceThreshold} with gaps that are neither spawned nor minor: the scope grew`;
    case 'policies_stalled':
      return `no progress for ${stallThreshold} rounds (${round.combined?.detail ?? ''}): a person should look before more rounds run`;
    case 'guard_warned':
      return `${round.combined?.detail ?? 'a guard warned'}: narrowing the scope to what is left is the way to finish within it`;
    case 'policies_diverged':
      return `${round.combined?.verdict ?? 'diverging'} (${round.combined?.policies.join(', ') ?? ''}): going on with a fresh flat count keeps the loop moving`;
  }
}

/** The options of a decision due now, as `next --json` lists them; empty when none is due. */
export function optionEntries(view: SessionView): OptionEntry[] {
  const round = lastClosedRound(view);
  if (round === undefined) return [];
  return decisionOptions(view).map((option) => ({
    kind: option.kind,
    label: !tracksGaps(view) && option.kind === 'accept_complexity' ? 'Accept and continue' : LABELS[option.kind],
    recommended: option.recommended !== null,
    gaps: option.gaps.map(gapEntry),
    effect: effect(view, option),
    requires: option.requires,
    event: option.event,
    why: option.recommended === null ? null : why(view, round, option, option.recommended),
  }));
}
