import type { GapflowEvent } from '../../events/index.js';
import { initialView, type SessionView } from '../core/index.js';
import { checkpointsOf, type EventStore } from '../log/index.js';
import { headWorking, loadHead, saveHead, type Head } from './head-state.js';
import { Keeper } from './keep.js';
import type { LiveActor } from './live.js';
import type { SessionOptions } from './options.js';
import { replay, resumeView } from './replay.js';
import type { BatchRequest, RequestNamer, WriteOptions } from './requests.js';
import { stamper, type Stamp } from './stamp.js';
import { ViewFeed } from './view-feed.js';
import { catchUp, decideBatch, transactBatch, type BatchRecorded, type DecidedBatch, type Started } from './writes.js';

/** Thrown holding the store when the state a write was to be decided on is not the log's (another writer appended): nothing is written. */
class NotOnThisState extends Error {}

/**
 * A session's state and the one way a write lands on it. The state is the
 * whole view (with its subscribers), or, for a session opened from its head,
 * the head checkpoint until something needs the whole view. A write holds
 * the store, decides the batch on the state (the core's `decide`), appends
 * it, folds it in, and keeps the checkpoints: on the head while no other
 * writer has appended since the head was read and the head can decide it,
 * else on the whole view, caught up.
 */
export class SessionState {
  readonly log: EventStore;
  readonly stamp: Stamp;
  readonly live: LiveActor | null;
  /** Keeps the store's checkpoints; null when the session was opened without them. */
  readonly #keeper: Keeper | null;
  /** The whole view and its subscribers, once read. */
  #feed: ViewFeed | null = null;
  /** The head a write is decided on until the whole view is read; `reread`: look again (a head write moved it on). */
  #head: Head | null | 'reread' = null;
  /** The state the last write was decided on, as it stood before it. */
  #before: SessionView | null = null;
  /** What the last write on the head left (the head, with the gaps it named): what `current` shows until the head is read again. */
  #leftOnHead: SessionView | null = null;

  private constructor(log: EventStore, options: SessionOptions, live: LiveActor | null) {
    this.log = log;
    this.stamp = stamper(options);
    this.live = live;
    this.#keeper = options.checkpoints === false ? null : new Keeper(checkpointsOf(log));
  }

  /** The state of a session just started (`started`): a new log is left alone until its first write, whose checkpoints come with it. */
  static started(log: EventStore, options: SessionOptions, live: LiveActor | null, started: Started & { duplicate: false }): SessionState {
    const state = new SessionState(log, options, live);
    state.whole(initialView(), false).publish(started);
    return state;
  }

  /** The state of the session in `log` (see `Session.open`). */
  static open(log: EventStore, options: SessionOptions, live: LiveActor | null): SessionState {
    const state = new SessionState(log, options, live);
    if (live || options.checkpoints === false) {
      state.whole(replay(log.read(), log.location, live ? (before, event) => live.feed(before, event) : undefined));
    } else if (!options.head || (state.#head = loadHead(checkpointsOf(log))) === null) {
      state.whole();
    }
    return state;
  }

  /** The state writes are decided on: the whole view once read, else the head (closed gaps only by lookup, the last rounds). */
  get current(): SessionView {
    if (this.#feed !== null) return this.#feed.view;
    return (this.#head === 'reread' ? this.#leftOnHead : null) ?? this.#currentHead()?.view ?? this.whole().view;
  }

  /** The state the last write was decided on, as it stood just before it; null before any write. */
  get before(): SessionView | null {
    return this.#before;
  }

  /** Records a batch (see `Session.recordAll`). */
  recordAll(requests: readonly BatchRequest[], where: RequestNamer, write: Pick<WriteOptions, 'expectSeq'>): BatchRecorded {
    const head = this.#feed === null ? this.#currentHead() : null;
    const working = head === null ? null : headWorking(head, requests);
    const done = working === null ? null : this.#write(head!.view.lastSeq, requests, where, write, (fresh) => (fresh.length > 0 ? null : working));
    if (done !== null) {
      saveHead(checkpointsOf(this.log), head!, done.view, done.appended);
      this.#head = 'reread';
      this.#leftOnHead = done.view;
      return { groups: done.groups, appended: done.appended };
    }
    const feed = this.whole();
    const whole = this.#write(feed.view.lastSeq, requests, where, write, (fresh) => {
      if (fresh.length > 0) feed.publish(catchUp(feed.view, fresh));
      return feed.view;
    })!;
    if (whole.appended.length > 0) feed.publish({ events: whole.appended, view: whole.view });
    this.#keeper?.keep(feed.view);
    return { groups: whole.groups, appended: whole.appended };
  }

  /** Writes now the checkpoints an open left for the event loop's next turn. */
  saveCheckpoints(): void {
    this.#keeper?.flush();
  }

  /** The whole view's feed: made from `view`, else read from the store now (and its checkpoints kept after this turn, with `keep`). */
  whole(view?: SessionView, keep = true): ViewFeed {
    if (this.#feed !== null) return this.#feed;
    let fresh = false;
    if (view === undefined) ({ view, fresh } = resumeView(this.log));
    const feed = new ViewFeed(view);
    this.#feed = feed;
    this.#head = null;
    const live = this.live;
    live?.sync(view);
    if (live) feed.subscribe((update) => live.hear(update));
    else if (keep) this.#keeper?.soon(() => feed.view, fresh);
    return feed;
  }

  /**
   * Holding the store, decides the batch on the state `on` gives for what
   * others appended since `known` (null: not on this state; nothing is
   * written), appends it, and returns what it did.
   */
  #write(
    known: number,
    requests: readonly BatchRequest[],
    where: RequestNamer,
    write: Pick<WriteOptions, 'expectSeq'>,
    on: (fresh: readonly GapflowEvent[]) => SessionView | null,
  ): DecidedBatch | null {
    try {
      return transactBatch(this.log, known, requests, where, write, (fresh) => {
        const state = on(fresh);
        if (state === null) throw new NotOnThisState();
        this.#before = state;
        return decideBatch(state, requests, where, this.log, this.stamp);
      });
    } catch (error) {
      if (error instanceof NotOnThisState) return null;
      throw error;
    }
  }

  /** The head, read again after a head write moved it on; null when none is current. */
  #currentHead(): Head | null {
    if (this.#head === 'reread') this.#head = loadHead(checkpointsOf(this.log));
    return this.#head;
  }
}
