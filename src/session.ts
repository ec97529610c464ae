import { nanoid } from 'nanoid';
import {
  EVENT_VERSION,
  EventId,
  formatIssue,
  type BodyInputOf,
  type Decided,
  type DecisionKind,
  type EventBodyInput,
  type GapflowEvent,
  type GapState,
  type SessionSettings,
  type SettledEvent,
  type Severity,
} from '../events/index.js';
import {
  auditHistory,
  decide,
  evolveMany,
  fold,
  initialView,
  parseBody,
  Refusal,
  settle,
  toStateJson,
  type Finding,
  type HistoryEntry,
  type SessionView,
  type StateJson,
} from './core/index.js';
import { FileLog, inspectLog, LogError, MemoryLog, type EventLog, type LogInspection } from './log/index.js';
import { renderPrompt, renderRoundReport, renderStatus, renderSummary } from './render/index.js';
import { frameOf, LiveActor, type ActorFrame, type ConvergenceActor, type InspectOption } from './live.js';

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

/** How one write may be made safe to retry and safe against a log that moved on. */
export interface WriteOptions {
  /** Append only if the log's last seq is this (0: no log yet); else refuse. */
  expectSeq?: number | undefined;
  /**
   * The id of the event the request records. If an event with this id is
   * already in the log, nothing is appended and that event is returned: a
   * retry after a lost answer records nothing twice.
   */
  eventId?: string | undefined;
}

/** A state change, as a subscriber hears of it. */
export type StateChange = Omit<HistoryEntry, 'rule'>;
export type StateListener = (change: StateChange, view: SessionView) => void;

export type DecisionOptions = Pick<BodyInputOf<'decision.made'>['data'], 'gaps' | 'rationale'> & {
  /** Approve over open CRITICAL gaps: the user accepts that risk (recorded as the `critical_risk` acknowledgment). */
  acceptCritical?: boolean | undefined;
};

/** What a reader says of an empty log: which holds no session, and both ways out. */
function emptyLog(where: string): string {
  return `${where} line 1: the log is empty, so no session lives there: \`gapflow init\` starts one (or \`gapflow repair\` removes the file)`;
}

/**
 * Rebuilds the view from stored events. History is a fact (RULINGS R19):
 * the lines were checked when they were read (whole, chained, in schema),
 * and each event is applied as it was recorded, never judged again by
 * today's rules (`verify` audits them). `observe` sees each event, settled,
 * with the view just before it.
 */
export function replay(
  events: readonly GapflowEvent[],
  where = 'log',
  observe?: (view: SessionView, event: SettledEvent) => void,
): SessionView {
  if (events.length === 0) {
    throw new LogError(emptyLog(where), 1);
  }
  return fold(events, (view, event) => {
    const settled = settle(view, event);
    if (settled) observe?.(view, settled);
    return settled;
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
  /** Every event by id, for idempotent appends. A Map: ids such as `__proto__` are plain keys. */
  readonly #byId = new Map<string, GapflowEvent>();
  /** What the last write appended (empty: a retry found in the log); null before any write. */
  #lastAppended: readonly GapflowEvent[] | null = null;
  readonly #live: LiveActor | null;

  private constructor(
    readonly log: EventLog,
    view: SessionView,
    options: SessionOptions,
    events: readonly GapflowEvent[],
    live: LiveActor | null = options.inspect ? new LiveActor(options.inspect) : null,
  ) {
    this.#view = view;
    this.#clock = options.clock ?? (() => new Date());
    this.#newId = options.newId ?? (() => nanoid());
    for (const event of events) this.#byId.set(event.id, event);
    this.#live = live;
    live?.sync(view);
  }

  /**
   * Starts a new session in `log`; refuses if the log already holds one,
   * unless `write.eventId` names its first event (a retried create: the
   * session is opened instead).
   */
  static create(log: EventLog, settings: SessionSettings = {}, options: SessionOptions = {}, write: WriteOptions = {}): Session {
    const { expectSeq, eventId } = checkWriteOptions(write);
    if (log.exists()) return Session.#retriedCreate(log, options, eventId);
    if (expectSeq !== undefined && expectSeq !== 0) {
      throw new Refusal(`expected the log to end at seq ${expectSeq}, but there is no log yet (seq 0)`);
    }
    const session = new Session(log, initialView(), options, []);
    const started = session.#prepare(decide(session.#view, { type: 'session.started', data: settings }), eventId);
    try {
      log.create(started.events);
    } catch (error) {
      // Another init with the same id won the race: this one is its retry.
      if (error instanceof LogError && log.exists()) return Session.#retriedCreate(log, options, eventId);
      throw error;
    }
    for (const event of started.events) session.#byId.set(event.id, event);
    session.#view = started.view;
    session.#live?.sync(started.view);
    session.#lastAppended = started.events;
    return session;
  }

  /** A create that finds a log: the same session if its first event has this id (a retried init), else refused. */
  static #retriedCreate(log: EventLog, options: SessionOptions, eventId: string | undefined): Session {
    if (eventId !== undefined) {
      const events = log.read();
      if (events[0]?.id === eventId) {
        const existing = Session.#replayed(log, events, options);
        existing.#lastAppended = [];
        return existing;
      }
    }
    throw new LogError(`${log.location} already holds a session`);
  }

  /** Opens the session stored in `log`, replaying every event (into the live actor too, when inspected). */
  static open(log: EventLog, options: SessionOptions = {}): Session {
    return Session.#replayed(log, log.read(), options);
  }

  static #replayed(log: EventLog, events: readonly GapflowEvent[], options: SessionOptions): Session {
    const live = options.inspect ? new LiveActor(options.inspect) : null;
    const view = replay(events, log.location, live ? (before, event) => live.feed(before, event) : undefined);
    return new Session(log, view, options, events, live);
  }

  get view(): SessionView {
    return this.#view;
  }

  /** The live actor mirroring this session, when it was opened with `inspect`; else null. */
  get actor(): ConvergenceActor | null {
    return this.#live?.actor ?? null;
  }

  /** Whether the last write appended, or found its event id already in the log (null before any). */
  get lastWrite(): 'appended' | 'duplicate' | null {
    if (this.#lastAppended === null) return null;
    return this.#lastAppended.length > 0 ? 'appended' : 'duplicate';
  }

  /** The events the last write appended: none for a retry found in the log; for a batch, only its new events. */
  get lastAppended(): readonly GapflowEvent[] {
    return this.#lastAppended ?? [];
  }

  /**
   * Records one request (an event body); returns the events appended for it,
   * or, when `write.eventId` is already in the log, that event (appending
   * nothing). Holding the log, it first catches up with what other writers
   * appended, then checks `write.expectSeq`, then decides.
   */
  record(input: EventBodyInput, write: WriteOptions = {}): GapflowEvent[] {
    return this.recordAll([{ body: input, id: write.eventId }], null, { expectSeq: write.expectSeq })[0]!;
  }

  /**
   * Records a batch all-or-nothing, holding the log: each request is decided
   * against the view the ones before it leave, then the new events go out in
   * one write; if any one is refused, nothing is written and the Refusal names
   * it (`where(index)`; null: as it is, for a single request). A request's
   * `id` becomes its own event's id (an automatic `round.started` before it
   * gets a fresh one); a request whose id is already in the log is a retry
   * and records nothing again. Returns each request's events.
   */
  recordAll(
    requests: readonly BatchRequest[],
    where: ((index: number) => string) | null = (i) => `request ${i + 1}`,
    write: Pick<WriteOptions, 'expectSeq'> = {},
  ): GapflowEvent[][] {
    const { expectSeq } = checkWriteOptions(write);
    const outcome = this.log.update<{ groups: GapflowEvent[][]; events: GapflowEvent[]; frames: ActorFrame[]; view: SessionView }>(
      this.#view.lastSeq,
      (fresh) => {
        this.#catchUp(fresh);
        if (!this.#isRetry(requests)) refuseMovedOn(expectSeq, this.#view.lastSeq);
        const groups: GapflowEvent[][] = [];
        const events: GapflowEvent[] = [];
        const frames: ActorFrame[] = [];
        const ids = new Map<string, number>();
        // One working copy for the whole batch: decided, checked and folded request by request.
        const { view } = evolveMany(this.#view, (working, step) => {
          requests.forEach((request, index) => {
            try {
              const { eventId } = checkWriteOptions({ eventId: request.id });
              if (eventId !== undefined) {
                const first = ids.get(eventId);
                if (first !== undefined) throw new Refusal(`event id ${eventId} is already used by ${where?.(first) ?? 'another request'}`);
                ids.set(eventId, index);
                const original = this.#byId.get(eventId);
                if (original) return void groups.push([sameRequest(original, request.body)]);
              }
              const stamped = this.#stamp(decide(working, request.body), eventId, working, step, frames);
              groups.push(stamped);
              for (const event of stamped) events.push(event);
            } catch (error) {
              if (error instanceof Refusal && where) throw new Refusal(`${where(index)}: ${error.message}`, error.remedy);
              throw error;
            }
          });
        });
        return { events, result: { groups, events, frames, view } };
      },
    );
    if (outcome.events.length === 0) {
      this.#lastAppended = [];
      return outcome.groups;
    }
    this.#appended(outcome.events, outcome.frames, outcome.view);
    return outcome.groups;
  }

  /**
   * Judges `input` as `record` would, writing nothing, for an edge that must
   * do work (run a command) only when the record will go in: 'duplicate' when
   * `write.eventId` is already in the log (the retry will return it), 'new'
   * when it would be appended; otherwise refuses as `record` would.
   */
  dryRun(input: EventBodyInput, write: WriteOptions = {}): 'new' | 'duplicate' {
    const { expectSeq, eventId } = checkWriteOptions(write);
    const original = eventId === undefined ? undefined : this.#byId.get(eventId);
    if (original) {
      sameRequest(original, input);
      return 'duplicate';
    }
    refuseMovedOn(expectSeq, this.#view.lastSeq);
    decide(this.#view, input);
    return 'new';
  }

  /**
   * A batch that was sent before (every line carries an id, and the ones
   * already in the log come first: the write went in, or tore after them) is
   * judged by its ids, not by where the log ends now.
   */
  #isRetry(requests: readonly BatchRequest[]): boolean {
    if (requests.length === 0 || requests.some((r) => r.id === undefined)) return false;
    const found = requests.map((r) => this.#byId.has(r.id!));
    const firstNew = found.indexOf(false);
    return found[0] === true && (firstNew === -1 || found.slice(firstNew).every((f) => !f));
  }

  /** After a write: index the new events, show them to the live actor, then move the view on. */
  #appended(events: readonly GapflowEvent[], frames: readonly ActorFrame[], view: SessionView): void {
    for (const event of events) this.#byId.set(event.id, event);
    for (const frame of frames) this.#live?.play(frame);
    this.#commit(view);
    this.#lastAppended = events;
  }

  openGap(id: string, severity: Severity, options: Omit<BodyInputOf<'gap.opened'>['data'], 'id' | 'severity'> = {}, write?: WriteOptions) {
    return this.record({ type: 'gap.opened', data: { id, severity, ...options } }, write);
  }

  moveGap(id: string, to: GapState, options: Omit<BodyInputOf<'gap.moved'>['data'], 'id' | 'to'> = {}, write?: WriteOptions) {
    return this.record({ type: 'gap.moved', data: { id, to, ...options } }, write);
  }

  changeSeverity(id: string, to: Severity, write?: WriteOptions) {
    return this.record({ type: 'gap.severity_changed', data: { id, to } }, write);
  }

  startRound(write?: WriteOptions) {
    return this.record({ type: 'round.started', data: { round: this.#view.rounds.length + 1 } }, write);
  }

  closeRound(write?: WriteOptions) {
    // With no round ever started there is no round to name; `check` refuses it for that reason.
    return this.record({ type: 'round.closed', data: { round: Math.max(1, this.#view.rounds.length) } }, write);
  }

  /**
   * Records one policy's metrics for the open round (starting the next round
   * when none is open). Without the gap policy the round closes itself once
   * every enabled policy has recorded for it.
   */
  recordMetrics(policy: string, metrics: Record<string, unknown>, write?: WriteOptions) {
    return this.record({ type: 'metrics.recorded', data: { policy, metrics } }, write);
  }

  decide(kind: DecisionKind, options: DecisionOptions = {}, write?: WriteOptions) {
    const { gaps, acceptCritical, rationale } = options;
    const acknowledgment = acceptCritical ? ('critical_risk' as const) : undefined;
    return this.record({ type: 'decision.made', data: { kind, gaps, acknowledgment, rationale } }, write);
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

  /** Folds in what other writers appended, as replay does. */
  #catchUp(fresh: readonly GapflowEvent[]): void {
    if (fresh.length === 0) return;
    const { view } = evolveMany(this.#view, (working, step) => {
      for (const event of fresh) {
        const settled = settle(working, event);
        this.#byId.set(event.id, event);
        if (!settled) {
          working.lastSeq = event.seq;
          continue;
        }
        this.#live?.feed(working, settled);
        step(settled);
      }
    });
    this.#commit(view);
  }

  /**
   * Checks and stamps a request's events against the view as it will be,
   * without touching the log. A given event id goes to the request's own
   * event: the one of its type (before it may come the round it starts,
   * after it the round a policy's metrics close).
   */
  #prepare(bodies: readonly Decided[], eventId?: string): { events: GapflowEvent[]; view: SessionView } {
    const { view, result: events } = evolveMany(this.#view, (working, step) => this.#stamp(bodies, eventId, working, step, []));
    return { events, view };
  }

  /** Checks each body against the working view, stamps it as the next event and folds it in; keeps the live actor's frames. */
  #stamp(
    bodies: readonly Decided[],
    eventId: string | undefined,
    working: SessionView,
    step: (event: SettledEvent) => void,
    frames: ActorFrame[],
  ): SettledEvent[] {
    const events: SettledEvent[] = [];
    const own = ownIndex(bodies);
    for (const [index, body] of bodies.entries()) {
      const id = eventId !== undefined && index === own ? eventId : this.#newId();
      const event = { v: EVENT_VERSION, seq: working.lastSeq + 1, id, at: this.#clock().toISOString(), ...body } as SettledEvent;
      if (this.#live) {
        const frame = frameOf(working, event);
        if (frame) frames.push(frame);
      }
      step(event);
      events.push(event);
    }
    return events;
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

/** Which of the events `decide` made for one request is the request's own: not an automatic round start or close around it. */
function ownIndex(bodies: readonly Decided[]): number {
  const own = bodies.findIndex((b, i) => !(i === 0 && b.type === 'round.started' && bodies.length > 1) && !(i > 0 && b.type === 'round.closed'));
  return own === -1 ? bodies.length - 1 : own;
}

/** `expectSeq`: the log must still end where the caller read it. */
function refuseMovedOn(expectSeq: number | undefined, lastSeq: number): void {
  if (expectSeq !== undefined && expectSeq !== lastSeq) {
    throw new Refusal(`expected the log to end at seq ${expectSeq}, but it ends at seq ${lastSeq}: it has moved on; read the state again before deciding`);
  }
}

/** Validates write options at the edge: one line naming the option. */
function checkWriteOptions(write: WriteOptions): WriteOptions {
  const { expectSeq, eventId } = write;
  if (expectSeq !== undefined && (!Number.isSafeInteger(expectSeq) || expectSeq < 0)) {
    throw new Refusal(`the expected seq must be a whole number from 0, not ${String(expectSeq).slice(0, 40)}`);
  }
  if (eventId !== undefined) {
    const parsed = EventId.safeParse(eventId);
    if (!parsed.success) throw new Refusal(`event id: ${formatIssue(parsed.error)}`);
  }
  return { expectSeq, eventId };
}

/** A retried request finds its event by id; an id reused for another kind of request is a caller's mistake, refused. */
function sameRequest(original: GapflowEvent, input: EventBodyInput): GapflowEvent {
  const body = parseBody(input);
  const [asked, stored] = [describeRequest(body), describeRequest(original)];
  if (asked !== stored) {
    throw new Refusal(
      `event id ${original.id} is already in the log as seq ${original.seq} (${stored}), not ${asked}: a retry must repeat its request; a new request needs a new id`,
    );
  }
  return original;
}

/**
 * What a request is about, as far as a retry must repeat it: its type and
 * what it names (the gap, decision, policy or agent). Not the round: a
 * retried `round start` asks for the round after the one it opened.
 */
function describeRequest(body: { type: string; data: unknown }): string {
  const d = body.data as Record<string, unknown>;
  const names = ['id', 'kind', 'policy', 'agentSession'].filter((k) => typeof d[k] === 'string').map((k) => String(d[k]));
  return [body.type, ...names].join(' ').slice(0, 200);
}

/** A session in `<dir>/events.jsonl`, the embedded default. */
export function createFileSession(dir: string, settings: SessionSettings = {}, options?: SessionOptions, write?: WriteOptions): Session {
  return Session.create(new FileLog(dir), settings, options, write);
}

export function openFileSession(dir: string, options?: SessionOptions): Session {
  return Session.open(new FileLog(dir), options);
}

/**
 * What `verifyFileSession` found: `problem` names the first damaged line
 * (`line`), or is null; `findings` are where today's rules part ways with
 * the recorded history (an audit: the log stands as it is).
 */
export interface Verification extends Omit<LogInspection, 'message'> {
  problem: string | null;
  line: number | null;
  findings: Finding[];
}

/**
 * Checks a session's log without changing it: every line's bytes, JSON,
 * version, seq, schema and checksum chain (damage: the first bad line), then
 * an audit of every event under today's rules (findings, which never make
 * the log unreadable). Never throws for a bad line.
 */
export function verifyFileSession(dir: string): Verification {
  const { message, ...found } = inspectLog(dir);
  if (message !== null) return { ...found, problem: message, line: found.fault?.line ?? null, findings: [] };
  if (found.events.length === 0) {
    return { ...found, problem: emptyLog(found.location), line: 1, findings: [] };
  }
  return { ...found, problem: null, line: null, findings: auditHistory(found.events).findings };
}

/** A session held in memory, for embedding. */
export function createMemorySession(settings: SessionSettings = {}, options?: SessionOptions): Session {
  return Session.create(new MemoryLog(), settings, options);
}
