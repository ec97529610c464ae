import {
  parseRequest,
  type Command,
  type EventBodyInput,
  type SessionSettings,
  type SettledEvent,
  EventId,
  readIssue,
  type Decided,
  type BodyInputOf,
  type DecisionKind,
  type GapState,
  type RoundKind,
  type Severity,
  EVENT_VERSION,
  formatIssue,
  GapflowEvent,
} from '../../events/index.js';
import { decide, evolveMany, initialView, Refusal, roundCount, settle, type SessionView } from '../core/index.js';
import { readCommand } from '../policies/index.js';
import { LogError, OutcomeUnknown, VersionConflict, type Batch, type EventStore } from '../log/index.js';
import type { SessionOptions } from './options.js';

const { randomBytes } = process.getBuiltinModule('node:crypto');

/** What one request did. */
export interface Recorded {
  /** The request's events: the ones appended for it, or, for a retry of an id already in the log, the event it recorded then. */
  events: GapflowEvent[];
  /** What this call appended: `events`, or none for a retry. */
  appended: GapflowEvent[];
  /** True when the request's event id was already in the log: nothing was appended. */
  duplicate: boolean;
}

/** What a batch did: each request's events (as `Recorded.events`), and the events this call appended. */
export interface BatchRecorded {
  groups: GapflowEvent[][];
  appended: GapflowEvent[];
}

/** A batch as decided: what it recorded, its new events settled, and the view they leave. */
export interface DecidedBatch {
  groups: GapflowEvent[][];
  appended: SettledEvent[];
  view: SessionView;
}

/** A session's start as written, with the view it leaves; or, for a retried start, the event the first one wrote. */
export type Started = { events: SettledEvent[]; appended: SettledEvent[]; duplicate: false; view: SessionView } | (Recorded & { duplicate: true });

/**
 * What a caller sent, as the typed command `decide` takes: parsed where the
 * text enters (events' `parseRequest`: any spelling of a word, hidden
 * characters, the schema), a malformed one refused naming the field, the
 * value given, what the field takes and the nearest valid word; its
 * policy's part read by that policy's own schema (`readCommand`), whose
 * objection `decide` refuses in its turn.
 */
export function parseBody(input: unknown): Command {
  const parsed = parseRequest(input);
  if (parsed.message === undefined) return readCommand(parsed.body);
  throw new Refusal(parsed.message, undefined, parsed.bad);
}

/**
 * Writes a new session's first event into `store`. A store that already
 * holds the session this create started (its first event has
 * `write.eventId`) gives that event back instead; any other session there
 * refuses it.
 */
export function startLog(store: EventStore, settings: SessionSettings, stamp: Stamp, write: WriteOptions): Started {
  const { expectSeq, eventId } = validateWriteOptions(write);
  if (store.exists()) return retriedStart(store, eventId);
  if (expectSeq !== undefined && expectSeq !== 0) throw new Refusal(movedOn(expectSeq, 0));
  const view = initialView();
  const started = stampAll(stamp, view, decide(view, parseBody({ type: 'session.started', data: settings })), eventId);
  try {
    store.create(started.events);
  } catch (error) {
    if (error instanceof OutcomeUnknown) throw error.retriedAs(started.events[0]!.id);
    // Another init with the same id won the race: this one is its retry.
    if (error instanceof LogError && store.exists()) return retriedStart(store, eventId);
    throw error;
  }
  return { events: started.events, appended: started.events, duplicate: false, view: started.view };
}

function retriedStart(store: EventStore, eventId: string | undefined): Recorded & { duplicate: true } {
  const first = eventId === undefined ? undefined : store.byId(eventId);
  if (first?.seq === 1) return { events: [first], appended: [], duplicate: true };
  throw new LogError(`${store.location} already holds a session`);
}

/**
 * Runs `decide` holding the store, once the batch's write options and ids
 * are found sound; a log that no longer ends at `write.expectSeq` refuses it.
 */
export function transactBatch(
  store: EventStore,
  knownVersion: number,
  requests: readonly BatchRequest[],
  where: RequestNamer,
  write: Pick<WriteOptions, 'expectSeq'>,
  decideBatch: (fresh: readonly GapflowEvent[]) => Batch<DecidedBatch>,
): DecidedBatch {
  const { expectSeq } = validateWriteOptions(write);
  validateBatchIds(requests, where);
  // Judged holding the store: a retry that goes on where its batch tore is not held to its expected seq.
  const expected = expectSeq === undefined ? undefined : (version: number) => (resumes(requests, version, store) ? undefined : expectSeq);
  try {
    return store.transact(knownVersion, decideBatch, expected);
  } catch (error) {
    if (error instanceof VersionConflict) throw new Refusal(movedOn(error.expected, error.actual));
    // One request: its retry carries the id its own event was given (a batch's lines each need their own).
    if (error instanceof OutcomeUnknown && requests.length === 1) throw error.retriedAs(requests[0]!.id ?? ownEvent(error.events)?.id ?? null);
    throw error;
  }
}

/** Under the store's hold, once caught up: decides every request on one working copy of `view`. */
export function decideBatch(
  view: SessionView,
  requests: readonly BatchRequest[],
  where: RequestNamer,
  store: Pick<EventStore, 'byId'>,
  stamp: Stamp,
): Batch<DecidedBatch> {
  const groups: GapflowEvent[][] = [];
  const appended: SettledEvent[] = [];
  const { view: next } = evolveMany(view, (working, step) => {
    requests.forEach((request, index) => {
      try {
        const original = request.id === undefined ? undefined : store.byId(request.id);
        if (original) return void groups.push([sameRequest(original, request.body)]);
        const events = stamp(decide(working, parseBody(request.body)), request.id, working, step);
        groups.push(events);
        for (const event of events) appended.push(event);
      } catch (error) {
        throw named(error, where, index);
      }
    });
  });
  return { events: appended, result: { groups, appended, view: next } };
}

/** Folds in what other writers appended, as replay does: the events as they settled, and the view they leave. */
export function catchUp(view: SessionView, fresh: readonly GapflowEvent[]): { events: SettledEvent[]; view: SessionView } {
  const settled: SettledEvent[] = [];
  const { view: next } = evolveMany(view, (working, step) => {
    for (const event of fresh) {
      const fact = settle(working, event);
      if (fact === null) {
        working.lastSeq = event.seq;
        working.lastAt = event.at;
        continue;
      }
      settled.push(fact);
      step(fact);
    }
  });
  return { events: settled, view: next };
}

/** Judges `input` against `view` and the ids in `store` as a write would, writing nothing. */
export function judgeRequest(view: SessionView, store: Pick<EventStore, 'byId'>, input: EventBodyInput, write: WriteOptions): 'new' | 'duplicate' {
  const { expectSeq, eventId } = validateWriteOptions(write);
  const original = eventId === undefined ? undefined : store.byId(eventId);
  if (original) {
    sameRequest(original, input);
    return 'duplicate';
  }
  if (expectSeq !== undefined && expectSeq !== view.lastSeq) throw new Refusal(movedOn(expectSeq, view.lastSeq));
  decide(view, parseBody(input));
  return 'new';
}

/** The event of a request's events that is its own (not an automatic round start or close around it). */
function ownEvent(events: readonly GapflowEvent[]): GapflowEvent | undefined {
  return events.length === 0 ? undefined : events[ownIndex(events)];
}

/** One request of a batch (`Session.recordAll`): what to record, and optionally its event's id. */
export interface BatchRequest {
  body: EventBodyInput;
  id?: string | undefined;
}

/** Names a batch's request in a refusal, by where it came from; null: the refusal stays as it is. */
export type RequestNamer = ((index: number) => string) | null;

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

/** Validates write options at the edge: one line naming the option. */
function validateWriteOptions(write: WriteOptions): WriteOptions {
  const { expectSeq, eventId } = write;
  if (expectSeq !== undefined && (!Number.isSafeInteger(expectSeq) || expectSeq < 0)) {
    throw new Refusal(`the expected seq must be a whole number from 0, not ${String(expectSeq).slice(0, 40)}`);
  }
  if (eventId !== undefined) {
    const parsed = EventId.safeParse(eventId, { reportInput: true });
    if (!parsed.success) {
      const { message, bad } = readIssue(parsed.error);
      throw new Refusal(`event id: ${message}`, undefined, { ...bad, field: 'event id' });
    }
  }
  return { expectSeq, eventId };
}

/** Every request's id is a valid event id, used once in the batch (`where` names a request in a refusal). */
function validateBatchIds(requests: readonly BatchRequest[], where: RequestNamer): void {
  const first = new Map<string, number>();
  requests.forEach((request, index) => {
    if (request.id === undefined) return;
    try {
      validateWriteOptions({ eventId: request.id });
      const earlier = first.get(request.id);
      if (earlier !== undefined) throw new Refusal(`event id ${request.id} is already used by ${where?.(earlier) ?? 'another request'}`);
      first.set(request.id, index);
    } catch (error) {
      throw named(error, where, index);
    }
  });
}

/** A request's refusal, named by where the request came from (`stdin line 3`); null: as it is. */
export function named(error: unknown, where: RequestNamer, index: number): unknown {
  return error instanceof Refusal && where ? error.at(where(index)) : error;
}

/** The message of a write whose expected seq the log has moved past (or not reached). */
function movedOn(expectSeq: number, lastSeq: number): string {
  const now = lastSeq === 0 ? 'there is no log yet (seq 0)' : `it ends at seq ${lastSeq}: it has moved on; read the state again before deciding`;
  return `expected the log to end at seq ${expectSeq}, but ${now}`;
}

/**
 * Whether a batch sent before goes on where it stopped, whatever its
 * expected seq said: every line carries an id, the ones already in the log
 * come first, and either all are there (nothing will be appended) or the log,
 * at `version`, still ends with the last of them (give or take the automatic
 * round close and start that came with it): the write tore after them and
 * nothing else was appended since. Otherwise the expected seq holds.
 */
export function resumes(requests: readonly BatchRequest[], version: number, store: Pick<EventStore, 'byId' | 'read'>): boolean {
  if (requests.length === 0 || requests.some((r) => r.id === undefined)) return false;
  const found = requests.map((r) => store.byId(r.id!));
  const firstNew = found.indexOf(undefined);
  if (firstNew === 0) return false;
  if (firstNew === -1) return true;
  if (found.slice(firstNew).some((event) => event !== undefined)) return false;
  const last = found[firstNew - 1]!;
  const after = version - last.seq;
  return after === 0 || (after <= 2 && store.read(last.seq).every((event) => event.type === 'round.closed' || event.type === 'round.started'));
}

/** Which of the events `decide` made for one request is the request's own: not an automatic round start or close around it. */
function ownIndex(bodies: readonly Pick<Decided, 'type'>[]): number {
  const own = bodies.findIndex((b, i) => !(i === 0 && b.type === 'round.started' && bodies.length > 1) && !(i > 0 && b.type === 'round.closed'));
  return own === -1 ? bodies.length - 1 : own;
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
 * what it names (the gap, decision, policy, agent or findings source). Not the round: a
 * retried `round start` asks for the round after the one it opened.
 */
function describeRequest(body: { type: string; data: unknown }): string {
  const d = body.data as Record<string, unknown>;
  const names = ['id', 'kind', 'policy', 'agentSession', 'source'].filter((k) => typeof d[k] === 'string').map((k) => String(d[k]));
  return [body.type, ...names].join(' ').slice(0, 200);
}

export type OpenGapOptions = Omit<BodyInputOf<'gap.opened'>['data'], 'id' | 'severity'>;
export type MoveGapOptions = Omit<BodyInputOf<'gap.moved'>['data'], 'id' | 'to'>;

export type DecisionOptions = Pick<BodyInputOf<'decision.made'>['data'], 'gaps' | 'rationale' | 'rounds'> & {
  /** Approve over open CRITICAL gaps: the user accepts that risk (recorded as the `critical_risk` acknowledgment). */
  acceptCritical?: boolean | undefined;
};

export function openGapBody(id: string, severity: Severity, options: OpenGapOptions): BodyInputOf<'gap.opened'> {
  return { type: 'gap.opened', data: { id, severity, ...options } };
}

export function moveGapBody(id: string, to: GapState, options: MoveGapOptions): BodyInputOf<'gap.moved'> {
  return { type: 'gap.moved', data: { id, to, ...options } };
}

/** A source's whole snapshot of findings, as `sync` takes it (a reader in src/sync makes one from a tool's output). */
export type SyncSnapshot = Omit<BodyInputOf<'findings.synced'>['data'], 'close'>;

export function syncBody(snapshot: SyncSnapshot, close: boolean): BodyInputOf<'findings.synced'> {
  return { type: 'findings.synced', data: { source: snapshot.source, format: snapshot.format, findings: snapshot.findings, ...(close ? { close } : {}) } };
}

export type SplitPart = BodyInputOf<'gap.split'>['data']['into'][number];

export function splitGapBody(id: string, into: SplitPart[], options: { reason?: string | undefined }): BodyInputOf<'gap.split'> {
  return { type: 'gap.split', data: { id, into, ...(options.reason === undefined ? {} : { reason: options.reason }) } };
}

export function renameGapBody(id: string, newId: string): BodyInputOf<'gap.renamed'> {
  return { type: 'gap.renamed', data: { id, newId } };
}

export function changeSeverityBody(id: string, to: Severity): BodyInputOf<'gap.severity_changed'> {
  return { type: 'gap.severity_changed', data: { id, to } };
}

/** The next round's start; `kind` (R25) left out or `work` starts a work round. */
export function startRoundBody(view: Pick<SessionView, 'rounds' | 'roundsBefore'>, kind?: RoundKind): BodyInputOf<'round.started'> {
  const round = roundCount(view) + 1;
  return { type: 'round.started', data: kind === undefined ? { round } : { round, kind } };
}

export function closeRoundBody(view: Pick<SessionView, 'rounds' | 'roundsBefore'>): BodyInputOf<'round.closed'> {
  // With no round ever started there is no round to name; `decide` refuses it for that reason.
  return { type: 'round.closed', data: { round: Math.max(1, roundCount(view)) } };
}

export function recordMetricsBody(policy: string, metrics: Record<string, unknown>): BodyInputOf<'metrics.recorded'> {
  return { type: 'metrics.recorded', data: { policy, metrics } };
}

export function decisionBody(kind: DecisionKind, options: DecisionOptions): BodyInputOf<'decision.made'> {
  const { gaps, acceptCritical, rationale, rounds } = options;
  const acknowledgment = acceptCritical ? ('critical_risk' as const) : undefined;
  return { type: 'decision.made', data: { kind, gaps, acknowledgment, rationale, rounds } };
}

/** Stamps each decided body as the next event (`eventId` goes to the request's own one) and folds it into the working view. */
export type Stamp = (bodies: readonly Decided[], eventId: string | undefined, working: SessionView, step: (event: SettledEvent) => void) => SettledEvent[];

/** The characters of an event id gapflow makes: URL-safe, 64 of them, so a random byte's low six bits pick one. */
const ID_CHARS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-';

/**
 * A new event id: 21 characters, 126 random bits, as nanoid makes them.
 * Written here because nanoid imports node:crypto as an ES module, which
 * makes every export of it first (its webcrypto, ciphers and keys): some
 * milliseconds of every CLI write, for 21 random bytes.
 */
function newEventId(): string {
  let id = '';
  for (const byte of randomBytes(21)) id += ID_CHARS[byte & 63];
  return id;
}

/** A Stamp with the session's clock and ids. */
export function stamper({ clock = () => new Date(), newId = newEventId }: Pick<SessionOptions, 'clock' | 'newId'>): Stamp {
  return (bodies, eventId, working, step) => {
    const own = ownIndex(bodies);
    return bodies.map((body, index) => {
      const id = eventId !== undefined && index === own ? eventId : newId();
      const event = { v: EVENT_VERSION, seq: working.lastSeq + 1, id, at: clock().toISOString(), ...body } as SettledEvent;
      if (event.type === 'round.closed' || event.type === 'decision.made') readsBack(event);
      step(event);
      return event;
    });
  };
}

/** Stamps and folds a request's decided events on their own working copy (a session's first event). */
function stampAll(stamp: Stamp, view: SessionView, bodies: readonly Decided[], eventId: string | undefined): { events: SettledEvent[]; view: SessionView } {
  const { view: next, result: events } = evolveMany(view, (working, step) => stamp(bodies, eventId, working, step));
  return { events, view: next };
}

/**
 * An event whose outcome gapflow computed must read back as it is written:
 * a line the schema refuses would make the whole log unreadable, so it is
 * refused here, before anything is appended (the requests' own parts were
 * parsed by `decide`).
 */
function readsBack(event: SettledEvent): void {
  const parsed = GapflowEvent.safeParse(event);
  if (!parsed.success) throw new LogError(`${event.type} (seq ${event.seq}) would not read back (${formatIssue(parsed.error)}); nothing was written`);
}
