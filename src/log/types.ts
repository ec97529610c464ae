import type { GapflowEvent } from '../../events/index.js';
import type { FollowOptions } from './follow.js';

/** A stored line the log could not take as an event, or a log that cannot be written now. */
export class LogError extends Error {
  override readonly name: string = 'LogError';

  /** @param line the log line the message names, when it names one */
  constructor(
    message: string,
    readonly line: number | null = null,
  ) {
    super(message);
  }
}

/** A write refused because the stream no longer ends where the writer expected; nothing was appended. */
export class VersionConflict extends LogError {
  constructor(
    location: string,
    readonly expected: number,
    readonly actual: number,
  ) {
    super(`${location}: expected the log to end at seq ${expected}, but it ends at seq ${actual}; nothing was written`);
  }
}

/**
 * A write whose answer was lost (the connection dropped after the commit
 * went out, a failed fsync after the write) and whose outcome the store
 * could not look up: its events may or may not be in the log. `retryId` is
 * the id a retry of the same request must carry so that it records nothing
 * twice (null when the write was a batch of several requests).
 */
export class OutcomeUnknown extends LogError {
  override readonly name = 'OutcomeUnknown';

  constructor(
    message: string,
    readonly events: readonly GapflowEvent[],
    readonly retryId: string | null = null,
  ) {
    super(message);
  }

  /** The same unknown outcome, naming the id a retry of its one request must carry. */
  retriedAs(retryId: string | null): OutcomeUnknown {
    return new OutcomeUnknown(this.message, this.events, retryId);
  }
}

/** What a writer decides once it holds the stream: the events to append (maybe none) and what to hand back. */
export interface Batch<T> {
  events: readonly GapflowEvent[];
  result: T;
}

/**
 * The store port: where a session's events live (one stream per store). A
 * store knows lines and versions, not rules: the version is the last event's
 * seq (0: no events), every event is appended whole and durably or not at
 * all, and event ids are unique in a stream. The JSONL file (`FileLog`) is
 * the embedded default, `MemoryLog` holds a stream in memory; one
 * conformance suite (test/log/store-conformance.test.ts) holds every store to
 * the same contract. Synchronous, as the CLI is: a store over a networked
 * database runs its driver off the main thread or behind this same shape.
 */
export interface EventStore {
  /** For messages: the file path, or `memory`. */
  readonly location: string;
  /** Whether a stream lives here. */
  exists(): boolean;
  /** The events after version `from` (0: all), in order; throws LogError naming the first bad line. */
  read(from?: number): GapflowEvent[];
  /** Starts the stream with its first events; refuses if one exists. */
  create(events: readonly GapflowEvent[]): void;
  /** The stream's event with this id, if any (for idempotent retries). */
  byId(id: string): GapflowEvent | undefined;
  /**
   * One writer at a time: holding the stream (a lock, a transaction), hands
   * `decide` the events appended after `knownVersion`, then appends the batch
   * it returns, durably, before returning its result. With `expected`,
   * refuses (VersionConflict) before deciding unless the stream ends there
   * (given as a function, it is asked holding the stream, with the version
   * the stream has then; undefined: no expectation). A throw appends nothing.
   */
  transact<T>(knownVersion: number, decide: (fresh: readonly GapflowEvent[]) => Batch<T>, expected?: Expected): T;
  /** Appends events (already stamped) if the stream ends at `expectedVersion`; VersionConflict otherwise. */
  append(events: readonly GapflowEvent[], expectedVersion: number): void;
  /**
   * Calls `listener` with the events appended after `from`, by this process
   * or another, as they come, until the returned function is called.
   */
  follow(from: number, listener: (events: readonly GapflowEvent[]) => void, options?: FollowOptions): () => void;
}

/**
 * The checkpoints a store keeps beside its stream (the port a Session uses
 * to start and keep up cheaply): the whole view, the head (what the loop's
 * questions and a gap or round write decide on), the closed gaps' index the
 * head names, and a stored `state --json`. Each is a cache keyed by the
 * line it covers: one that no longer matches is not used, one that cannot
 * be written is not written (never an error). `checkpointsOf(store)` gives
 * a store's own, or none (`noCheckpoints`) for a store that keeps none
 * (checkpoint.ts).
 */
export interface Checkpoints {
  /**
   * Where a reader starts: the latest checkpoint of `format` that still
   * matches the stream (its body, and the seq it covers), with the events
   * after it; or, when none matches, no checkpoint and every event. Throws
   * LogError as `read` does for a bad line after the checkpoint.
   *
   * `fold`, when given: with no checkpoint that matches, the store may hand
   * every event to a sink it gets from `fold()` as it reads them, instead of
   * returning them (then `events` is empty); a read that starts over asks
   * for a new sink, and only the last one made counts.
   */
  resume(format: string, fold?: () => EventSink): Resumed;
  /**
   * Keeps `body()` as the checkpoint of `format` for the stream as the store
   * last saw it end, at `seq` (a store that has seen it end elsewhere, or
   * cannot write one, keeps nothing and never calls `body`).
   * `bytesAtLeast`: a floor under the body's size, known before it is
   * encoded; a store may judge from it that the checkpoint does not pay (a
   * folder keeps none while it is over half the log it covers, where it
   * would be a second copy of the gaps: FileCheckpoints.save).
   */
  save(format: string, seq: number, body: () => string, bytesAtLeast?: number): void;
  /** Whether enough of the stream lies after the last checkpoint that writing a new one pays (or, given the next body's `bytesAtLeast`, that the one kept no longer does). */
  due(bytesAtLeast?: number): boolean;
  /** The head checkpoint of `format` when it covers the stream's last event exactly; null otherwise. */
  head(format: string): string | null;
  /** Keeps `body()` as the head checkpoint at `seq`, as `save` keeps the whole one. */
  saveHead(format: string, seq: number, body: () => string): void;
  /**
   * For a write decided on the head: the head checkpoint of `headFormat`
   * when it covers the stream's last event exactly, with the closed gaps'
   * index of `indexFormat` (null when there is none whole), the store then
   * appending after the head's event without reading what comes before;
   * null when the head is not current.
   */
  headForWrite(headFormat: string, indexFormat: string): HeadForWrite | null;
  /** Keeps `body` as the closed gaps' index at `seq`; returns what a head names it by, or null when nothing was written. */
  saveClosedIndex(format: string, seq: number, body: string | Buffer): ClosedAt | null;
  /** Keeps `body()`, the `state --json` output of the view at `seq`, for a reader to print as it is while the stream still ends at `seq`. */
  saveState(format: string, seq: number, body: () => string): void;
  /** What `saveState` kept for `format`, when it covers the stream's last event exactly; null otherwise. */
  state(format: string): string | null;
}

/**
 * A stream as a JSONL log holds it, for `gapflow export` and `import`, which
 * move lines as they were written (a store that keeps events, not lines,
 * such as memory, has none).
 */
export interface SealedLines {
  /** Every sealed line as it was written, each ending in a newline, unchecked (`exportLog` checks it). */
  text(): string;
  /** Starts the stream with sealed lines exactly as given (`importLog` has checked them, and hands the events they hold); refuses if one exists. */
  create(text: string, events: readonly GapflowEvent[]): void;
}

/** A store with sealed lines of its own (FileLog, PgLog). */
export interface KeepsLines {
  readonly lines: SealedLines;
}

/** The sealed lines `store` keeps, or null when it keeps events, not lines. */
export function linesOf(store: EventStore): SealedLines | null {
  return 'lines' in store ? (store as EventStore & KeepsLines).lines : null;
}

/** Which closed gaps' index a head goes with: the seq and checksum of the event it was written at. */
export interface ClosedAt {
  seq: number;
  sum: string;
}

/** What `Checkpoints.headForWrite` finds: the head's body, and the index (read in parts, and what names it). */
export interface HeadForWrite {
  head: string;
  /** The index's first line (its table of buckets, checked) and the rest of its bytes by range: a lookup reads the one bucket it needs. */
  index: { at: ClosedAt; parts: BodyParts } | null;
}

/** A checkpoint body read in parts: its first bytes (the first line whole), its length, and any range of it (null when that cannot be read as it was). */
export interface BodyParts {
  first: Buffer;
  bodyBytes: number;
  range(offset: number, length: number): Buffer | null;
}

/** Takes each good event as a reader reads it. */
export type EventSink = (event: GapflowEvent) => void;

/** Where a reader starts (`Checkpoints.resume`). */
export interface Resumed {
  checkpoint: { seq: number; body: string } | null;
  /** The events after the checkpoint (all of them, without one, unless they went to `resume`'s `fold`). */
  events: GapflowEvent[];
}

/** The version a write expects the stream to end at, or how to work it out from the version it ends at. */
export type Expected = number | ((version: number) => number | undefined);
