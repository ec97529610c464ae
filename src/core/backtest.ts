import {
  EVENT_VERSION,
  type Command,
  type Decided,
  type EventBody,
  type GapflowEvent,
  type Outcome,
  type SessionSettings,
  type SettledEvent,
} from '../../events/index.js';
import { readCommand } from '../policies/index.js';
import type { ConvergenceState } from '../../machines/index.js';
import { decide } from './decide.js';
import { fold, initialView, settle } from './evolve.js';
import { closedRoundCount, roundCount } from './read-model.js';
import { Refusal } from './refusal.js';
import type { SessionView } from './view.js';

/*
 * A backtest: a recorded session's requests decided again, by today's rules
 * (the same `decide` and round judge a live session runs), under other
 * settings. Nothing here reads or writes a file: the caller hands the
 * events over and keeps the log as it was.
 */

/** The session settings a backtest may change: what `init` takes. */
export type BacktestSettings = Partial<
  Pick<SessionSettings, 'preset' | 'stallThreshold' | 'divergenceThreshold' | 'maxRounds' | 'criticalOverride' | 'policySettings'>
>;

/** A round whose close moved the session to DIVERGENCE_WARNING: where the loop puts a decision to the user. */
export interface Warning {
  round: number;
  /** `stall`, `critical`, `divergence`, or the verdict's own reason code (`redirect_requested`, …). */
  cause: string;
}

/** Where a session ended: the round closed last when it became COMPLETE, and how. */
export interface Stop {
  round: number;
  outcome: Outcome;
  /** `round`: a round close ended it (converged, limit); else the user decision that did (approve, abandon, …). */
  by: string;
}

/** What a run of the loop did: its warnings, its stop (null while it goes on), the rounds it closed and its state at the end. */
export interface Course {
  warnings: Warning[];
  stop: Stop | null;
  rounds: number;
  state: ConvergenceState;
}

/** Where a counterfactual had to stop following the record: the round it had reached, the record's line, and why. */
export interface Divergence {
  round: number;
  line: number;
  reason: string;
}

export interface Counterfactual extends Course {
  /** Null when the counterfactual followed the record to its end or to its own stop. */
  diverged: Divergence | null;
  /** The record's lines left unreplayed after the counterfactual stopped (0 when it ran to the end). */
  unreplayed: number;
}

/** What the recorded session did, read from the outcomes its lines carry (history is a fact, never re-judged). */
export function recordedCourse(events: readonly GapflowEvent[]): Course {
  const course = emptyCourse();
  const view = fold(events, (before, event) => {
    const settled = settle(before, event);
    if (settled) noteEvent(course, settled);
    return settled;
  });
  return { ...course, state: view.machine.state };
}

/**
 * The recorded session's requests decided afresh with `settings` over the
 * ones it started with. Each recorded user decision is replayed where the
 * counterfactual still accepts it; the first request today's rules refuse
 * there (a decision made in a warning this run never reached, work the
 * record went on with while this run waits for a decision) ends the run,
 * and says why. A run that reaches COMPLETE stops there.
 */
export function counterfactual(events: readonly GapflowEvent[], settings: BacktestSettings): Counterfactual {
  const recordedStates = statesBefore(events);
  const course = emptyCourse();
  // The fold's own working copy once it has one: each request is decided on the view its predecessors left, and the
  // replay stays one pass (a frozen copy per event made long sessions quadratic).
  let working = initialView();
  let left: Pick<Counterfactual, 'diverged' | 'unreplayed'> = { diverged: null, unreplayed: 0 };
  function* replayed(): Generator<SettledEvent> {
    // Events this run decided on its own that the record also holds as lines of their own (a round a policy's metrics closed).
    const automatic: { type: string; round: number | undefined }[] = [];
    for (const [index, event] of events.entries()) {
      const pending = automatic[0];
      if (pending && pending.type === event.type && pending.round === roundOf(event)) {
        automatic.shift();
        continue;
      }
      if (working.machine.state === 'COMPLETE') {
        left = { diverged: null, unreplayed: events.length - index };
        return;
      }
      // A snapshot's record is a fact, not a request (its findings are not kept): the gap events it made follow it, each decided afresh.
      if (event.type === 'findings.synced') {
        yield { ...event, seq: working.lastSeq + 1 };
        continue;
      }
      let decided: Decided[];
      try {
        decided = decide(working, requestOf(event, settings));
      } catch (error) {
        if (!(error instanceof Refusal)) throw error;
        const diverged = { round: roundNow(working), line: event.seq, reason: whyItDiverged(working, event, recordedStates[index]!, error) };
        left = { diverged, unreplayed: events.length - index };
        return;
      }
      const own = decided.findIndex((fact) => fact.type === event.type);
      for (const [i, fact] of decided.entries()) {
        if (i > own) automatic.push({ type: fact.type, round: roundOf(fact) });
        yield { v: EVENT_VERSION, seq: working.lastSeq + 1, id: i === own ? event.id : `${event.id}-${i}`, at: event.at, ...fact } as SettledEvent;
      }
    }
  }
  const view = fold(replayed(), (current, event) => {
    working = current;
    noteEvent(course, event);
    return event;
  });
  return { ...course, state: view.machine.state, rounds: closedRoundCount(view), ...left };
}

/**
 * The recorded line as a request: its body without the outcome it recorded,
 * the session's settings changed as asked; its policy's part read by that
 * policy's schema, as at the edge.
 */
function requestOf(event: GapflowEvent, settings: BacktestSettings): Command {
  if (event.type === 'session.started') return readCommand({ type: event.type, data: withSettings(event.data, settings) });
  const { outcome: _recorded, ...data } = event.data as Record<string, unknown>;
  return readCommand({ type: event.type, data } as EventBody);
}

/** The recorded settings with `settings` over them; a policy's settings are merged key by key. */
export function withSettings<T extends BacktestSettings>(recorded: T, settings: BacktestSettings): T {
  const { policySettings, ...thresholds } = settings;
  const merged = { ...recorded, ...thresholds };
  if (policySettings === undefined) return merged;
  const policies = { ...recorded.policySettings };
  for (const [name, values] of Object.entries(policySettings)) policies[name] = { ...policies[name], ...values };
  return { ...merged, policySettings: policies };
}

/** The machine's state before each recorded line, as the record has it. */
function statesBefore(events: readonly GapflowEvent[]): ConvergenceState[] {
  const states: ConvergenceState[] = [];
  fold(events, (before, event) => {
    states.push(before.machine.state);
    return settle(before, event);
  });
  return states;
}

/** Why the record's next line no longer fits the counterfactual, in the words of the two states. */
function whyItDiverged(view: SessionView, event: GapflowEvent, recordedState: ConvergenceState, refusal: Refusal): string {
  const here = view.machine.state;
  if (event.type === 'session.started') return `the settings are refused: ${refusal.message.replace(/^session\.started: /, '')}`;
  if (event.type === 'decision.made') {
    const kind = event.data.kind.replaceAll('_', '-');
    if (recordedState !== here) return `the record decides ${kind} in ${recordedState}; this run is ${here} there`;
    return `the record's ${kind} does not fit this run: ${refusal.message}`;
  }
  if (here === 'DIVERGENCE_WARNING' && recordedState !== here)
    return `this run warns here and the record has no decision for it (it goes on with ${event.type})`;
  if (here === 'PAUSED' && recordedState !== here) return `this run is PAUSED here and the record goes on with ${event.type}`;
  return `today's rules refuse the record's ${event.type} here: ${refusal.message}`;
}

function emptyCourse(): Course {
  return { warnings: [], stop: null, rounds: 0, state: 'CONVERGING' };
}

/** Notes what one settled event did to the course: a warning at a round close, a stop. */
function noteEvent(course: Course, event: SettledEvent): void {
  if (event.type === 'round.closed') {
    const { outcome } = event.data;
    const round = event.data.round ?? course.rounds + 1;
    course.rounds = round;
    if (outcome.steps.some((step) => step.to === 'DIVERGENCE_WARNING')) course.warnings.push({ round, cause: causeOf(outcome) });
    if (outcome.machine.state === 'COMPLETE' && course.stop === null) course.stop = { round, outcome: outcome.machine.outcome!, by: 'round' };
  } else if (event.type === 'decision.made' && event.data.outcome.machine.state === 'COMPLETE' && course.stop === null) {
    course.stop = { round: course.rounds, outcome: event.data.outcome.machine.outcome!, by: event.data.kind.replaceAll('_', '-') };
  }
}

const CAUSES: Readonly<Record<string, string>> = { critical_introduced: 'critical', weighted_net_below_divergence: 'divergence' };

function causeOf(outcome: SettledOf<'round.closed'>['data']['outcome']): string {
  if (outcome.steps.some((step) => step.to === 'STALLED')) return 'stall';
  return CAUSES[outcome.combined.reason] ?? outcome.combined.reason;
}

type SettledOf<T extends SettledEvent['type']> = Extract<SettledEvent, { type: T }>;

/** The round an event names, if it names one (round.started, round.closed, metrics.recorded). */
function roundOf(event: { data: object }): number | undefined {
  return 'round' in event.data && typeof event.data.round === 'number' ? event.data.round : undefined;
}

/** The round a counterfactual stands in: the open one, else the last closed. */
function roundNow(view: SessionView): number {
  return view.roundOpen ? roundCount(view) : closedRoundCount(view);
}
