import { enableMapSet, Immer, produce } from 'immer';
import type { SettledEvent } from '../../events/index.js';
import { freezeNew } from './view-codec.js';
import { changeSeverity, moveGap, openGap, splitGap } from './evolve-gaps.js';
import { renameGap } from './evolve-rename.js';
import { applyDecision, closeRound, recordMetrics, startRound } from './evolve-rounds.js';
import { lastClosedRound } from './inventory.js';
import { initialPolicies } from './policies.js';
import { verificationPassed } from './ping-pong.js';
import { policiesFor, resolveConfig } from './policy-settings.js';
import { DEFAULT_CONFIG } from './rules.js';
import type { SessionView } from './view.js';

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
    weightedOpenEnds: [],
    roundOpen: false,
    machine: { state: 'CONVERGING', flatCount: 0, outcome: null, pausedFrom: null },
    history: [],
    decisions: [],
    focus: [],
    roundsExtended: 0,
    baseline: null,
    agentSession: null,
    policies: initialPolicies(),
    openEnds: [],
    verification: null,
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
export function startFold<E extends { seq: number }>(settle: (view: SessionView, event: E, index: number) => SettledEvent | null): Folding<E> {
  const view = initialView();
  let taken = 0;
  let finished = false;
  return {
    take(event) {
      if (finished) throw new Error('this fold is finished: it takes no more events');
      const settled = settle(view, event, taken++);
      if (settled) apply(view, settled);
      else view.lastSeq = event.seq;
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
export function fold<E extends { seq: number }>(events: Iterable<E>, settle: (view: SessionView, event: E, index: number) => SettledEvent | null): SessionView {
  const folding = startFold(settle);
  for (const event of events) folding.take(event);
  return folding.finish();
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
  }
}
