import type { GapflowEvent } from '../../events/index.js';
import {
  canWriteCheckpoint,
  CLOSED_FILE,
  HEAD_FILE,
  keyLineEnd,
  openCheckpointParts,
  readCheckpoint,
  readCheckpointKey,
  readCurrent,
  removeCheckpoint,
  removeViewCheckpoint,
  STATE_FILE,
  writeCheckpoint,
} from './checkpoint.js';
import { fileSizeOf, fsyncFolder, holdsNoSession, makeFolder, readFrom, readLogBytes, sealedBytes, writeAll, writeNewFile, isCode } from './files.js';
import { followLog, type FollowOptions } from './follow.js';
import { readCurrentHead } from './head.js';
import { IdIndex } from './id-index.js';
import { formatLines, storedSum } from './chain.js';
import { assertExpected, CHAIN_START, continues, faultMessage, scanBytes, type ChainPoint, type Scan } from './lines.js';
import { waitForWriter, withLock, type Lease } from './lock.js';
import { LOG_FILE } from './log-name.js';
import { packState, readStateCache } from './state-cache.js';
import {
  LogError,
  OutcomeUnknown,
  type Batch,
  type Checkpoints,
  type ClosedAt,
  type EventSink,
  type EventStore,
  type Expected,
  type HeadForWrite,
  type Resumed,
  type SealedLines,
} from './types.js';

const { randomBytes } = process.getBuiltinModule('node:crypto');
const { closeSync, fstatSync, fsyncSync, ftruncateSync, linkSync, openSync, renameSync, rmSync } = process.getBuiltinModule('node:fs');
const { join, resolve } = process.getBuiltinModule('node:path');

export { LOG_FILE };

/**
 * A checkpoint is rewritten once the log past it reaches a quarter of the
 * checkpoint's own size (reads then never fold more than that), and never
 * for less than this: a small log replays faster than a checkpoint pays.
 */
export const CHECKPOINT_MIN_TAIL_BYTES = 64 * 1024;

/** How many writes this process has made to each log (by path): what a write did, told apart from what others wrote beside it. */
const writes = new Map<string, number>();

function wroteHere(location: string): void {
  const key = resolve(location);
  writes.set(key, (writes.get(key) ?? 0) + 1);
}

/** How many writes (a start, an append) this process has made to the log at `location` so far. */
export function writesHere(location: string): number {
  return writes.get(resolve(location)) ?? 0;
}

/**
 * The embedded default: `<dir>/events.jsonl`, one sealed event a line.
 * Appends hold the lock, look at what other writers added since this object
 * last looked, and write each batch with one write on an append-mode
 * descriptor, fsynced before they return. A file is created whole (written
 * aside, fsynced, then linked into place) and its folder fsynced.
 */
export class FileLog implements EventStore {
  readonly location: string;
  /** The checkpoints kept beside the log: what a session reads to start cheaply, and keeps up after each write. */
  readonly checkpoints: FileCheckpoints;
  /** The log as sealed lines, moved as they are (`gapflow export` and `import`). */
  readonly lines: SealedLines;
  /** How far this object has read the log and found it good; shared with its checkpoints, which read it too. */
  readonly #cursor: FileCursor;
  /** Every event by id, built only when an id is first looked up (a request that carries one), then kept up to date. */
  #ids: IdIndex | null = null;

  /** `minCheckpointBytes`: below this many bytes of log a checkpoint does not pay (CHECKPOINT_MIN_TAIL_BYTES; a test may lower it). */
  constructor(
    readonly dir: string,
    options: { minCheckpointBytes?: number } = {},
  ) {
    this.location = join(dir, LOG_FILE);
    this.#cursor = { known: null, readWhole: (sink) => this.#readWhole(sink), exists: () => this.exists() };
    this.checkpoints = new FileCheckpoints(dir, this.location, this.#cursor, options.minCheckpointBytes ?? CHECKPOINT_MIN_TAIL_BYTES);
    this.lines = {
      text: () => readLogBytes(this.location, this.dir).toString('utf8'),
      create: (text, events) => this.#createSealed(text, events),
    };
  }

  /**
   * Whether a session lives here. An empty file holds none (it is what a
   * writer leaves when the log is deleted under it): `init` may replace it.
   * Anything else at the log's path counts, so that reading it names it.
   */
  exists(): boolean {
    return !holdsNoSession(this.location);
  }

  read(from = 0): GapflowEvent[] {
    const scan = this.#readWhole();
    // seq runs 1, 2, 3… with no gap, so the events after version `from` start at index `from`.
    return from === 0 ? scan.events : scan.events.slice(from);
  }

  /** Every line, checked; with `sink`, the events go to it rather than into the scan's list. */
  #readWhole(sink?: () => EventSink): Scan {
    let scan = this.#scanFile(sink);
    // A torn tail may be a write still under way: look again once its writer lets go (waiting, never locking).
    if (scan.torn && waitForWriter(this.location)) scan = this.#scanFile(sink);
    if (scan.fault) throw new LogError(faultMessage(this.location, scan));
    return scan;
  }

  byId(id: string): GapflowEvent | undefined {
    this.#ids ??= new IdIndex();
    return this.#ids.find(id, this.location, (version) => ({ events: this.read(version), size: this.#cursor.known?.end ?? 0 }));
  }

  transact<T>(knownVersion: number, decide: (fresh: readonly GapflowEvent[]) => Batch<T>, expected?: Expected): T {
    let written: readonly GapflowEvent[] = [];
    const result = this.#update(knownVersion, (fresh) => {
      this.#ids?.add(fresh);
      assertExpected(this.location, expected, this.#cursor.known?.point.seq ?? 0);
      const batch = decide(fresh);
      written = batch.events;
      return batch;
    });
    this.#ids?.add(written);
    if (this.#cursor.known) this.#ids?.covers(this.#cursor.known.point.seq, this.#cursor.known.end);
    return result;
  }

  append(events: readonly GapflowEvent[], expectedVersion: number): void {
    this.transact(
      expectedVersion,
      () => {
        const taken = events.find((event) => this.byId(event.id) !== undefined);
        if (taken) throw new LogError(`${this.location}: event id ${taken.id} is already in the log; nothing was written`);
        return { events, result: undefined };
      },
      expectedVersion,
    );
  }

  follow(from: number, listener: (events: readonly GapflowEvent[]) => void, options: FollowOptions = {}): () => void {
    // What this object has read already is not read again: the follower starts where it ended, when that is `from`.
    const known = this.#cursor.known;
    const cursor = known === null ? null : { end: known.end, point: known.point, lastLine: known.lastLine };
    return followLog(this.location, from, cursor, listener, options);
  }

  create(events: readonly GapflowEvent[]): void {
    const { text, sum, lines } = formatLines(events);
    this.#place(Buffer.from(text, 'utf8'), { seq: events.at(-1)?.seq ?? 0, sum, sealed: true }, Buffer.from(lines.at(-1) ?? '', 'utf8'));
  }

  #createSealed(text: string, events: readonly GapflowEvent[]): void {
    const bytes = Buffer.from(text, 'utf8');
    const last = bytes.lastIndexOf(0x0a, bytes.length - 2) + 1;
    const lastLine = Buffer.from(bytes.subarray(last));
    const sum = storedSum(lastLine.toString('utf8', 0, lastLine.length - 1));
    this.#place(bytes, { seq: events.at(-1)?.seq ?? 0, sum: sum ?? '', sealed: sum !== null }, lastLine);
  }

  /** Writes a new log whole (aside, fsynced, linked into place), ending at `point` with `lastLine`. */
  #place(bytes: Buffer, point: ChainPoint, lastLine: Buffer): void {
    makeFolder(this.dir);
    const aside = `${this.location}.${randomBytes(6).toString('hex')}.new`;
    try {
      writeNewFile(aside, bytes);
      placeNewLog(aside, this.location);
      wroteHere(this.location);
    } finally {
      // Placed or not, the aside copy goes (a failed write, a full disk, must not leave it behind).
      rmSync(aside, { force: true });
    }
    fsyncFolder(this.dir);
    // A checkpoint left by a session that lived here before is no cache of this one (its key would not match anyway).
    this.checkpoints.forget();
    this.#cursor.known = { end: bytes.length, point, lastLine };
  }

  #update<T>(afterSeq: number, step: (fresh: readonly GapflowEvent[]) => Batch<T>): T {
    return withLock(this.location, (lease) => {
      const fresh = this.#catchUp(afterSeq);
      const { events, result } = step(fresh);
      this.#write(events, lease);
      return result;
    });
  }

  #scanFile(sink?: () => EventSink): Scan {
    const bytes = readLogBytes(this.location, this.dir);
    const scan = scanBytes(bytes, CHAIN_START, 0, 'sealed', {}, sink);
    if (!scan.fault) this.#remember(bytes, scan, CHAIN_START, 0);
    return scan;
  }

  /** `bytes` were scanned from byte `offset` of the file, after `from`. */
  #remember(bytes: Buffer, scan: Scan, from: ChainPoint, offset: number): void {
    const lastLine = scan.lastLineBytes > 0 ? Buffer.from(bytes.subarray(scan.goodBytes - scan.lastLineBytes, scan.goodBytes)) : this.#cursor.known?.lastLine;
    this.#cursor.known = { end: offset + scan.goodBytes, point: scan.goodBytes > 0 ? scan.end : from, lastLine: lastLine ?? Buffer.alloc(0) };
  }

  /** Under the lock: the events after `afterSeq`, reading only what was added since this object last looked when it can. */
  #catchUp(afterSeq: number): GapflowEvent[] {
    const known = this.#cursor.known;
    if (known === null || known.point.seq !== afterSeq) {
      const scan = this.#scanFile();
      if (scan.fault) throw new LogError(`${faultMessage(this.location, scan)}; nothing was written`);
      return scan.events.slice(afterSeq);
    }
    const bytes = readFrom(this.location, known.end - known.lastLine.length);
    if (bytes.length < known.lastLine.length || !bytes.subarray(0, known.lastLine.length).equals(known.lastLine)) {
      throw new LogError(`${this.location} changed beneath this call (repaired or replaced?); nothing was written: run it again`);
    }
    const added = bytes.subarray(known.lastLine.length);
    const scan = scanBytes(added, known.point, known.end);
    if (scan.fault) throw new LogError(`${faultMessage(this.location, scan)}; nothing was written`);
    this.#remember(added, scan, known.point, known.end);
    return scan.events;
  }

  #write(events: readonly GapflowEvent[], lease: Lease): void {
    if (events.length === 0) return;
    const known = this.#cursor.known!;
    const { end, lastLine } = appendSealed(this.location, { end: known.end, seq: known.point.seq, sum: known.point.sum }, events, lease);
    this.#cursor.known = { end: end.end, point: { seq: end.seq, sum: end.sum, sealed: true }, lastLine };
    wroteHere(this.location);
  }
}

/** Where the log ends, as a writer holding the lock found it: its size, and its last line's seq and checksum. */
export interface LogEnd {
  end: number;
  seq: number;
  sum: string;
}

/**
 * Appends `events` to the log at `location` as sealed lines after `after`,
 * holding the lock (`lease`): the seqs must run on, no line or the log may
 * pass its limit, and the log must still end at `after.end`; then one write,
 * fsynced, or none (a failed write is cut back). Returns the new end and the
 * last line written.
 */
export function appendSealed(location: string, after: LogEnd, events: readonly GapflowEvent[], lease: Lease): { end: LogEnd; lastLine: Buffer } {
  continues(events, after.seq, location);
  const { lines, sum } = formatLines(events, after.sum);
  sealedBytes(location, events, lines, after.end);
  const bytes = Buffer.from(lines.join(''), 'utf8');
  const fd = openSync(location, 'a');
  try {
    // Two fences, last thing before the write: the lock is still ours (renewed, so no waiter on another host takes it
    // for stale now), and the log still ends where this batch was decided against.
    lease.confirm();
    if (fstatSync(fd).size !== after.end) {
      throw new LogError(`${location} grew beneath this write (another writer appended without holding the lock); nothing was written: run it again`);
    }
    try {
      writeAll(fd, bytes);
      fsyncSync(fd);
    } catch (error) {
      cutBack(location, fd, after.end, events, error);
      throw error;
    }
  } finally {
    closeSync(fd);
  }
  return { end: { end: after.end + bytes.length, seq: events.at(-1)!.seq, sum }, lastLine: Buffer.from(lines.at(-1)!, 'utf8') };
}

/**
 * After a failed write or fsync (a full disk, an I/O error): the log cut back
 * to where it ended and that made durable, so the batch is surely not there
 * and no half line is left for the next writer to find. When even that
 * fails, whether the batch is in the log is not known: OutcomeUnknown.
 */
function cutBack(location: string, fd: number, end: number, events: readonly GapflowEvent[], cause: unknown): void {
  try {
    ftruncateSync(fd, end);
    fsyncSync(fd);
  } catch (error) {
    const why = (e: unknown) => (e instanceof Error ? e.message : String(e));
    throw new OutcomeUnknown(`${location}: the write failed (${why(cause)}) and the log could not be cut back to where it ended (${why(error)})`, events);
  }
}

/**
 * Links the finished log at `aside` into place. A log is never empty while
 * gapflow writes it, so an empty file there is debris (the log deleted under
 * a writer): under the lock it is replaced, since it holds nothing to lose.
 */
function placeNewLog(aside: string, location: string): void {
  try {
    linkSync(aside, location);
    return;
  } catch (error) {
    if (!isCode(error, 'EEXIST')) throw error;
  }
  withLock(location, () => {
    if (!holdsNoSession(location)) throw new LogError(`${location} already exists; a session lives there`);
    renameSync(aside, location);
  });
}

/** How far a FileLog has read its file and found it good: the next append goes after `end`. */
export interface Known {
  end: number;
  point: ChainPoint;
  /** The last good line's bytes: if they are not where they were, the file changed beneath us. */
  lastLine: Buffer;
}

/** What a folder's checkpoints share with its log: how far it was read and found good, and its whole read. */
export interface FileCursor {
  known: Known | null;
  readWhole(sink?: () => EventSink): Scan;
  exists(): boolean;
}

/**
 * The checkpoints of a session folder, files beside its log: the whole
 * view (checkpoint.json), the head (what the loop's questions and a gap
 * write read), the closed gaps' index the head names, and the stored
 * `state --json`. Each is keyed by the log line it covers and is a cache:
 * one that does not match is not used, one that cannot be written is not
 * written.
 */
export class FileCheckpoints implements Checkpoints {
  /** Where the checkpoint this object loaded or wrote ends in the log, and its body's size; null: none. */
  #checkpoint: { end: number; bodyBytes: number } | null = null;
  /** The seq the head checkpoint this object last wrote covers. */
  #headSeq = 0;

  readonly #dir: string;
  readonly #location: string;
  readonly #cursor: FileCursor;
  /** Below this many bytes of log past it, a checkpoint does not pay. */
  readonly #minBytes: number;

  constructor(dir: string, location: string, cursor: FileCursor, minBytes: number) {
    this.#dir = dir;
    this.#location = location;
    this.#cursor = cursor;
    this.#minBytes = minBytes;
  }

  /** A new log was placed: the checkpoints of whatever lived here before are no cache of it. */
  forget(): void {
    removeCheckpoint(this.#dir);
    this.#checkpoint = null;
  }

  resume(format: string, fold?: () => EventSink): Resumed {
    const found = readCheckpoint(this.#dir, format);
    if (found !== null) {
      const { key, body, bodyBytes } = found;
      const from = key.end - key.lineBytes - (key.end > key.lineBytes ? 1 : 0);
      const bytes = this.#cursor.exists() ? readFrom(this.#location, from) : null;
      const after = bytes === null ? -1 : keyLineEnd(bytes, key);
      if (bytes !== null && after !== -1) {
        const point: ChainPoint = { seq: key.seq, sum: key.sum, sealed: true };
        const tail = bytes.subarray(after);
        const scan = scanBytes(tail, point, key.end);
        // A bad line past the checkpoint is read as a whole read finds it (waiting out a writer, naming the line).
        if (!scan.fault) {
          const lastLine =
            scan.goodBytes > 0 ? tail.subarray(scan.goodBytes - scan.lastLineBytes, scan.goodBytes) : bytes.subarray(after - key.lineBytes, after);
          this.#cursor.known = { end: key.end + scan.goodBytes, point: scan.goodBytes > 0 ? scan.end : point, lastLine: Buffer.from(lastLine) };
          this.#checkpoint = { end: key.end, bodyBytes };
          return { checkpoint: { seq: key.seq, body }, events: scan.events };
        }
      }
    }
    this.#checkpoint = null;
    return { checkpoint: null, events: this.#cursor.readWhole(fold).events };
  }

  /**
   * Keeps the view's checkpoint, unless its gaps alone (`bytesAtLeast`, known
   * before it is encoded) run to over half the log it covers. That is a log
   * made mostly of its gaps' openings: the checkpoint would be a second copy
   * of the inventory beside the log, and reading it saves less than it
   * weighs (at 100,000 gaps, 0.98 s from a 27.6 MB view against 1.19 s
   * replaying the 27.6 MB log). Such a session trades that read time for the
   * disk: the one kept before is removed (an older release wrote it whatever
   * its size), and reads replay the log. A session with no checkpoint gets
   * one again only once its gaps are under 40% of its log, so a log that
   * hovers about the half is not given a checkpoint and had it removed by
   * turns.
   */
  save(format: string, seq: number, body: () => string, bytesAtLeast = 0): void {
    const known = this.#cursor.known;
    // Only a line with a written checksum can key a checkpoint (a log of version 1 lines alone has none).
    if (known === null || known.point.seq !== seq || seq === 0 || !known.point.sealed || !canWriteCheckpoint(this.#dir)) return;
    if (bytesAtLeast * 2 > known.end) {
      removeViewCheckpoint(this.#dir);
      this.#checkpoint = null;
      return;
    }
    if (this.#checkpoint === null && bytesAtLeast * 5 > known.end * 2) return;
    const key = { format, seq, end: known.end, lineBytes: known.lastLine.length, sum: known.point.sum };
    const bodyBytes = writeCheckpoint(this.#dir, key, body());
    if (bodyBytes !== null) this.#checkpoint = { end: known.end, bodyBytes };
  }

  /**
   * The head checkpoint of `format`, when it covers the log's last line
   * exactly (nothing was appended after it); null otherwise. Reads the
   * head and one line of the log, whatever the log's length.
   */
  head(format: string): string | null {
    return readCurrentHead(this.#dir, format);
  }

  /**
   * The head of `headFormat` when it covers the log's last line, with the
   * closed gaps' index of `indexFormat`; this object then appends after the
   * head's line, checking only that line (as after a read that ended there).
   */
  headForWrite(headFormat: string, indexFormat: string): HeadForWrite | null {
    const current = readCurrent(this.#dir, headFormat, HEAD_FILE, this.#location);
    if (current === null) return null;
    const { key, body, lastLine } = current;
    const index = openCheckpointParts(this.#dir, indexFormat, CLOSED_FILE);
    this.#cursor.known = { end: key.end, point: { seq: key.seq, sum: key.sum, sealed: true }, lastLine };
    this.#checkpoint = null;
    return { head: body.toString('utf8'), index: index === null ? null : { at: { seq: index.key.seq, sum: index.key.sum }, parts: index } };
  }

  saveClosedIndex(format: string, seq: number, body: string | Buffer): ClosedAt | null {
    const known = this.#cursor.known;
    if (known === null || known.point.seq !== seq || seq === 0 || !known.point.sealed) return null;
    const key = { format, seq, end: known.end, lineBytes: known.lastLine.length, sum: known.point.sum };
    return writeCheckpoint(this.#dir, key, body, CLOSED_FILE) === null ? null : { seq, sum: known.point.sum };
  }

  /**
   * Like `save`, for the head, but at any size: what reads the head
   * (`next` and a stop hook, which then load no schema library; a gap or
   * round write, which then reads a few kilobytes) pays even where
   * replaying a short log would not. Skipped when
   * the head on disk already covers `seq`, and when the log has grown since
   * this object saw it end (another writer's head will cover that).
   */
  saveHead(format: string, seq: number, body: () => string): void {
    const known = this.#cursor.known;
    if (known === null || known.point.seq !== seq || seq === 0 || !known.point.sealed || this.#headSeq === seq) return;
    if (!canWriteCheckpoint(this.#dir)) return;
    const onDisk = readCheckpointKey(this.#dir, HEAD_FILE);
    if (onDisk !== null && onDisk.format === format && onDisk.seq === seq && onDisk.end === known.end && onDisk.sum === known.point.sum) {
      this.#headSeq = seq;
      return;
    }
    if (fileSizeOf(this.#location) !== known.end) return;
    const key = { format, seq, end: known.end, lineBytes: known.lastLine.length, sum: known.point.sum };
    if (writeCheckpoint(this.#dir, key, body(), HEAD_FILE) !== null) this.#headSeq = seq;
  }

  /**
   * Keeps `body()`, the `state --json` output of the view at `seq`, for the
   * next `state --json` to print as it is (src/log/state-cache.ts) while the
   * log still ends there. As for the head, not for a log under the size
   * where rebuilding it costs little, nor when the log has grown since this
   * object saw it end (the file could never be read as current). Best
   * effort: a folder that cannot take it leaves the call as it was.
   */
  saveState(format: string, seq: number, body: () => string): void {
    const known = this.#cursor.known;
    if (known === null || known.point.seq !== seq || seq === 0 || !known.point.sealed) return;
    if (known.end < this.#minBytes || !canWriteCheckpoint(this.#dir) || fileSizeOf(this.#location) !== known.end) return;
    const packed = packState(format, body());
    writeCheckpoint(this.#dir, { format: packed.format, seq, end: known.end, lineBytes: known.lastLine.length, sum: known.point.sum }, packed.body, STATE_FILE);
  }

  state(format: string): string | null {
    return readStateCache(this.#dir, format)?.toString('utf8') ?? null;
  }

  due(bytesAtLeast = 0): boolean {
    if (this.#cursor.known === null) return false;
    // A checkpoint that no longer pays (an older release's, say) is due to go: save removes it.
    if (this.#checkpoint !== null && bytesAtLeast * 2 > this.#cursor.known.end) return true;
    const past = this.#cursor.known.end - (this.#checkpoint?.end ?? 0);
    return past >= this.#minBytes && past * 4 >= (this.#checkpoint?.bodyBytes ?? 0);
  }
}
