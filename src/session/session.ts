import type { DecisionKind, EventBodyInput, GapState, RoundKind, SessionSettings, Severity } from '../../events/index.js';
import { encodeClosedIndex, encodeHead, encodeView, HEAD_ROUNDS, initialView, type SessionView } from '../core/index.js';
import { closedIndexFormat, headFormat, viewFormat } from './formats.js';
import { checkpointsOf, type EventStore, type FollowOptions } from '../log/index.js';
import { LiveActor, type ConvergenceActor } from './live.js';
import type { SessionOptions } from './options.js';
import { replay, resumeView } from './replay.js';
import * as body from './request-bodies.js';
import type { BatchRequest, RequestNamer, WriteOptions } from './requests.js';
import { stamper, type Stamp } from './stamp.js';
import { ViewFeed, type SessionListener } from './view-feed.js';
import { catchUp, decideBatch, judgeRequest, startLog, transactBatch, type BatchRecorded, type Recorded } from './writes.js';

/**
 * A convergence session over an event store: the library API an embedded
 * mediator uses, and all the CLI calls. Requests go in; each is decided
 * against the current view (the core's `decide`), appended whole by the
 * store or refused with nothing written, then folded into the view; what
 * changed goes out to subscribers.
 */
export class Session {
  readonly log: EventStore;
  readonly #feed: ViewFeed;
  readonly #stamp: Stamp;
  readonly #live: LiveActor | null;
  readonly #checkpoints: boolean;
  /** The checkpoints an open left to write once the caller's turn ends (see `#checkpointSoon`). */
  #pending: { timer: ReturnType<typeof setImmediate>; now: boolean } | null = null;

  private constructor(log: EventStore, view: SessionView, options: SessionOptions, live: LiveActor | null) {
    this.log = log;
    this.#feed = new ViewFeed(view);
    this.#stamp = stamper(options);
    this.#live = live;
    this.#checkpoints = options.checkpoints ?? true;
    live?.sync(view);
    if (live) this.subscribe((update) => live.hear(update));
  }

  /**
   * Starts a new session in `store`, or, when the store already holds one
   * whose first event has `write.eventId`, opens it (a retried create:
   * `duplicate`). Refuses when another session lives there.
   */
  static init(store: EventStore, settings: SessionSettings = {}, options: SessionOptions = {}, write: WriteOptions = {}): Recorded & { session: Session } {
    const started = startLog(store, settings, stamper(options), write);
    if (started.duplicate) return { session: Session.open(store, options), ...started };
    const session = new Session(store, initialView(), options, options.inspect ? new LiveActor(options.inspect) : null);
    session.#feed.publish(started);
    return { session, events: started.events, appended: started.appended, duplicate: false };
  }

  /** `init`, for a caller that wants only the session. */
  static create(store: EventStore, settings: SessionSettings = {}, options: SessionOptions = {}, write: WriteOptions = {}): Session {
    return Session.init(store, settings, options, write).session;
  }

  /**
   * Opens the session stored in `store`: from its checkpoint and the events
   * after it, or, with none that matches, by replaying every event (then it
   * writes one, when the log is long enough for one to pay). Inspected, it
   * replays every event into the live actor.
   */
  static open(store: EventStore, options: SessionOptions = {}): Session {
    const live = options.inspect ? new LiveActor(options.inspect) : null;
    if (live || options.checkpoints === false) {
      const view = replay(store.read(), store.location, live ? (before, event) => live.feed(before, event) : undefined);
      return new Session(store, view, options, live);
    }
    const { view, fresh } = resumeView(store);
    const session = new Session(store, view, options, live);
    session.#checkpointSoon(fresh);
    return session;
  }

  get view(): SessionView {
    return this.#feed.view;
  }

  /** The live actor mirroring this session, when it was opened with `inspect`; else null. */
  get actor(): ConvergenceActor | null {
    return this.#live?.actor ?? null;
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
   * decided against the view the ones before it leave (one working copy for
   * the batch), then the new events go out in one append; if any one is
   * refused, nothing is written and the Refusal names it (`where(index)`;
   * null: as it is). A request's `id` becomes its own event's id (an
   * automatic `round.started` before it gets a fresh one); a request whose id
   * is already in the log is a retry and records nothing again.
   */
  recordAll(requests: readonly BatchRequest[], where: RequestNamer = (i) => `request ${i + 1}`, write: Pick<WriteOptions, 'expectSeq'> = {}): BatchRecorded {
    const done = transactBatch(this.log, this.view.lastSeq, requests, where, write, (fresh) => {
      if (fresh.length > 0) this.#feed.publish(catchUp(this.view, fresh));
      return decideBatch(this.view, requests, where, this.log, this.#stamp);
    });
    if (done.appended.length > 0) this.#feed.publish({ events: done.appended, view: done.view });
    this.#checkpoint(false);
    return { groups: done.groups, appended: done.appended };
  }

  /**
   * Keeps the store's checkpoints up: the head (what `next` and a stop hook
   * read, and a gap write decides on) with the closed gaps' index it names,
   * after every open and write; the whole view when the store says one is
   * due (or `now`).
   */
  #checkpoint(now: boolean): void {
    if (!this.#checkpoints) return;
    if (this.#pending !== null) {
      clearImmediate(this.#pending.timer);
      now ||= this.#pending.now;
      this.#pending = null;
    }
    const view = this.view;
    const checkpoints = checkpointsOf(this.log);
    checkpoints.saveHead(headFormat(), view.lastSeq, () => {
      // Written first: a head names only an index that is on disk whole.
      const closed = checkpoints.saveClosedIndex(closedIndexFormat(), view.lastSeq, encodeClosedIndex(view));
      return encodeHead(view, HEAD_ROUNDS, closed);
    });
    if (now || checkpoints.due()) checkpoints.save(viewFormat(), view.lastSeq, () => encodeView(view));
  }

  /**
   * Writes now the checkpoints this session's open left for the event
   * loop's next turn (nothing when none is waiting): for a caller that will
   * not yield before it exits, or wants them on disk before it goes on.
   */
  saveCheckpoints(): void {
    if (this.#pending !== null) this.#checkpoint(false);
  }

  /**
   * An open writes its checkpoints after the caller's turn (on the event
   * loop's next turn), so a read pays for reading only; a write before then
   * saves them itself. A caller that never yields leaves them unwritten,
   * which loses nothing: the next open replays instead. (A save that
   * cannot write is a checkpoint not written, as at any time.)
   */
  #checkpointSoon(now: boolean): void {
    if (!this.#checkpoints) return;
    const timer = setImmediate(() => {
      this.#pending = null;
      this.#checkpoint(now);
    });
    this.#pending = { timer, now };
  }

  /**
   * Judges `input` as `record` would, writing nothing, for an edge that must
   * do work (run a command) only when the record will go in: 'duplicate' when
   * `write.eventId` is already in the log (the retry will return it), 'new'
   * when it would be appended; otherwise refuses as `record` would.
   */
  dryRun(input: EventBodyInput, write: WriteOptions = {}): 'new' | 'duplicate' {
    return judgeRequest(this.view, this.log, input, write);
  }

  /** Judges a batch as `recordAll` would, on the view as it stands, writing nothing; refuses as `recordAll` would. */
  dryRunAll(requests: readonly BatchRequest[], where: RequestNamer = (i) => `request ${i + 1}`): void {
    decideBatch(this.view, requests, where, this.log, this.#stamp);
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
    return this.record(body.startRoundBody(this.view, kind), write);
  }

  closeRound(write?: WriteOptions) {
    return this.record(body.closeRoundBody(this.view), write);
  }

  /**
   * Records one policy's metrics for the open round (starting the next round
   * when none is open). Without the gap policy the round closes itself once
   * every enabled policy has recorded for it.
   */
  recordMetrics(policy: string, metrics: Record<string, unknown>, write?: WriteOptions) {
    return this.record(body.recordMetricsBody(policy, metrics), write);
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
    return this.log.follow(
      this.view.lastSeq,
      (events) => {
        // This session's own writes come back through the store too: they are in the view already.
        const fresh = events.filter((event) => event.seq > this.view.lastSeq);
        if (fresh.length > 0) this.#feed.publish(catchUp(this.view, fresh));
      },
      options,
    );
  }

  /** Calls `listener` after every write and catch-up from now on; returns the unsubscribe. */
  subscribe(listener: SessionListener): () => void {
    return this.#feed.subscribe(listener);
  }
}
