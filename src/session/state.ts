import type { GapflowEvent, EventBodyInput, SettledEvent } from '../../events/index.js';
import {
  initialView,
  type SessionView,
  closedIndexLines,
  closedIndexLookUp,
  DamagedIndex,
  decodeMarkedHead,
  cutHead,
  encodeCutHead,
  summaryOf,
  extendClosedIndex,
  fallsPastHead,
  namedByLoop,
  headIsExact,
  indexLines,
  STATE_CLASS,
  HEAD_ROUNDS,
  leavesGapsOut,
  LISTED_GAPS,
  type ClosedGap,
  type ClosedIndexParts,
  type Gap,
  type IndexMark,
  encodeClosedIndex,
  encodeView,
  viewBytesAtLeast,
  auditHistory,
  decodeView,
  fold,
  settle,
  startFold,
  type Finding,
  type Folding,
  type HistoryEntry,
  VIEW_SHAPE,
} from '../core/index.js';
import {
  checkpointsOf,
  type EventStore,
  type Checkpoints,
  checkLogText,
  linesOf,
  inspectLog,
  LogError,
  type LogInspection,
  packageVersion,
} from '../log/index.js';
import type { LiveActor } from './live.js';
import type { SessionOptions } from './options.js';
import {
  type BatchRequest,
  type RequestNamer,
  type WriteOptions,
  stamper,
  type Stamp,
  catchUp,
  decideBatch,
  transactBatch,
  type BatchRecorded,
  type DecidedBatch,
  type Started,
} from './writes.js';

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
    const done = working === null ? null : this.#write(head!.view.lastSeq, requests, where, write, (fresh) => (fresh.length > 0 ? null : working.view));
    if (done !== null) {
      saveHead(checkpointsOf(this.log), head!, working!, done.view, done.appended);
      this.#head = 'reread';
      // The gaps the head left out that the batch named were put back for the decision only: they are counted as left out.
      this.#leftOnHead = withoutGaps(done.view, working!.named);
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

/*
 * The head: how a session decides gap and round writes cheaply. Deciding a
 * gap event or a round's start or close needs the gaps not closed, the last
 * rounds, the machine, the session's rules and the policies' records (all
 * in the head checkpoint), and of the gaps the head leaves out (closed ones,
 * and of a large inventory the ones past its part of the list) only whether
 * an id is taken or known (the index that goes with the head answers that
 * by lookup). So such a write reads a few kilobytes, a bucket of the index
 * and one log line, appends, and writes the new head, whatever the log's
 * length and the inventory's size. What the head cannot decide goes to the
 * whole view: a move of a gap it leaves out (reopening a closed one needs
 * its whole record), a split or a rename (rare, and a rename rewrites what
 * the index lists), any other kind of request (a decision may name any gap;
 * metrics and bindings are rare), a head or index that is not current, or a
 * log another writer appended to meanwhile. A head that leaves gaps out
 * decides no severity change (the gap would change its place in the list),
 * no round close (its verdict reads the round's lists of gaps, which such a
 * head does not keep) and not the start of round 1 (it counts the baseline's
 * gaps).
 */

const ON_HEAD: readonly string[] = ['gap.opened', 'gap.moved', 'gap.severity_changed', 'round.started', 'round.closed'];
const ON_HEAD_LEAVING_GAPS_OUT: readonly string[] = ['gap.opened', 'gap.moved', 'round.started'];

/** A current head, with the index it names (read in parts) and what names it. */
export interface Head {
  view: SessionView;
  index: ClosedIndexParts;
  mark: IndexMark;
}

/** The head `checkpoints` keep, when it covers the log's last line and the index it names is whole; null otherwise. */
function loadHead(checkpoints: Checkpoints): Head | null {
  const found = checkpoints.headForWrite(headFormat(), closedIndexFormat());
  const marked = found === null ? null : decodeMarkedHead(found.head);
  if (found?.index == null || marked?.closed == null || !sameMark(marked.closed, found.index.at)) return null;
  return { view: marked.view, index: found.index.parts, mark: marked.closed };
}

/** What a batch is decided on, on a head: the head with the gaps the requests name that it left out put back (`named`, as the index knows them). */
interface Working {
  view: SessionView;
  named: ReadonlySet<string>;
}

/**
 * The working copy a batch is decided on, on `head`: the head with the
 * gaps it left out that the requests name put back; null when the head
 * cannot decide the batch (see above).
 */
function headWorking(head: Head, requests: readonly BatchRequest[]): Working | null {
  const partial = leavesGapsOut(head.view);
  const kinds = partial ? ON_HEAD_LEAVING_GAPS_OUT : ON_HEAD;
  if (!requests.every((request) => kinds.includes(request.body.type))) return null;
  if (partial && head.view.baselineGapCount === null && requests.some((request) => request.body.type === 'round.started')) return null;
  const lookUp = closedIndexLookUp(head.index);
  return lookUp === null
    ? null
    : withClosedGaps(
        head.view,
        requests.map((request) => request.body),
        lookUp,
      );
}

/**
 * Writes the head a batch leaves, with the index it goes with: the same
 * index when no gap closed or was left out, else the index with those gaps
 * added, written first and only when the head is (a head never names an
 * index that does not hold every gap it leaves out; if the index cannot be
 * written the head names none). The gaps the batch named that the head had
 * left out go back out of it; a gap it opened past the head's part of the
 * list is left out (listed in the index, counted). A head whose part of a
 * list no longer holds the first ones (the batch closed or parked too many
 * of them) is not written: the next call reads the whole view, and cuts a
 * new head from it.
 */
function saveHead(checkpoints: Checkpoints, head: Head, working: Working, view: SessionView, appended: readonly GapflowEvent[]): void {
  const { next, leftOut } = leavingOut(view, working.named, appended);
  if (!headIsExact(next)) return;
  const cut = cutHead(next);
  // A head is not cut again from a head, so gaps opened ahead of its part of the list pile up in it: past twice what
  // it keeps (the gaps the loop names aside), it is not written, and the next call cuts one from the whole view.
  if (leavesGapsOut(cut.head) && [...cut.head.gaps.values()].filter((gap) => !namedByLoop(gap)).length > 4 * LISTED_GAPS) return;
  const added = newlyClosedLines(next, appended) + indexLines(leftOut) + indexLines(cut.leftOut);
  checkpoints.saveHead(headFormat(), view.lastSeq, () => {
    if (added === '') return encodeCutHead(cut.head, head.mark, summaryOf(cut.head));
    const body = extendedIndex(head.index, added);
    const mark = body === null ? null : checkpoints.saveClosedIndex(closedIndexFormat(), view.lastSeq, body);
    return encodeCutHead(cut.head, mark, summaryOf(cut.head));
  });
}

/** `view` without the gaps `ids` names (a head's working copy without the gaps it had left out). */
function withoutGaps(view: SessionView, ids: ReadonlySet<string>): SessionView {
  return ids.size === 0 ? view : { ...view, gaps: new Map([...view.gaps].filter(([id]) => !ids.has(id))) };
}

/**
 * `view` (a head a batch was folded into) without the gaps it had left out
 * that the batch named, and with the gaps the batch opened past its part of
 * the list left out (and counted): those are returned, for the index.
 */
function leavingOut(view: SessionView, lookedUp: ReadonlySet<string>, appended: readonly GapflowEvent[]): { next: SessionView; leftOut: Gap[] } {
  if (!leavesGapsOut(view)) return { next: view, leftOut: [] };
  const opened = appended.flatMap((event) => (event.type === 'gap.opened' ? [view.gaps.get(event.data.id)!] : []));
  // A gap the batch opened and closed again goes to the index as closed (newlyClosedLines), as any gap closed on the head;
  // one it reopened stays, as the head keeps every gap the loop names (ping-pong names a reopened one wherever it stands).
  const leftOut = opened.filter((gap) => STATE_CLASS[gap.state] !== 'closed' && !namedByLoop(gap) && fallsPastHead(view, gap.severity));
  if (lookedUp.size === 0 && leftOut.length === 0) return { next: view, leftOut };
  const gaps = withoutGaps(view, new Set([...lookedUp, ...leftOut.map((gap) => gap.id)])).gaps;
  const parked = leftOut.filter((gap) => STATE_CLASS[gap.state] === 'parked').length;
  const gapsLeftOut = { ...view.gapsLeftOut, open: view.gapsLeftOut.open + leftOut.length - parked, parked: view.gapsLeftOut.parked + parked };
  return { next: { ...view, gaps, gapsLeftOut }, leftOut };
}

function sameMark(a: IndexMark, b: IndexMark): boolean {
  return a.seq === b.seq && a.sum === b.sum;
}

/**
 * The head with the closed gaps the requests name put back as the index
 * (`lookUp`) knows them (id, severity, state), so the rules judge them as
 * the whole view would; null when a request moves a closed gap (a reopen
 * needs the gap whole), names as the gap it duplicates one withdrawn or
 * split (the refusal names where that one went), or the index turns out
 * damaged where it is read.
 */
function withClosedGaps(head: SessionView, bodies: readonly EventBodyInput[], lookUp: (id: string) => ClosedGap | null): Working | null {
  try {
    return namingClosedGaps(head, bodies, lookUp);
  } catch (error) {
    if (error instanceof DamagedIndex) return null;
    throw error;
  }
}

function namingClosedGaps(head: SessionView, bodies: readonly EventBodyInput[], lookUp: (id: string) => ClosedGap | null): Working | null {
  const named = new Map<string, Gap>();
  for (const body of bodies) {
    const data = (body as { data?: Record<string, unknown> }).data ?? {};
    for (const key of ['id', 'spawnedBy', 'blockedBy', 'of']) {
      const id = data[key];
      if (typeof id !== 'string' || head.gaps.has(id)) continue;
      const closed = named.get(id) ?? lookUp(id);
      if (closed === null) continue;
      // Checked for every request that names it, not only the first: a batch may name a closed gap, then move it.
      if (body.type === 'gap.moved' && key === 'id') return null;
      // A duplicate of a gap itself withdrawn or split is refused naming where that gap went, which the index does not keep.
      if (key === 'of' && (closed.state === 'DUPLICATE' || closed.state === 'SPLIT')) return null;
      named.set(id, { title: '', spawnedBy: null, blocking: false, openedInRound: 0, reason: null, blockedBy: null, ...closed });
    }
  }
  return { view: named.size === 0 ? head : { ...head, gaps: new Map([...head.gaps, ...named]) }, named: new Set(named.keys()) };
}

/**
 * The index `parts` hold with `lines` added: the bytes an index write
 * takes. Reads it whole (a write that closes a gap rewrites it whole);
 * null when it can no longer be read as it was, or a bucket it changes is
 * damaged (the head then names no index, and the next write rebuilds one).
 */
function extendedIndex(parts: ClosedIndexParts, lines: string): Buffer | null {
  const body = parts.range(0, parts.bodyBytes);
  return body === null ? null : extendClosedIndex(body, lines);
}

/** The index lines for the gaps `appended` moved that end the batch closed (none was listed before: a listed gap is never moved on the head). */
function newlyClosedLines(view: SessionView, appended: readonly GapflowEvent[]): string {
  const moved = [...new Set(appended.flatMap((event) => (event.type === 'gap.moved' ? [event.data.id] : [])))];
  return closedIndexLines(moved.map((id) => view.gaps.get(id)).filter((gap): gap is Gap => gap !== undefined));
}

/**
 * Keeps a session's checkpoints up from its whole view: the head (what
 * `next` and a stop hook read, and a gap write decides on) with the closed
 * gaps' index it names, after every open and write; the whole view when the
 * store says one is due (or `now`). An open keeps them after its caller's
 * turn (on the event loop's next turn), so a read pays for reading only; a
 * write before then keeps them itself. A caller that never yields leaves
 * them unwritten, which loses nothing: the next open replays instead.
 */
class Keeper {
  readonly #checkpoints: Checkpoints;
  /** What an open left to keep once the caller's turn ends. */
  #pending: { timer: ReturnType<typeof setImmediate>; now: boolean; view: () => SessionView } | null = null;

  constructor(checkpoints: Checkpoints) {
    this.#checkpoints = checkpoints;
  }

  /** Keeps the checkpoints of `view` now (with whatever an open left waiting). */
  keep(view: SessionView, now = false): void {
    if (this.#pending !== null) {
      clearImmediate(this.#pending.timer);
      now ||= this.#pending.now;
      this.#pending = null;
    }
    const checkpoints = this.#checkpoints;
    checkpoints.saveHead(headFormat(), view.lastSeq, () => {
      const cut = cutHead(view);
      // Written first: a head names only an index that is on disk whole.
      const closed = checkpoints.saveClosedIndex(closedIndexFormat(), view.lastSeq, encodeClosedIndex(view, cut));
      return encodeCutHead(cut.head, closed, summaryOf(cut.head));
    });
    const atLeast = viewBytesAtLeast(view);
    if (now || checkpoints.due(atLeast)) checkpoints.save(viewFormat(), view.lastSeq, () => encodeView(view), atLeast);
  }

  /** Keeps them on the event loop's next turn, from the view as it then stands. */
  soon(view: () => SessionView, now: boolean): void {
    const timer = setImmediate(() => {
      this.#pending = null;
      this.keep(view(), now);
    });
    this.#pending = { timer, now, view };
  }

  /** Keeps now what an open left waiting (nothing when none is). */
  flush(): void {
    if (this.#pending !== null) this.keep(this.#pending.view());
  }
}

/** What a reader says of an empty log: which holds no session, and both ways out. */
function emptyLog(where: string): string {
  return `${where} line 1: the log is empty, so no session lives there: \`gapflow init\` starts one (or \`gapflow repair\` removes the file)`;
}

/**
 * Rebuilds the view from stored events. History is a fact (R19):
 * the lines were checked when they were read (whole, chained, in schema),
 * and each event is applied as it was recorded, never judged again by
 * today's rules (`verify` audits them). `observe` sees each event, settled,
 * with the view just before it.
 */
export function replay(events: readonly GapflowEvent[], where = 'log', observe?: (view: SessionView, event: SettledEvent) => void): SessionView {
  if (events.length === 0) throw new LogError(emptyLog(where), 1);
  return fold(events, (view, event) => {
    const settled = settle(view, event);
    if (settled) observe?.(view, settled);
    return settled;
  });
}

/**
 * The view a store holds, read from its checkpoint and the events after it
 * (a replay of every event when it has none that matches, or one that does
 * not decode). `fresh`: no checkpoint was used, so one is worth writing.
 * With no checkpoint at all, a store that can fold the events as it reads
 * them does (`resume`'s `fold`), so a long log is never held as a list.
 */
function resumeView(store: EventStore): { view: SessionView; fresh: boolean } {
  const folded: { by: Folding<GapflowEvent> | null } = { by: null };
  const startReplay = () => {
    folded.by = startFold((view, event: GapflowEvent) => settle(view, event));
    return (event: GapflowEvent) => folded.by!.take(event);
  };
  // A store without checkpoints (memory, a caller's own) is read whole.
  const { checkpoint, events } = checkpointsOf(store).resume(viewFormat(), startReplay);
  if (checkpoint === null && folded.by !== null) {
    if (folded.by.taken === 0) throw new LogError(emptyLog(store.location), 1);
    return { view: folded.by.finish(), fresh: false };
  }
  const base = checkpoint === null ? null : decodeView(checkpoint.body);
  if (base !== null && base.lastSeq === checkpoint?.seq) {
    return { view: events.length > 0 ? catchUp(base, events).view : base, fresh: false };
  }
  return { view: replay(checkpoint === null ? events : store.read(), store.location), fresh: checkpoint !== null };
}

/** The whole view of the session in `store`, read as a session opens it (from its checkpoint and the events after it), writing nothing. */
export function storedView(store: EventStore): SessionView {
  return resumeView(store).view;
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
  return verified(inspectLog(dir));
}

/** `verifyFileSession` for a session in any store that keeps sealed lines (a database stream). */
export function verifyStoreSession(store: EventStore): Verification {
  const lines = linesOf(store);
  if (lines === null) throw new LogError(`${store.location} keeps events, not sealed lines: there is no chain to verify`);
  const text = lines.text();
  const checked = checkLogText(text);
  const { fault } = checked;
  const message = fault === null ? null : `${store.location} line ${fault.line}: ${fault.reason}`;
  return verified({ location: store.location, bytes: Buffer.byteLength(text), ...checked, message });
}

function verified({ message, ...found }: LogInspection): Verification {
  if (message !== null) return { ...found, problem: message, line: found.fault?.line ?? null, findings: [] };
  if (found.events.length === 0) return { ...found, problem: emptyLog(found.location), line: 1, findings: [] };
  return { ...found, problem: null, line: null, findings: auditHistory(found.events).findings };
}

/** A state change, as a subscriber hears of it. */
export type StateChange = HistoryEntry;

/** What subscribers hear after each write or catch-up: the new events (outcomes included), the state changes they made, the view now. */
export interface SessionUpdate {
  events: readonly SettledEvent[];
  changes: readonly StateChange[];
  view: SessionView;
}
export type SessionListener = (update: SessionUpdate) => void;

/** A session's view now, and the listeners that hear each time it moves on. */
class ViewFeed {
  #view: SessionView;
  readonly #listeners = new Set<SessionListener>();

  constructor(view: SessionView) {
    this.#view = view;
  }

  get view(): SessionView {
    return this.#view;
  }

  /** Returns the unsubscribe. */
  subscribe(listener: SessionListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Moves the view on and tells subscribers what changed. */
  publish({ events, view }: { events: readonly SettledEvent[]; view: SessionView }): void {
    const before = this.#view;
    this.#view = view;
    if (this.#listeners.size === 0) return;
    const changes = stateChanges(before, view);
    for (const listener of this.#listeners) listener({ events, changes, view });
  }
}

/** The steps `next` added to `before`'s history that moved the state, as subscribers hear them. */
function stateChanges(before: SessionView, next: SessionView): StateChange[] {
  return next.history.slice(before.history.length).filter((entry) => entry.from !== entry.to);
}

/*
 * The formats a session's checkpoints are written and read under: the
 * view's shape and the version of gapflow that folded it (read from
 * package.json here, at the edge, not in the core). A checkpoint written
 * under another format is ignored, so a release never reads another
 * release's cache as its own: a fold that words a reason differently, or
 * mends a bug, shows its own figures at once.
 */

/** The whole view's checkpoint format. */
export function viewFormat(): string {
  return `${VIEW_SHAPE}/gapflow-${packageVersion() ?? 'unknown'}`;
}

/**
 * The head checkpoint's format (`gaps-N`: of a larger inventory it keeps the
 * first 2 x N gaps of each list; `left-out-3`: it names the index of what it
 * leaves out; `summary`: a fleet row's figures in front of the view). The
 * index's own format moved on to `left-out-4` without it: a head names its
 * index by the line it covers, and a write on the head opens the index under
 * closedIndexFormat, so a head that names an index of another format decides
 * nothing on it (the write opens the whole session and writes both anew),
 * while `next`, the hook and the fleet go on reading that head.
 */
export function headFormat(): string {
  return `${viewFormat()}/head-${HEAD_ROUNDS}-gaps-${LISTED_GAPS}-left-out-3-summary`;
}

/**
 * The format of the index that goes with heads of `headFormat`, which
 * lists the gaps the head leaves out: `left-out-4` lists the closed gaps and
 * the gaps not closed past the head's part of the list, their severity and
 * state a letter each (`left-out-3` spelt the words); `closed-2` listed
 * the closed ones only, and `closed-1` had no buckets. Another format is
 * ignored, and rebuilt by the next write.
 */
export function closedIndexFormat(): string {
  return `${viewFormat()}/left-out-4`;
}

export { stateFormat } from './state-format.js';
