import { CLASS_FACTOR, SEVERITIES, STATE_CLASS } from './rules.js';
import type { Gap, RoundFigures, SessionView } from './view.js';

/** The rounds that have closed (the last one may still be open). */
export function closedRounds(view: Pick<SessionView, 'rounds'>): RoundFigures[] {
  return view.rounds.filter((r) => r.openEnd !== null);
}

/**
 * How many rounds have closed: `closedRounds(view).length`, without copying
 * them. Only the last round is open, save in a hand-made log; a head stands
 * in for its earlier rounds with closed placeholders numbered NaN
 * (view-codec.ts), all before its real rounds, so the look back stops at the
 * first one: next and a stop hook do not walk 40,000 stand-ins to count them.
 */
export function closedRoundCount(view: Pick<SessionView, 'rounds'>): number {
  const { rounds } = view;
  for (let i = rounds.length - 2; i >= 0 && !Number.isNaN(rounds[i]!.round); i--) {
    if (rounds[i]!.openEnd === null) return closedRounds(view).length;
  }
  return rounds.length - (rounds.at(-1)?.openEnd === null ? 1 : 0);
}

/** The last round that closed: `closedRounds(view).at(-1)`, looking back from the end. */
export function lastClosedRound(view: Pick<SessionView, 'rounds'>): RoundFigures | undefined {
  return view.rounds.findLast((r) => r.openEnd !== null);
}

/**
 * R9: OPEN + IN_PROGRESS + BLOCKED + PROPOSED + NEEDS_REVISION + 0.5 × USER_DEFERRED.
 * The view keeps the session's total as it folds (`view.open`); this sums any subset.
 */
export function openCount(gaps: Iterable<Gap>): number {
  let total = 0;
  for (const gap of gaps) total += CLASS_FACTOR[STATE_CLASS[gap.state]];
  return total;
}

export function isOpen(gap: Gap): boolean {
  return STATE_CLASS[gap.state] === 'open';
}

/** Open and parked gaps, most severe first, in the order they were recorded. */
export function unfinishedGaps(gaps: Iterable<Gap>): Gap[] {
  const unfinished = [...gaps].filter((gap) => STATE_CLASS[gap.state] !== 'closed');
  return unfinished.sort((a, b) => SEVERITIES.indexOf(a.severity) - SEVERITIES.indexOf(b.severity));
}

/** R11: CRITICAL and HIGH gaps not closed (deferral does not make them safe to approve over). */
export function severeUnfinished(view: Pick<SessionView, 'gaps'>): string[] {
  return unfinishedGaps(view.gaps.values())
    .filter((g) => g.severity === 'CRITICAL' || g.severity === 'HIGH')
    .map((g) => g.id);
}
