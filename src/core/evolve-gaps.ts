import type { EventOf } from '../../events/index.js';
import { CLASS_FACTOR, moveEffect, SEVERITY_WEIGHT, STATE_CLASS } from './rules.js';
import type { Gap, RoundFigures, SessionView } from './view.js';

/*
 * Folding gap events: the inventory, R9's open counts, and the open round's
 * tallies (R5, R6, R7). Called on a working copy of the view (evolve.ts).
 */

/** The open round, or null for a baseline event (before round 1). */
export function currentRound(view: SessionView): RoundFigures | null {
  return view.roundOpen ? (view.rounds.at(-1) ?? null) : null;
}

function countNew(round: RoundFigures, gap: Gap, reopened: boolean): void {
  const weight = SEVERITY_WEIGHT[gap.severity];
  round.new += 1;
  round.weightedNew += weight;
  round.bySeverity[gap.severity].new += 1;
  round.bySeverity[gap.severity].weightedNew += weight;
  round.newGaps.push({ id: gap.id, severity: gap.severity, weight, title: gap.title, spawnedBy: gap.spawnedBy, reopened });
  if (gap.severity === 'CRITICAL') noteCritical(round, gap.id);
}

function noteCritical(round: RoundFigures, id: string): void {
  if (!round.criticalIntroduced.includes(id)) round.criticalIntroduced.push(id);
}

export function openGap(view: SessionView, event: EventOf<'gap.opened'>): void {
  // A second open of a known id (a hand-edited log) cannot be applied: ids are never reused (`verify` names it).
  if (view.gaps.has(event.data.id)) return;
  const round = currentRound(view);
  const gap: Gap = {
    id: event.data.id,
    severity: event.data.severity,
    title: event.data.title,
    state: 'OPEN',
    spawnedBy: event.data.spawnedBy ?? null,
    blocking: event.data.blocking,
    openedInRound: round?.round ?? 0,
    reason: null,
    blockedBy: null,
  };
  view.gaps.set(gap.id, gap);
  view.open.count += 1;
  view.open.weighted += SEVERITY_WEIGHT[gap.severity];
  if (round) countNew(round, gap, false);
}

/**
 * Whether the focus is one a prioritize decision chose (R26), whose outside
 * moves are flagged; a prioritize-critical focus (R11) is shown, as it
 * always was, and flags nothing.
 */
function focusChosen(view: SessionView): boolean {
  if (view.focus.length === 0) return false;
  return view.decisions.findLast((d) => d.kind === 'prioritize' || d.kind === 'prioritize_critical')?.kind === 'prioritize';
}

/** Moves a gap and keeps the open counts (R9) in step. */
export function setState(view: SessionView, gap: Gap, to: Gap['state']): void {
  const change = CLASS_FACTOR[STATE_CLASS[to]] - CLASS_FACTOR[STATE_CLASS[gap.state]];
  view.open.count += change;
  view.open.weighted += change * SEVERITY_WEIGHT[gap.severity];
  gap.state = to;
}

export function moveGap(view: SessionView, event: EventOf<'gap.moved'>): void {
  const gap = view.gaps.get(event.data.id);
  if (!gap) return;
  const effect = moveEffect(gap.state, event.data.to);
  const round = currentRound(view);
  // R26: a move outside a chosen focus is recorded as any other, and flagged in its round.
  if (round && !view.focus.includes(gap.id) && !round.outsideFocus.includes(gap.id) && focusChosen(view)) round.outsideFocus.push(gap.id);
  setState(view, gap, event.data.to);
  gap.reason = event.data.reason ?? null;
  gap.blockedBy = event.data.to === 'BLOCKED' ? (event.data.blockedBy ?? null) : null;
  // A prioritized CRITICAL gap stays in focus until it closes (R11).
  if (STATE_CLASS[gap.state] === 'closed' && view.focus.includes(gap.id)) {
    view.focus = view.focus.filter((id) => id !== gap.id);
  }
  if (!round) return;
  if (effect === 'resolved') {
    const weight = SEVERITY_WEIGHT[gap.severity];
    round.resolved += 1;
    round.weightedResolved += weight;
    round.bySeverity[gap.severity].resolved += 1;
    round.bySeverity[gap.severity].weightedResolved += weight;
    round.resolvedGaps.push({ id: gap.id, severity: gap.severity, weight, to: gap.state });
  } else if (effect === 'reopened') {
    countNew(round, gap, true);
  }
}

export function changeSeverity(view: SessionView, event: EventOf<'gap.severity_changed'>): void {
  const gap = view.gaps.get(event.data.id);
  if (!gap) return;
  const from = gap.severity;
  const to = event.data.to;
  gap.severity = to;
  view.open.weighted += CLASS_FACTOR[STATE_CLASS[gap.state]] * (SEVERITY_WEIGHT[to] - SEVERITY_WEIGHT[from]);
  const round = currentRound(view);
  if (!round) return;
  // R5: an escalation to CRITICAL warns whether the gap is open or parked.
  if (to === 'CRITICAL') noteCritical(round, gap.id);
  // R7: only an open gap's change moves the round's weighted figures.
  if (STATE_CLASS[gap.state] !== 'open') return;
  const delta = SEVERITY_WEIGHT[to] - SEVERITY_WEIGHT[from];
  round.severityChanges.push({ id: gap.id, from, to, delta });
  if (delta > 0) {
    round.weightedNew += delta;
    round.bySeverity[to].weightedNew += delta;
  } else {
    round.weightedResolved -= delta;
    round.bySeverity[from].weightedResolved -= delta;
  }
}
