import type { EventOf, Severity } from '../../events/index.js';
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

/**
 * R19: a close recorded by the build before R20's take-back counted a
 * duplicate reopened in its round as withdrawn and as new; when the
 * recorded figures say so, the lists and severity rows are put back to
 * match them. A close recorded under today's rule drops what was kept.
 */
export function settleTakenBack(round: RoundFigures, recordedWithdrawn: number): void {
  const takenBack = round.withdrawalsTakenBack ?? [];
  delete round.withdrawalsTakenBack;
  if (recordedWithdrawn < round.withdrawn + takenBack.length) return;
  for (const { entry, gap } of takenBack) {
    round.withdrawnGaps.push(entry);
    round.withdrawn += 1;
    round.weightedWithdrawn += entry.weight;
    countNew(round, gap, true);
  }
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

/**
 * Notes a CRITICAL introduction (R5). R29 changed which moves are one: a
 * parked gap escalated to CRITICAL is not (`before-r29` notes only what the
 * older rule counted), one that returns to an open state as CRITICAL is
 * (`r29`: only today's rule). A round whose rules disagree keeps the older
 * list apart (`criticalBeforeR29`), for a close recorded without its outcome
 * that is judged as it was then (R19).
 */
function noteCritical(round: RoundFigures, id: string, rule: 'both' | 'r29' | 'before-r29' = 'both'): void {
  if (rule !== 'both' && round.criticalBeforeR29 === undefined) round.criticalBeforeR29 = [...round.criticalIntroduced];
  if (rule !== 'before-r29' && !round.criticalIntroduced.includes(id)) round.criticalIntroduced.push(id);
  const before = round.criticalBeforeR29;
  if (before !== undefined && rule !== 'r29' && !before.includes(id)) before.push(id);
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

/** R26: a move (a split among them) of a gap outside a chosen focus is recorded as any other, and flagged once in its round. */
function flagOutsideFocus(view: SessionView, round: RoundFigures | null, id: string): void {
  if (round && !view.focus.includes(id) && !round.outsideFocus.includes(id) && focusChosen(view)) round.outsideFocus.push(id);
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
  flagOutsideFocus(view, round, gap.id);
  const wasParked = STATE_CLASS[gap.state] === 'parked';
  countPingPong(gap, effect, gap.state);
  setState(view, gap, event.data.to);
  gap.reason = event.data.reason ?? null;
  gap.blockedBy = event.data.to === 'BLOCKED' ? (event.data.blockedBy ?? null) : null;
  if (event.data.to === 'DUPLICATE' && event.data.of !== undefined) gap.duplicateOf = event.data.of;
  else delete gap.duplicateOf;
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
  } else if (effect === 'withdrawn') {
    // R20: withdrawn, neither resolved nor new; shown apart so the open counts still add up.
    const weight = SEVERITY_WEIGHT[gap.severity];
    round.withdrawn += 1;
    round.weightedWithdrawn += weight;
    round.withdrawnGaps.push({ id: gap.id, severity: gap.severity, weight, of: gap.duplicateOf ?? '', parked: wasParked });
  } else if (effect === 'reopened') {
    const withdrawal = round.withdrawnGaps.findIndex((entry) => entry.id === gap.id);
    if (withdrawal === -1) countNew(round, gap, true);
    else undoWithdrawal(round, gap, withdrawal);
  } else if (wasParked && STATE_CLASS[gap.state] === 'open' && gap.severity === 'CRITICAL') {
    // R29: a deferred gap that comes back as CRITICAL brings a CRITICAL into the work.
    noteCritical(round, gap.id, 'r29');
  }
}

/**
 * Ping-pong: a move counted resolved raises the gap's resolve count, and a
 * reopen from a state it was resolved into (not DUPLICATE or SPLIT, which
 * say nothing of the fix) its reopen count. Counted whether a round is open
 * or not: a fix that breaks between rounds broke all the same.
 */
function countPingPong(gap: Gap, effect: ReturnType<typeof moveEffect>, from: Gap['state']): void {
  if (effect === 'resolved') gap.resolves = (gap.resolves ?? 0) + 1;
  else if (effect === 'reopened' && from !== 'DUPLICATE' && from !== 'SPLIT') gap.reopens = (gap.reopens ?? 0) + 1;
}

/**
 * R20: a gap withdrawn as a duplicate and reopened in the same round was
 * never two gaps: the withdrawal is taken back, and the reopen counts
 * nothing (not new, so no CRITICAL introduction either), as if the gap had
 * not moved. Only a gap that was deferred before its withdrawal and comes
 * back open as CRITICAL is one (R29), as that return would be without the
 * detour. A duplicate reopened in a later round is new there, as any closed
 * gap reopened is (R6).
 */
function undoWithdrawal(round: RoundFigures, gap: Gap, index: number): void {
  const [entry] = round.withdrawnGaps.splice(index, 1);
  if (!entry) return;
  round.withdrawn -= 1;
  round.weightedWithdrawn -= entry.weight;
  (round.withdrawalsTakenBack ??= []).push({ entry, gap: { ...gap } });
  if (entry.parked === true && STATE_CLASS[gap.state] === 'open' && gap.severity === 'CRITICAL') noteCritical(round, gap.id, 'r29');
}

/**
 * R21: the parent closes as SPLIT and its parts open, in one event. In a
 * round, parts beyond the first count as new; the weight the parts add to
 * (or take from) the parent's goes to weighted new (or resolved), as a
 * severity change would; a CRITICAL part is a CRITICAL introduction only if
 * the parent was not CRITICAL. A part takes the parent's title (unless it
 * has its own), blocking and spawned-by, and its place in the focus.
 */
export function splitGap(view: SessionView, event: EventOf<'gap.split'>): void {
  const parent = view.gaps.get(event.data.id);
  // A hand-edited log may name an unknown parent, a closed one or a part whose id is taken: nothing to apply then.
  if (!parent || STATE_CLASS[parent.state] === 'closed') return;
  const parts = event.data.into.filter((part, i, all) => !view.gaps.has(part.id) && all.findIndex((p) => p.id === part.id) === i);
  if (parts.length === 0) return;
  const round = currentRound(view);
  flagOutsideFocus(view, round, parent.id);
  const ids = parts.map((part) => part.id);
  const parentWeight = SEVERITY_WEIGHT[parent.severity];
  setState(view, parent, 'SPLIT');
  parent.reason = event.data.reason ?? null;
  parent.blockedBy = null;
  parent.splitInto = ids;
  if (view.focus.includes(parent.id)) view.focus = view.focus.flatMap((id) => (id === parent.id ? ids : [id]));
  let partsWeight = 0;
  parts.forEach((part, i) => {
    const gap: Gap = {
      id: part.id,
      severity: part.severity,
      title: part.title ?? parent.title,
      state: 'OPEN',
      spawnedBy: parent.spawnedBy,
      blocking: parent.blocking,
      openedInRound: round?.round ?? 0,
      reason: null,
      blockedBy: null,
      splitFrom: parent.id,
      ...(parent.resolves !== undefined ? { resolves: parent.resolves } : {}),
      ...(parent.reopens !== undefined ? { reopens: parent.reopens } : {}),
    };
    const weight = SEVERITY_WEIGHT[gap.severity];
    partsWeight += weight;
    view.gaps.set(gap.id, gap);
    view.open.count += 1;
    view.open.weighted += weight;
    if (!round) return;
    if (i > 0) {
      round.new += 1;
      round.bySeverity[gap.severity].new += 1;
    }
    if (gap.severity === 'CRITICAL' && parent.severity !== 'CRITICAL') noteCritical(round, gap.id);
  });
  if (!round) return;
  const delta = partsWeight - parentWeight;
  round.splits.push({ id: parent.id, into: ids, delta });
  if (delta > 0) round.weightedNew += delta;
  else round.weightedResolved -= delta;
  bookSplitBySeverity(round, parent.severity, parts);
}

/**
 * A split's weight in the severity rows: the parent's weight leaves its
 * row and each part's joins its own, netted per row as a severity change
 * is (R7): a row that gains weight shows it as weighted new, one that
 * loses it as weighted resolved. The rows' nets add up to the round's.
 */
function bookSplitBySeverity(round: RoundFigures, parentSeverity: Severity, parts: readonly { severity: Severity }[]): void {
  const change = new Map<Severity, number>([[parentSeverity, -SEVERITY_WEIGHT[parentSeverity]]]);
  for (const part of parts) change.set(part.severity, (change.get(part.severity) ?? 0) + SEVERITY_WEIGHT[part.severity]);
  for (const [severity, delta] of change) {
    if (delta > 0) round.bySeverity[severity].weightedNew += delta;
    else round.bySeverity[severity].weightedResolved -= delta;
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
  // R5: an escalation to CRITICAL warns; R29: not while the gap is parked (it warns when the gap returns to an open state).
  if (to === 'CRITICAL') noteCritical(round, gap.id, STATE_CLASS[gap.state] === 'parked' ? 'before-r29' : 'both');
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
