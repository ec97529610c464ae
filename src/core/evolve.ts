import { enableMapSet, Immer, produce } from 'immer';
import type { EventOf, GapflowEvent, SessionSettings, SettledEvent, SettledOf, Severity } from '../../events/index.js';
import type { ConvergenceConfig } from '../../machines/index.js';
import { DEFAULT_POLICIES, defaultSettings, policyNamed, readStored } from '../policies/index.js';
import { renameGap } from './evolve-rename.js';
import { decisionEffect, describeDecision, describeRoundStep, settledExtensionEffect } from './explain.js';
import {
  FORECAST_ROUNDS,
  closedRoundCount,
  currentRound,
  roundCount,
  lastClosedRound,
  unfinishedGaps,
  ALTERNATING_ROUNDS,
  verificationPassed,
} from './read-model.js';
import { judgeDecision, judgeRoundClose } from './judge.js';
import {
  CLASS_FACTOR,
  claimedStillReported,
  DEFAULT_CONFIG,
  moveEffect,
  PRESETS,
  presetForBaseline,
  roundLimitProvisional,
  SEVERITY_WEIGHT,
  STATE_CLASS,
} from './rules.js';
import { freezeNew, NOTHING_LEFT_OUT, openingFigures } from './view-codec.js';
import type { Gap, PolicyView, RoundFigures, SessionView, SourceRecord } from './view.js';

enableMapSet();

export function initialView(): SessionView {
  return {
    settings: null,
    config: { ...DEFAULT_CONFIG },
    baselineGapCount: null,
    gaps: new Map(),
    renames: [],
    open: { count: 0, weighted: 0 },
    rounds: [],
    roundsBefore: 0,
    gapsLeftOut: NOTHING_LEFT_OUT,
    weightedOpenEnds: [],
    roundOpen: false,
    machine: { state: 'CONVERGING', flatCount: 0, outcome: null, pausedFrom: null },
    history: [],
    decisions: [],
    focus: [],
    roundsExtended: 0,
    baseline: null,
    agentSession: null,
    // Until session.started names them: the default policies, with no settings or records.
    policies: { enabled: [...DEFAULT_POLICIES], completeWhen: 'all', settings: new Map(), records: new Map() },
    openEnds: [],
    verification: null,
    sources: [],
    lastSeq: 0,
    lastAt: null,
    warningsRaised: 0,
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

/** A fold taken one event at a time: `take` each in order, then `finish` for the view. */
export interface Folding<E> {
  take(event: E): void;
  /** How many events were taken. */
  readonly taken: number;
  /** The view the events leave, frozen like any other view; the folding takes no more events after. */
  finish(): SessionView;
}

/**
 * Folds a history as a plain mutable fold (one immutable copy per event
 * would make replay quadratic): `settle` hands each event with its outcome
 * (or null: an old line that cannot be judged, folded as nothing but its
 * seq), seeing the view just before it. Taken one event at a time, so a
 * reader can fold the lines as it reads them and never hold the list.
 */
export function startFold<E extends { seq: number; at: string }>(settle: (view: SessionView, event: E, index: number) => SettledEvent | null): Folding<E> {
  const view = initialView();
  let taken = 0;
  let finished = false;
  return {
    take(event) {
      if (finished) throw new Error('this fold is finished: it takes no more events');
      const settled = settle(view, event, taken++);
      if (settled) apply(view, settled);
      else {
        view.lastSeq = event.seq;
        view.lastAt = event.at;
      }
    },
    get taken() {
      return taken;
    },
    finish() {
      finished = true;
      return freezeNew(view);
    },
  };
}

/** Folds a whole history at once (`startFold`); the result is frozen like any other view. */
export function fold<E extends { seq: number; at: string }>(
  events: Iterable<E>,
  settle: (view: SessionView, event: E, index: number) => SettledEvent | null,
): SessionView {
  const folding = startFold(settle);
  for (const event of events) folding.take(event);
  return folding.finish();
}

// What session.started makes of the policies and thresholds.

/*
 * What a session's settings make of its policies and thresholds: each
 * policy's settings as its schema reads them (the policies' `readStored`:
 * the schema runs there, not here), and the thresholds the session
 * runs under. The fold reads them when a session starts or replays; a
 * reader of the head checkpoint never does.
 */

/** The policies a session runs: the ones it named, else the default (the gap policy alone). */
export function enabledPolicies(settings: SessionSettings | null): string[] {
  return [...(settings?.policies ?? DEFAULT_POLICIES)];
}

/**
 * The view's policies once session.started is known. Settings were judged
 * when the session was decided; an old line's settings that today's schema
 * cannot read fall back to the policy's defaults (and `verify` names them).
 */
function policiesFor(settings: SessionSettings): PolicyView {
  const enabled = enabledPolicies(settings);
  const view: PolicyView = { enabled, completeWhen: settings.completeWhen ?? 'all', settings: new Map(), records: new Map() };
  for (const name of enabled) {
    const policy = policyNamed(name);
    // Only a policy that records metrics has settings and records of its own (the gap policy reads the session's).
    if (!policy || policy.readsGapEvents) continue;
    const read = readStored(policy, 'settings', settings.policySettings?.[policy.name] ?? {});
    view.settings.set(policy.name, read ? read.value : defaultSettings(policy));
    view.records.set(policy.name, []);
  }
  return view;
}

/** The session's stall threshold when one metric policy runs alone and names one (atoms' max_stall_count). */
export function soloStallThreshold(settings: SessionSettings): number | undefined {
  const enabled = enabledPolicies(settings);
  const only = enabled.length === 1 ? policyNamed(enabled[0]!) : undefined;
  if (!only?.soloStallThreshold) return undefined;
  const read = readStored(only, 'settings', settings.policySettings?.[only.name] ?? {});
  return read ? only.soloStallThreshold(read.value) : undefined;
}

/**
 * The thresholds a session runs under. `auto` is resolved from the baseline
 * gap count (known once the first round starts); a metric policy running
 * alone may name the stall threshold (atoms' max_stall_count); explicit
 * settings always win.
 */
export function resolveConfig(settings: SessionSettings, baselineGaps: number): ConvergenceConfig {
  const preset = settings.preset === 'auto' ? presetForBaseline(baselineGaps) : settings.preset;
  const fromPreset = preset ? PRESETS[preset] : {};
  const autoMaxRounds = settings.preset === 'auto' ? { maxRounds: Math.max(10, Math.ceil(0.6 * baselineGaps)) } : {};
  const keys = Object.keys(DEFAULT_CONFIG) as (keyof ConvergenceConfig)[];
  const explicit = Object.fromEntries(keys.filter((key) => settings[key] !== undefined).map((key) => [key, settings[key]]));
  const solo = soloStallThreshold(settings);
  return { ...DEFAULT_CONFIG, ...fromPreset, ...autoMaxRounds, ...(solo === undefined ? {} : { stallThreshold: solo }), ...explicit };
}

/**
 * The upcaster of outcomes: a stored event as the view folds it. A round
 * close or a decision written since version 3 carries what the machine
 * decided, and that is applied as it is. One written before has none: its
 * outcome is computed once, from the view just before it, by the session
 * rules of the versions that wrote it (R12 then bound only sessions without
 * the gap policy). Null for an old round close with no round open to judge
 * (nothing to apply; `verify` names it).
 */
export function settle(view: SessionView, event: GapflowEvent): SettledEvent | null {
  if (event.type === 'round.closed' && event.data.outcome === undefined) {
    const outcome = judgeRoundClose(view, 'before-v4');
    return outcome === null ? null : { ...event, data: { ...event.data, outcome } };
  }
  if (event.type === 'decision.made' && event.data.outcome === undefined) {
    return { ...event, data: { ...event.data, outcome: judgeDecision(view, event.data) } };
  }
  return event as SettledEvent;
}

/** Mutates `view` by one event: called on an immer draft, or on the private working copy of `fold`. */
function apply(view: SessionView, event: SettledEvent): void {
  view.lastSeq = event.seq;
  view.lastAt = event.at;
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
    case 'gap.split':
      return splitGap(view, event);
    case 'gap.renamed':
      return renameGap(view, event);
    case 'decision.made':
      return applyDecision(view, event);
    case 'session.bound':
      view.agentSession = event.data.agentSession;
      return;
    case 'verification.ran':
      view.verification = { seq: event.seq, afterRound: lastClosedRound(view)?.round ?? 0, ...event.data, passed: verificationPassed(event.data) };
      return;
    case 'findings.synced':
      return recordSnapshot(view, event);
  }
}

/*
 * Folding gap events: the inventory, R9's open counts, and the open round's
 * tallies (R5, R6, R7). Called on a working copy of the view (`apply`).
 */

/**
 * R19: a close recorded by the build before R20's take-back counted a
 * duplicate reopened in its round as withdrawn and as new; when the
 * recorded figures say so, the lists and severity rows are put back to
 * match them. A close recorded under today's rule drops what was kept.
 */
function settleTakenBack(round: RoundFigures, recordedWithdrawn: number): void {
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
  // A gap just opened (not reopened) is in no list of the round yet: ids are never reused, and a rename renames the lists.
  if (gap.severity === 'CRITICAL') noteCritical(round, gap.id, 'both', !reopened);
}

/**
 * Notes a CRITICAL introduction (R5). R29 changed which moves are one: a
 * parked gap escalated to CRITICAL is not (`before-r29` notes only what the
 * older rule counted), one that returns to an open state as CRITICAL is
 * (`r29`: only today's rule). A round whose rules disagree keeps the older
 * list apart (`criticalBeforeR29`), for a close recorded without its outcome
 * that is judged as it was then (R19).
 */
function noteCritical(round: RoundFigures, id: string, rule: 'both' | 'r29' | 'before-r29' = 'both', fresh = false): void {
  // `fresh`: the id is known to be in neither list, so neither is searched (a search of a draft's array walks its
  // proxy: catching up on 50,000 gaps opened in one round, 12,500 of them CRITICAL, took 10 s).
  if (rule !== 'both' && round.criticalBeforeR29 === undefined) round.criticalBeforeR29 = [...round.criticalIntroduced];
  if (rule !== 'before-r29' && (fresh || !round.criticalIntroduced.includes(id))) round.criticalIntroduced.push(id);
  const before = round.criticalBeforeR29;
  if (before !== undefined && rule !== 'r29' && (fresh || !before.includes(id))) before.push(id);
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
    ...(event.data.source === undefined ? {} : { source: event.data.source }),
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
  const round = currentRound(view);
  flagOutsideFocus(view, round, gap.id);
  const wasParked = STATE_CLASS[gap.state] === 'parked';
  countPingPong(gap, effect, gap.state);
  const claim = claimedStillReported(gap, event.data.by, event.data.to);
  if (claim) noteClaim(view, round, gap.id, event.data.by!);
  setState(view, gap, event.data.to);
  closedBy(gap, event.data.by);
  // A claim stands until the gap closes again, whatever later snapshots change elsewhere.
  if (claim) gap.claimed = true;
  else if (STATE_CLASS[gap.state] === 'closed') delete gap.claimed;
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

/** Which source's snapshot closed the gap: the move's, or none when it was closed by hand; an open gap has none. */
function closedBy(gap: Gap, by: string | undefined): void {
  if (STATE_CLASS[gap.state] === 'closed' && by !== undefined) gap.closedBy = by;
  else delete gap.closedBy;
}

/** A claim its source's snapshot still reported, named in the round it was reopened in and in the source's last snapshot (which the write records first). */
function noteClaim(view: SessionView, round: RoundFigures | null, id: string, source: string): void {
  if (round) (round.claimed ??= []).push(id);
  view.sources.find((record) => record.source === source)?.claimed.push(id);
}

/** A source's snapshot: its record replaces the source's last one (the gap events it made follow it). */
function recordSnapshot(view: SessionView, event: EventOf<'findings.synced'>): void {
  const record: SourceRecord = { ...event.data, seq: event.seq, at: event.at, round: view.roundOpen ? roundCount(view) : 0, claimed: [] };
  const at = view.sources.findIndex((known) => known.source === event.data.source);
  if (at === -1) view.sources.push(record);
  else view.sources[at] = record;
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
function splitGap(view: SessionView, event: EventOf<'gap.split'>): void {
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

function changeSeverity(view: SessionView, event: EventOf<'gap.severity_changed'>): void {
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

/*
 * Folding rounds, metrics and decisions: what the machine decided is applied
 * as recorded (R19). Called on a working copy of the view (`apply`).
 */

function startRound(view: SessionView, event: EventOf<'round.started'>): void {
  if (event.data.round === 1 && view.settings) {
    view.baselineGapCount = unfinishedGaps(view.gaps.values()).length;
    const provisional = roundLimitProvisional(view);
    const config = resolveConfig(view.settings, view.baselineGapCount);
    // An extension decided before round 1 raises the limit round 1 resolves (an `auto` preset's included).
    view.config = { ...config, maxRounds: config.maxRounds + view.roundsExtended };
    if (provisional) settleExtensions(view, config.maxRounds);
  }
  const round = openingFigures(event.data.round, view.open.count, view.open.weighted);
  round.kind = event.data.kind ?? 'work';
  view.rounds.push(round);
  view.roundOpen = true;
}

/**
 * R24: the extensions made before round 1 under preset auto added their
 * rounds to a limit not yet known; now it is, each says the limit it left.
 * (A line that recorded auto's provisional limit reads the same way: the
 * session has run under the settled limit plus its rounds all along.)
 */
function settleExtensions(view: SessionView, settled: number): void {
  let limit = settled;
  for (const decision of view.decisions) {
    if (decision.kind !== 'extend_rounds') continue;
    limit += decision.rounds ?? 0;
    decision.effect = settledExtensionEffect(decision.rounds ?? 0, limit, settled);
  }
}

/**
 * Keeps one policy's metrics as its schema reads them (defaults filled in),
 * so verdicts never see raw input; metrics today's schema cannot read (an
 * old line) are left out, and `verify` names them.
 */
function recordMetrics(view: SessionView, event: EventOf<'metrics.recorded'>): void {
  const policy = policyNamed(event.data.policy);
  const records = view.policies.records.get(event.data.policy);
  const read = policy && readStored(policy, 'metrics', event.data.metrics);
  if (!records || !read) return;
  records.push({ round: event.data.round ?? roundCount(view), metrics: read.value });
}

/** Applies what the machine decided when the round closed: the recorded figures, verdicts and steps. */
function closeRound(view: SessionView, event: SettledOf<'round.closed'>): void {
  const round = view.rounds.at(-1);
  // Only the open round can close; a close naming another round (a hand-edited log) is not applied.
  if (!round || !view.roundOpen || round.round !== event.data.round) return;
  const { figures, verdicts, combined, machine, steps } = event.data.outcome;
  // Before the recorded figures are applied: whatever the lists are settled to, the figures are the recorded ones.
  settleTakenBack(round, figures.withdrawn ?? 0);
  // Field by field rather than one spread: a spread of the figures was most of a close's cost in a replay.
  round.openEnd = figures.openEnd;
  round.weightedOpenEnd = figures.weightedOpenEnd;
  round.resolved = figures.resolved;
  round.new = figures.new;
  round.weightedResolved = figures.weightedResolved;
  round.weightedNew = figures.weightedNew;
  round.criticalIntroduced = [...figures.criticalIntroduced];
  // R20: a close records its withdrawn figures only when there are some (every line before version 5 has none).
  round.withdrawn = figures.withdrawn ?? 0;
  round.weightedWithdrawn = figures.weightedWithdrawn ?? 0;
  round.unweightedNet = figures.resolved - figures.new;
  round.weightedNet = figures.weightedResolved - figures.weightedNew;
  round.verdicts = verdicts;
  round.combined = combined;
  round.state = machine.state;
  // R4: no flat count for a round that ended in a warning; none either for the one that ended the session.
  round.flatCount = machine.state !== 'DIVERGENCE_WARNING' && machine.state !== 'COMPLETE' ? machine.flatCount : null;
  // The recorded outcome settled the round's CRITICAL introductions; the older rule's list served only to judge it.
  delete round.criticalBeforeR29;
  view.weightedOpenEnds = [...view.weightedOpenEnds, figures.weightedOpenEnd].slice(-FORECAST_ROUNDS);
  view.roundOpen = false;
  view.openEnds = [...view.openEnds, { round: round.round, openEnd: figures.openEnd }].slice(-ALTERNATING_ROUNDS);
  const from = view.machine.state;
  view.machine = { ...machine };
  for (const step of steps.length > 0 ? steps : [{ from, to: from }]) {
    const reason = describeRoundStep(step, round, view.config, machine, combined, view.policies);
    view.history.push({ round: round.round, from: step.from, to: step.to, reason, cause: 'round', duringRound: false });
    if (step.to === 'DIVERGENCE_WARNING') view.warningsRaised += 1;
  }
}

function applyDecision(view: SessionView, event: SettledOf<'decision.made'>): void {
  const { kind, outcome } = event.data;
  const gaps = event.data.gaps ?? [];
  const afterRound = closedRoundCount(view);
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
  } else if (kind === 'prioritize_critical' || kind === 'prioritize') {
    view.focus = [...gaps];
  } else if (kind === 'extend_rounds') {
    const rounds = event.data.rounds ?? 0;
    view.roundsExtended += rounds;
    view.config = { ...view.config, maxRounds: outcome.maxRounds ?? view.config.maxRounds + rounds };
  }
  const figures = {
    openCount: view.open.count,
    weightedOpen: view.open.weighted,
    maxRounds: view.config.maxRounds,
    limitProvisional: kind === 'extend_rounds' && roundLimitProvisional(view),
  };
  view.decisions.push({
    afterRound,
    duringRound: view.roundOpen,
    kind,
    gaps: [...gaps],
    rationale: event.data.rationale ?? null,
    acknowledgment: event.data.acknowledgment ?? null,
    rounds: event.data.rounds ?? null,
    effect: decisionEffect(event.data, outcome, figures),
  });
  view.machine = { ...outcome.machine };
  const reason = describeDecision(event.data, outcome, figures);
  for (const step of outcome.steps) {
    view.history.push({ round: afterRound, from: step.from, to: step.to, reason, cause: 'decision', duringRound: view.roundOpen });
  }
}
