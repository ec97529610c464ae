import { enableMapSet, freeze, Immer, produce } from 'immer';
import type { EventOf, Severity, SettledEvent, SettledOf } from '../../events/index.js';
import { describeDecision, describeRoundStep } from './explain.js';
import { closedRounds, unfinishedGaps } from './inventory.js';
import { CLASS_FACTOR, DEFAULT_CONFIG, moveEffect, resolveConfig, SEVERITIES, SEVERITY_WEIGHT, STATE_CLASS } from './rules.js';
import { policyNamed } from '../policies/index.js';
import { initialPolicies, policiesFor } from './policies.js';
import type { Gap, RoundFigures, SessionView } from './view.js';

enableMapSet();

export function initialView(): SessionView {
  return {
    settings: null,
    config: { ...DEFAULT_CONFIG },
    baselineGapCount: null,
    gaps: new Map(),
    open: { count: 0, weighted: 0 },
    rounds: [],
    roundOpen: false,
    machine: { state: 'CONVERGING', flatCount: 0, outcome: null, pausedFrom: null },
    history: [],
    decisions: [],
    focus: [],
    baseline: null,
    agentSession: null,
    policies: initialPolicies(),
    lastSeq: 0,
  };
}

/**
 * Folds one event into the view, returning a new frozen view that shares
 * what did not change. It applies facts: it never refuses and never judges
 * (a round close and a decision carry what the machine decided; see
 * judge.ts). An event that names what the view does not know (an unknown
 * gap, a close with no round open) changes nothing it cannot apply.
 */
export function evolve(view: SessionView, event: SettledEvent): SessionView {
  return evolveMany(view, (_, step) => step(event)).view;
}

/**
 * Folds many events into `view` on one working copy: `recipe` reads the view
 * as it stands (an immer draft) and folds each event in with `step`, so a
 * batch copies what it changes once, not once per event (a per-event copy of
 * a large gap map made batches quadratic). A throw discards the whole batch.
 */
export function evolveMany<T>(view: SessionView, recipe: (working: SessionView, step: (event: SettledEvent) => void) => T): { view: SessionView; result: T } {
  let result!: T;
  const next = produce(view, (draft) => {
    const working = draft as SessionView;
    result = recipe(working, (event) => apply(working, event));
  });
  return { view: next, result };
}

/** Folds that are judged and thrown away: they must leave their base as it was, unfrozen (a fold's working copy may be it). */
const unfrozen = new Immer({ autoFreeze: false });

/** The view as `events` would leave it, for judging what comes next; never kept, and `view` is left untouched. */
export function foresee(view: SessionView, events: readonly SettledEvent[]): SessionView {
  return unfrozen.produce(view, (draft) => {
    for (const event of events) apply(draft as SessionView, event);
  });
}

/**
 * Folds a whole history as a plain mutable fold (one immutable copy per
 * event would make replay quadratic): `settle` hands each event with its
 * outcome (or null: an old line that cannot be judged, folded as nothing but
 * its seq), seeing the view just before it; the result is frozen like any
 * other view.
 */
export function fold<E extends { seq: number }>(events: Iterable<E>, settle: (view: SessionView, event: E, index: number) => SettledEvent | null): SessionView {
  const view = initialView();
  let index = 0;
  for (const event of events) {
    const settled = settle(view, event, index++);
    if (settled) apply(view, settled);
    else view.lastSeq = event.seq;
  }
  return freeze(view, true);
}

/** Mutates `view` by one event: called on an immer draft, or on the private working copy of `fold`. */
function apply(view: SessionView, event: SettledEvent): void {
  view.lastSeq = event.seq;
  switch (event.type) {
    case 'session.started':
      view.settings = event.data;
      view.config = resolveConfig(event.data, 0);
      view.policies = policiesFor(event.data);
      return;
    case 'metrics.recorded':
      return recordMetrics(view, event);
    case 'round.started':
      return startRound(view, event);
    case 'round.closed':
      return closeRound(view, event);
    case 'gap.opened':
      return openGap(view, event);
    case 'gap.moved':
      return moveGap(view, event);
    case 'gap.severity_changed':
      return changeSeverity(view, event);
    case 'decision.made':
      return applyDecision(view, event);
    case 'session.bound':
      view.agentSession = event.data.agentSession;
      return;
  }
}

function emptyFigures(): Record<Severity, RoundFigures['bySeverity'][Severity]> {
  const entries = SEVERITIES.map((s) => [s, { resolved: 0, new: 0, weightedResolved: 0, weightedNew: 0 }] as const);
  return Object.fromEntries(entries) as Record<Severity, RoundFigures['bySeverity'][Severity]>;
}

function startRound(view: SessionView, event: EventOf<'round.started'>): void {
  if (event.data.round === 1 && view.settings) {
    view.baselineGapCount = unfinishedGaps(view.gaps.values()).length;
    view.config = resolveConfig(view.settings, view.baselineGapCount);
  }
  view.rounds.push({
    round: event.data.round,
    openStart: view.open.count,
    weightedOpenStart: view.open.weighted,
    openEnd: null,
    weightedOpenEnd: null,
    resolved: 0,
    new: 0,
    weightedResolved: 0,
    weightedNew: 0,
    unweightedNet: 0,
    weightedNet: 0,
    bySeverity: emptyFigures(),
    resolvedGaps: [],
    newGaps: [],
    severityChanges: [],
    criticalIntroduced: [],
    state: null,
    flatCount: null,
    verdicts: [],
    combined: null,
  });
  view.roundOpen = true;
}

/**
 * Keeps one policy's metrics as its schema reads them (defaults filled in),
 * so verdicts never see raw input; metrics today's schema cannot read (an
 * old line) are left out, and `verify` names them.
 */
function recordMetrics(view: SessionView, event: EventOf<'metrics.recorded'>): void {
  const policy = policyNamed(event.data.policy);
  const records = view.policies.records.get(event.data.policy);
  const parsed = policy?.metrics.safeParse(event.data.metrics);
  if (!records || !parsed?.success) return;
  records.push({ round: event.data.round ?? view.rounds.length, metrics: parsed.data });
}

/** The open round, or null for a baseline event (before round 1). */
function currentRound(view: SessionView): RoundFigures | null {
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

function openGap(view: SessionView, event: EventOf<'gap.opened'>): void {
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

/** Moves a gap and keeps the open counts (R9) in step. */
function setState(view: SessionView, gap: Gap, to: Gap['state']): void {
  const change = CLASS_FACTOR[STATE_CLASS[to]] - CLASS_FACTOR[STATE_CLASS[gap.state]];
  view.open.count += change;
  view.open.weighted += change * SEVERITY_WEIGHT[gap.severity];
  gap.state = to;
}

function moveGap(view: SessionView, event: EventOf<'gap.moved'>): void {
  const gap = view.gaps.get(event.data.id);
  if (!gap) return;
  const effect = moveEffect(gap.state, event.data.to);
  setState(view, gap, event.data.to);
  gap.reason = event.data.reason ?? null;
  gap.blockedBy = event.data.to === 'BLOCKED' ? (event.data.blockedBy ?? null) : null;
  // A prioritized CRITICAL gap stays in focus until it closes (R11).
  if (STATE_CLASS[gap.state] === 'closed' && view.focus.includes(gap.id)) {
    view.focus = view.focus.filter((id) => id !== gap.id);
  }
  const round = currentRound(view);
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

function changeSeverity(view: SessionView, event: EventOf<'gap.severity_changed'>): void {
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

/** Applies what the machine decided when the round closed: the recorded figures, verdicts and steps. */
function closeRound(view: SessionView, event: SettledOf<'round.closed'>): void {
  const round = view.rounds.at(-1);
  // Only the open round can close; a close naming another round (a hand-edited log) is not applied.
  if (!round || !view.roundOpen || round.round !== event.data.round) return;
  const { figures, verdicts, combined, machine, steps } = event.data.outcome;
  Object.assign(round, {
    ...figures,
    criticalIntroduced: [...figures.criticalIntroduced],
    unweightedNet: figures.resolved - figures.new,
    weightedNet: figures.weightedResolved - figures.weightedNew,
    verdicts,
    combined,
    state: machine.state,
    // R4: no flat count for a round that ended in a warning; none either for the one that ended the session.
    flatCount: machine.state !== 'DIVERGENCE_WARNING' && machine.state !== 'COMPLETE' ? machine.flatCount : null,
  });
  view.roundOpen = false;
  const from = view.machine.state;
  view.machine = { ...machine };
  for (const step of steps.length > 0 ? steps : [{ from, to: from }]) {
    const reason = describeRoundStep(step, round, view.config, machine, combined, view.policies);
    view.history.push({ round: round.round, from: step.from, to: step.to, reason, cause: 'round', duringRound: false });
  }
}

function applyDecision(view: SessionView, event: SettledOf<'decision.made'>): void {
  const { kind, outcome } = event.data;
  const gaps = event.data.gaps ?? [];
  const afterRound = closedRounds(view).length;
  if (kind === 'narrow_scope') {
    for (const id of gaps) {
      const gap = view.gaps.get(id);
      if (!gap) continue;
      setState(view, gap, 'USER_DEFERRED');
      gap.reason = 'deferred when the user narrowed scope';
      gap.blockedBy = null;
    }
  } else if (kind === 'accept_complexity') {
    view.baseline = { afterRound, openCount: view.open.count, weightedOpen: view.open.weighted };
  } else if (kind === 'prioritize_critical') {
    view.focus = [...gaps];
  }
  view.decisions.push({
    afterRound,
    kind,
    gaps: [...gaps],
    rationale: event.data.rationale ?? null,
    acknowledgment: event.data.acknowledgment ?? null,
  });
  view.machine = { ...outcome.machine };
  const figures = { openCount: view.open.count, weightedOpen: view.open.weighted };
  const reason = describeDecision(event.data, outcome.machine, figures);
  for (const step of outcome.steps) {
    view.history.push({ round: afterRound, from: step.from, to: step.to, reason, cause: 'decision', duringRound: view.roundOpen });
  }
}
