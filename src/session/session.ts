import type { DecisionKind, EventBodyInput, GapflowEvent, GapState, SessionSettings, SettledEvent, Severity } from '../../events/index.js';
import { decide, evolveMany, initialView, Refusal, settle, type SessionView } from '../core/index.js';
import { LogError, VersionConflict, type EventStore } from '../log/index.js';
import { LiveActor, type ConvergenceActor } from './live.js';
import type { SessionOptions } from './options.js';
import { replay } from './replay.js';
import * as body from './request-bodies.js';
import { checkBatchIds, checkWriteOptions, movedOn, named, resumes, sameRequest, type BatchRequest, type WriteOptions } from './requests.js';
import { stampAll, stamper, type Stamp } from './stamp.js';
import { ViewFeed, type SessionListener } from './view-feed.js';

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

/**
 * A convergence session over an event store: the library API an embedded
 * mediator uses, and all the CLI calls. Requests go in; each is decided
 * against the current view (the core's `decide`), appended whole by the
 * store or refused with nothing written, then folded into the view; what
 * changed goes out to subscribers.
 */
export class Session {
  readonly #feed: ViewFeed;
  readonly #stamp: Stamp;
  readonly #live: LiveActor | null;

  private constructor(
    readonly log: EventStore,
    view: SessionView,
    options: SessionOptions,
    live: LiveActor | null,
  ) {
    this.#feed = new ViewFeed(view);
    this.#stamp = stamper(options);
    this.#live = live;
    if (live) {
      live.sync(view);
      this.subscribe((update) => live.hear(update));
    }
  }

  /**
   * Starts a new session in `store`, or, when the store already holds one
   * whose first event has `write.eventId`, opens it (a retried create:
   * `duplicate`). Refuses when another session lives there.
   */
  static init(store: EventStore, settings: SessionSettings = {}, options: SessionOptions = {}, write: WriteOptions = {}): Recorded & { session: Session } {
    const { expectSeq, eventId } = checkWriteOptions(write);
    if (store.exists()) return Session.#retriedInit(store, options, eventId);
    if (expectSeq !== undefined && expectSeq !== 0) throw new Refusal(movedOn(expectSeq, 0));
    const view = initialView();
    const session = new Session(store, view, options, options.inspect ? new LiveActor(options.inspect) : null);
    const { events, view: started } = stampAll(session.#stamp, view, decide(view, { type: 'session.started', data: settings }), eventId);
    try {
      store.create(events);
    } catch (error) {
      // Another init with the same id won the race: this one is its retry.
      if (error instanceof LogError && store.exists()) return Session.#retriedInit(store, options, eventId);
      throw error;
    }
    session.#feed.publish({ events, view: started });
    return { session, events, appended: events, duplicate: false };
  }

  /** `init`, for a caller that wants only the session. */
  static create(store: EventStore, settings: SessionSettings = {}, options: SessionOptions = {}, write: WriteOptions = {}): Session {
    return Session.init(store, settings, options, write).session;
  }

  static #retriedInit(store: EventStore, options: SessionOptions, eventId: string | undefined): Recorded & { session: Session } {
    const first = eventId === undefined ? undefined : store.byId(eventId);
    if (first?.seq === 1) return { session: Session.open(store, options), events: [first], appended: [], duplicate: true };
    throw new LogError(`${store.location} already holds a session`);
  }

  /** Opens the session stored in `store`, replaying every event (into the live actor too, when inspected). */
  static open(store: EventStore, options: SessionOptions = {}): Session {
    const live = options.inspect ? new LiveActor(options.inspect) : null;
    const view = replay(store.read(), store.location, live ? (before, event) => live.feed(before, event) : undefined);
    return new Session(store, view, options, live);
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
  recordAll(
    requests: readonly BatchRequest[],
    where: ((index: number) => string) | null = (i) => `request ${i + 1}`,
    write: Pick<WriteOptions, 'expectSeq'> = {},
  ): BatchRecorded {
    const { expectSeq } = checkWriteOptions(write);
    checkBatchIds(requests, where);
    // Judged holding the store: a retry that goes on where its batch tore is not held to its expected seq.
    const expected = expectSeq === undefined ? undefined : (version: number) => (resumes(requests, version, this.log) ? undefined : expectSeq);
    let done;
    try {
      done = this.log.transact(this.view.lastSeq, (fresh) => this.#decideBatch(fresh, requests, where), expected);
    } catch (error) {
      if (error instanceof VersionConflict) throw new Refusal(movedOn(error.expected, error.actual));
      throw error;
    }
    if (done.appended.length > 0) this.#feed.publish({ events: done.appended, view: done.view });
    return { groups: done.groups, appended: done.appended };
  }

  /** Under the store's hold: catch up with `fresh`, then decide every request on one working copy of the view. */
  #decideBatch(fresh: readonly GapflowEvent[], requests: readonly BatchRequest[], where: ((index: number) => string) | null) {
    this.#catchUp(fresh);
    const groups: GapflowEvent[][] = [];
    const appended: SettledEvent[] = [];
    const { view } = evolveMany(this.view, (working, step) => {
      requests.forEach((request, index) => {
        try {
          const original = request.id === undefined ? undefined : this.log.byId(request.id);
          if (original) return void groups.push([sameRequest(original, request.body)]);
          const events = this.#stamp(decide(working, request.body), request.id, working, step);
          groups.push(events);
          for (const event of events) appended.push(event);
        } catch (error) {
          throw named(error, where, index);
        }
      });
    });
    return { events: appended, result: { groups, appended, view } };
  }

  /**
   * Judges `input` as `record` would, writing nothing, for an edge that must
   * do work (run a command) only when the record will go in: 'duplicate' when
   * `write.eventId` is already in the log (the retry will return it), 'new'
   * when it would be appended; otherwise refuses as `record` would.
   */
  dryRun(input: EventBodyInput, write: WriteOptions = {}): 'new' | 'duplicate' {
    const { expectSeq, eventId } = checkWriteOptions(write);
    const original = eventId === undefined ? undefined : this.log.byId(eventId);
    if (original) {
      sameRequest(original, input);
      return 'duplicate';
    }
    if (expectSeq !== undefined && expectSeq !== this.view.lastSeq) throw new Refusal(movedOn(expectSeq, this.view.lastSeq));
    decide(this.view, input);
    return 'new';
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

  startRound(write?: WriteOptions) {
    return this.record(body.startRoundBody(this.view), write);
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

  decide(kind: DecisionKind, options: body.DecisionOptions = {}, write?: WriteOptions) {
    return this.record(body.decisionBody(kind, options), write);
  }

  /** Calls `listener` after every write and catch-up from now on; returns the unsubscribe. */
  subscribe(listener: SessionListener): () => void {
    return this.#feed.subscribe(listener);
  }

  /** Folds in what other writers appended, as replay does. */
  #catchUp(fresh: readonly GapflowEvent[]): void {
    if (fresh.length === 0) return;
    const settled: SettledEvent[] = [];
    const { view } = evolveMany(this.view, (working, step) => {
      for (const event of fresh) {
        const fact = settle(working, event);
        if (fact === null) {
          working.lastSeq = event.seq;
          continue;
        }
        settled.push(fact);
        step(fact);
      }
    });
    this.#feed.publish({ events: settled, view });
  }
}
