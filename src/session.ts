import { nanoid } from 'nanoid';
import {
  EVENT_VERSION,
  type BodyInputOf,
  type DecisionKind,
  type EventBody,
  type EventBodyInput,
  type GapflowEvent,
  type GapState,
  type SessionSettings,
  type Severity,
} from '../events/index.js';
import {
  check,
  decide,
  evolve,
  fold,
  initialView,
  parseBody,
  Refusal,
  toStateJson,
  type HistoryEntry,
  type SessionView,
  type StateJson,
} from './core/index.js';
import { FileLog, LogError, MemoryLog, type EventLog } from './log/index.js';
import { renderPrompt, renderRoundReport, renderStatus, renderSummary } from './render/index.js';
import { LiveActor, type ConvergenceActor, type InspectOption } from './live.js';

export interface SessionOptions {
  /** Where timestamps come from (the core never reads a clock). */
  clock?: () => Date;
  /** Where event ids come from. */
  newId?: () => string;
  /**
   * Run a live XState actor beside the session, wired to this inspection
   * observer (e.g. `createWebSocketInspector().inspect` from @statelyai/inspect).
   * On open it is replayed the whole log, event by event.
   */
  inspect?: InspectOption;
}

/** One request of a batch (`Session.recordAll`): what to record, and optionally its event's id. */
export interface BatchRequest {
  body: EventBodyInput;
  id?: string | undefined;
}

/** A state change, as a subscriber hears of it. */
export type StateChange = Omit<HistoryEntry, 'rule'>;
export type StateListener = (change: StateChange, view: SessionView) => void;

export type DecisionOptions = Pick<BodyInputOf<'decision.made'>['data'], 'gaps' | 'rationale'> & {
  /** Approve over open CRITICAL gaps: the user accepts that risk (recorded as the `critical_risk` acknowledgment). */
  acceptCritical?: boolean | undefined;
};

/**
 * Rebuilds the view from stored events, checking each against the view
 * before it as if it were appended now, so a hand-edited log that breaks a
 * rule is refused at the line that breaks it.
 */
export function replay(
  events: readonly GapflowEvent[],
  where = 'log',
  observe?: (view: SessionView, event: GapflowEvent) => void,
): SessionView {
  if (events.length === 0) throw new LogError(`${where} is empty: it must begin with session.started`);
  return fold(events, (view, event, index) => {
    try {
      check(view, event);
    } catch (error) {
      if (error instanceof Refusal) throw new LogError(`${where} line ${index + 1}: ${error.message}`);
      throw error;
    }
    observe?.(view, event);
  });
}

/**
 * A convergence session over an event log: the library API an embedded
 * mediator uses, and all the CLI calls. Each request is decided against the
 * current view, appended as a whole or refused with nothing written, then
 * folded into the view.
 */
export class Session {
  #view: SessionView;
  readonly #listeners = new Set<StateListener>();
  readonly #clock: () => Date;
  readonly #newId: () => string;
  readonly #live: LiveActor | null;

  private constructor(
    readonly log: EventLog,
    view: SessionView,
    options: SessionOptions,
    live: LiveActor | null = options.inspect ? new LiveActor(options.inspect) : null,
  ) {
    this.#view = view;
    this.#clock = options.clock ?? (() => new Date());
    this.#newId = options.newId ?? (() => nanoid());
    this.#live = live;
    live?.sync(view);
  }

  /** Starts a new session in `log`; refuses if the log already holds one. */
  static create(log: EventLog, settings: SessionSettings = {}, options: SessionOptions = {}): Session {
    const session = new Session(log, initialView(), options);
    if (log.exists()) throw new LogError(`${log.location} already holds a session`);
    const started = session.#prepare([parseBody({ type: 'session.started', data: settings })]);
    log.create(started.events);
    session.#view = started.view;
    session.#live?.sync(started.view);
    return session;
  }

  /** Opens the session stored in `log`, replaying every event (into the live actor too, when inspected). */
  static open(log: EventLog, options: SessionOptions = {}): Session {
    const live = options.inspect ? new LiveActor(options.inspect) : null;
    const view = replay(log.read(), log.location, live ? (before, event) => live.feed(before, event) : undefined);
    return new Session(log, view, options, live);
  }

  get view(): SessionView {
    return this.#view;
  }

  /** The live actor mirroring this session, when it was opened with `inspect`; else null. */
  get actor(): ConvergenceActor | null {
    return this.#live?.actor ?? null;
  }

  /** Records one request (an event body); returns the events appended for it. */
  record(input: EventBodyInput): GapflowEvent[] {
    const prepared = this.#prepare(decide(this.#view, input));
    this.log.append(prepared.events);
    prepared.events.forEach((event, i) => this.#live?.feed(prepared.before[i]!, event));
    this.#commit(prepared.view);
    return prepared.events;
  }

  /**
   * Records a batch all-or-nothing: each request is decided against the view
   * the ones before it leave, then the whole batch is appended with one write;
   * if any one is refused, nothing is written and the Refusal names it
   * (`where(index)`). A request's `id` becomes its own event's id (an automatic
   * `round.started` before it gets a fresh one). Returns each request's events.
   */
  recordAll(requests: readonly BatchRequest[], where: (index: number) => string = (i) => `request ${i + 1}`): GapflowEvent[][] {
    let view = this.#view;
    const groups: GapflowEvent[][] = [];
    const before: SessionView[] = [];
    const ids = new Map<string, number>();
    requests.forEach((request, index) => {
      try {
        if (request.id !== undefined) {
          const first = ids.get(request.id);
          if (first !== undefined) throw new Refusal(`event id ${request.id} is already used by ${where(first)}`);
          ids.set(request.id, index);
        }
        const prepared = this.#prepare(decide(view, request.body), view, request.id);
        groups.push(prepared.events);
        before.push(...prepared.before);
        view = prepared.view;
      } catch (error) {
        if (error instanceof Refusal) throw new Refusal(`${where(index)}: ${error.message}`, error.remedy);
        throw error;
      }
    });
    const events = groups.flat();
    this.log.append(events);
    events.forEach((event, i) => this.#live?.feed(before[i]!, event));
    this.#commit(view);
    return groups;
  }

  /** Refuses `input` as `record` would, without writing: for an edge that must do work (run a command) only when the record can go in. */
  dryRun(input: EventBodyInput): void {
    this.#prepare(decide(this.#view, input));
  }

  openGap(id: string, severity: Severity, options: Omit<BodyInputOf<'gap.opened'>['data'], 'id' | 'severity'> = {}) {
    return this.record({ type: 'gap.opened', data: { id, severity, ...options } });
  }

  moveGap(id: string, to: GapState, options: Omit<BodyInputOf<'gap.moved'>['data'], 'id' | 'to'> = {}) {
    return this.record({ type: 'gap.moved', data: { id, to, ...options } });
  }

  changeSeverity(id: string, to: Severity) {
    return this.record({ type: 'gap.severity_changed', data: { id, to } });
  }

  startRound() {
    return this.record({ type: 'round.started', data: { round: this.#view.rounds.length + 1 } });
  }

  closeRound() {
    // With no round ever started there is no round to name; `check` refuses it for that reason.
    return this.record({ type: 'round.closed', data: { round: Math.max(1, this.#view.rounds.length) } });
  }

  /**
   * Records one policy's metrics for the open round (starting the next round
   * when none is open). Without the gap policy the round closes itself once
   * every enabled policy has recorded for it.
   */
  recordMetrics(policy: string, metrics: Record<string, unknown>) {
    return this.record({ type: 'metrics.recorded', data: { policy, metrics } });
  }

  decide(kind: DecisionKind, options: DecisionOptions = {}) {
    const { gaps, acceptCritical, rationale } = options;
    const acknowledgment = acceptCritical ? ('critical_risk' as const) : undefined;
    return this.record({ type: 'decision.made', data: { kind, gaps, acknowledgment, rationale } });
  }

  state(): StateJson {
    return toStateJson(this.#view);
  }

  status(): string {
    return renderStatus(this.#view);
  }

  /** The decision prompt, or null when no decision is due. */
  prompt(): string | null {
    return renderPrompt(this.#view);
  }

  /** The final summary, or null before COMPLETE. */
  summary(): string | null {
    return renderSummary(this.#view);
  }

  roundReport(round?: number): string {
    return renderRoundReport(this.#view, round);
  }

  /** Calls `listener` on every state change from now on; returns the unsubscribe. */
  subscribe(listener: StateListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Checks and stamps a batch against the view as it will be, without touching
   * the log. `lastId` names the last event (the one the caller asked for);
   * `before` holds the view each event met, for the live actor.
   */
  #prepare(
    bodies: readonly EventBody[],
    from = this.#view,
    lastId?: string,
  ): { events: GapflowEvent[]; view: SessionView; before: SessionView[] } {
    let view = from;
    const events: GapflowEvent[] = [];
    const before: SessionView[] = [];
    for (const [index, body] of bodies.entries()) {
      check(view, body);
      const id = index === bodies.length - 1 && lastId !== undefined ? lastId : this.#newId();
      const event = { v: EVENT_VERSION, seq: view.lastSeq + 1, id, at: this.#clock().toISOString(), ...body } as GapflowEvent;
      before.push(view);
      view = evolve(view, event);
      events.push(event);
    }
    return { events, view, before };
  }

  #commit(next: SessionView): void {
    const before = this.#view.history.length;
    this.#view = next;
    for (const entry of next.history.slice(before)) {
      if (entry.from === entry.to) continue;
      const { rule: _rule, ...change } = entry;
      for (const listener of this.#listeners) listener(change, next);
    }
  }
}

/** A session in `<dir>/events.jsonl`, the embedded default. */
export function createFileSession(dir: string, settings: SessionSettings = {}, options?: SessionOptions): Session {
  return Session.create(new FileLog(dir), settings, options);
}

export function openFileSession(dir: string, options?: SessionOptions): Session {
  return Session.open(new FileLog(dir), options);
}

/** A session held in memory, for embedding. */
export function createMemorySession(settings: SessionSettings = {}, options?: SessionOptions): Session {
  return Session.create(new MemoryLog(), settings, options);
}
