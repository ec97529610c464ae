import type { DecisionKind, EventBodyInput, GapState, RoundKind, SessionSettings, Severity } from '../../events/index.js';
import type { SyncSnapshot } from './writes.js';
import type { SessionView } from '../core/index.js';
import { type EventStore, type FollowOptions, FileLog, MemoryLog } from '../log/index.js';
import { LiveActor, type ConvergenceActor } from './live.js';
import type { SessionOptions } from './options.js';
import * as body from './writes.js';
import {
  type BatchRequest,
  type RequestNamer,
  type WriteOptions,
  stamper,
  catchUp,
  decideBatch,
  judgeRequest,
  startLog,
  type BatchRecorded,
  type Recorded,
} from './writes.js';
import { SessionState, type SessionListener } from './state.js';

const requestN: RequestNamer = (i) => `request ${i + 1}`;

/**
 * A convergence session over an event store: the library API an embedded
 * mediator uses, and all the CLI calls. Every write takes one path: each
 * request is decided against the session's state (the core's `decide`),
 * appended whole by the store or refused with nothing written, then folded
 * in; what changed goes out to subscribers, and the checkpoints are kept
 * (state.ts). The state is the whole view, or, opened with `head`, the head
 * checkpoint until something needs the whole view.
 */
export class Session {
  readonly log: EventStore;
  readonly #state: SessionState;

  private constructor(state: SessionState) {
    this.log = state.log;
    this.#state = state;
  }

  /**
   * Starts a new session in `store`, or, when the store already holds one
   * whose first event has `write.eventId`, opens it (a retried create:
   * `duplicate`). Refuses when another session lives there.
   */
  static init(store: EventStore, settings: SessionSettings = {}, options: SessionOptions = {}, write: WriteOptions = {}): Recorded & { session: Session } {
    const started = startLog(store, settings, stamper(options), write);
    if (started.duplicate) return { session: Session.open(store, options), ...started };
    const session = new Session(SessionState.started(store, options, options.inspect ? new LiveActor(options.inspect) : null, started));
    return { session, events: started.events, appended: started.appended, duplicate: false };
  }

  /** `init`, for a caller that wants only the session. */
  static create(store: EventStore, settings: SessionSettings = {}, options: SessionOptions = {}, write: WriteOptions = {}): Session {
    return Session.init(store, settings, options, write).session;
  }

  /**
   * Opens the session stored in `store`: from its checkpoint and the events
   * after it, or, with none that matches, by replaying every event (then it
   * keeps one, when the log is long enough for one to pay). With `head`,
   * from the head checkpoint when it is current, reading the whole view only
   * when asked for it. Inspected, it replays every event into the live actor.
   */
  static open(store: EventStore, options: SessionOptions = {}): Session {
    return new Session(SessionState.open(store, options, options.inspect ? new LiveActor(options.inspect) : null));
  }

  /** The whole view (read now when the session was opened from its head). */
  get view(): SessionView {
    return this.#state.whole().view;
  }

  /** The state writes are decided on: the whole view once read, else the head (closed gaps only by lookup, the last rounds). */
  get current(): SessionView {
    return this.#state.current;
  }

  /** The state the last write was decided on, as it stood just before it (what a write's line compares with `current`); null before any. */
  get before(): SessionView | null {
    return this.#state.before;
  }

  /** The live actor mirroring this session, when it was opened with `inspect`; else null. */
  get actor(): ConvergenceActor | null {
    return this.#state.live?.actor ?? null;
  }

  /**
   * Records one request (an event body): its events, or, when
   * `write.eventId` is already in the log, the event it recorded then
   * (appending nothing). With `write.expectSeq`, refuses unless the log still
   * ends there.
   */
  record(input: EventBodyInput, write: WriteOptions = {}): Recorded {
    const { groups, appended } = this.recordAll([{ body: input, id: write.eventId }], null, { expectSeq: write.expectSeq });
    return { events: groups[0]!, appended, duplicate: appended.length === 0 };
  }

  /**
   * Records a batch all-or-nothing, holding the store: each request is
   * decided against the state the ones before it leave (one working copy for
   * the batch), then the new events go out in one append; if any one is
   * refused, nothing is written and the Refusal names it (`where(index)`;
   * null: as it is). A request's `id` becomes its own event's id (an
   * automatic `round.started` before it gets a fresh one); a request whose id
   * is already in the log is a retry and records nothing again.
   */
  recordAll(requests: readonly BatchRequest[], where: RequestNamer = requestN, write: Pick<WriteOptions, 'expectSeq'> = {}): BatchRecorded {
    return this.#state.recordAll(requests, where, write);
  }

  /** Writes now the checkpoints this session's open left for the event loop's next turn (nothing when none is waiting). */
  saveCheckpoints(): void {
    this.#state.saveCheckpoints();
  }

  /**
   * Judges `input` as `record` would, writing nothing, for an edge that must do work (run a command) only when the
   * record will go in: 'duplicate' when `write.eventId` is already in the log, 'new' when it would be appended.
   */
  dryRun(input: EventBodyInput, write: WriteOptions = {}): 'new' | 'duplicate' {
    return judgeRequest(this.view, this.log, input, write);
  }

  /** Judges a batch as `recordAll` would, on the view as it stands, writing nothing; refuses as `recordAll` would. */
  dryRunAll(requests: readonly BatchRequest[], where: RequestNamer = requestN): void {
    decideBatch(this.view, requests, where, this.log, this.#state.stamp);
  }

  openGap(id: string, severity: Severity, options: body.OpenGapOptions = {}, write?: WriteOptions) {
    return this.record(body.openGapBody(id, severity, options), write);
  }

  moveGap(id: string, to: GapState, options: body.MoveGapOptions = {}, write?: WriteOptions) {
    return this.record(body.moveGapBody(id, to, options), write);
  }

  changeSeverity(id: string, to: Severity, write?: WriteOptions) {
    return this.record(body.changeSeverityBody(id, to), write);
  }

  /** Starts the next round: a work round, or (R25) a `review` or `consolidation` one. */
  startRound(write?: WriteOptions, kind?: RoundKind) {
    return this.record(body.startRoundBody(this.current, kind), write);
  }

  closeRound(write?: WriteOptions) {
    return this.record(body.closeRoundBody(this.current), write);
  }

  /**
   * Records one policy's metrics for the open round (starting the next round
   * when none is open). Without the gap policy the round closes itself once
   * every enabled policy has recorded for it.
   */
  recordMetrics(policy: string, metrics: Record<string, unknown>, write?: WriteOptions) {
    return this.record(body.recordMetricsBody(policy, metrics), write);
  }

  /**
   * Reconciles a source's whole snapshot of findings with the gaps that
   * source opened (docs/sync.md), in one write: new findings open gaps, gone
   * ones resolve theirs, returning ones reopen theirs (a claim when a person
   * had closed it). The same snapshot again records nothing (`appended` is
   * empty). With `close`, the round it belongs to closes after it.
   */
  sync(snapshot: SyncSnapshot, options: { close?: boolean } = {}, write?: WriteOptions) {
    return this.record(body.syncBody(snapshot, options.close ?? false), write);
  }

  /** The user's decision (R11): narrow scope, accept complexity, prioritize CRITICAL, pause, resume, force complete, abandon or approve. */
  makeDecision(kind: DecisionKind, options: body.DecisionOptions = {}, write?: WriteOptions) {
    return this.record(body.decisionBody(kind, options), write);
  }

  /**
   * Keeps the view up with what other processes append to the store (a
   * file log hears of a change at once and reads only the lines added),
   * telling subscribers as after a write: a live follow for a dashboard or
   * the inspector. Returns the stop; `options` as the store's `follow`.
   */
  follow(options: FollowOptions = {}): () => void {
    const feed = this.#state.whole();
    return this.log.follow(
      feed.view.lastSeq,
      (events) => {
        // This session's own writes come back through the store too: they are in the view already.
        const fresh = events.filter((event) => event.seq > feed.view.lastSeq);
        if (fresh.length > 0) feed.publish(catchUp(feed.view, fresh));
      },
      options,
    );
  }

  /** Calls `listener` after every write and catch-up from now on; returns the unsubscribe. */
  subscribe(listener: SessionListener): () => void {
    return this.#state.whole().subscribe(listener);
  }
}

/** A session in `<dir>/events.jsonl`, the embedded default. */
export function createFileSession(dir: string, settings: SessionSettings = {}, options?: SessionOptions, write?: WriteOptions): Session {
  return Session.create(new FileLog(dir), settings, options, write);
}

export function openFileSession(dir: string, options?: SessionOptions): Session {
  return Session.open(new FileLog(dir), options);
}

/** A session held in memory, for embedding. */
export function createMemorySession(settings: SessionSettings = {}, options?: SessionOptions): Session {
  return Session.create(new MemoryLog(), settings, options);
}
