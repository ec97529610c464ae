import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { GapflowEvent } from '../../events/index.js';
import { appendSealed } from './append.js';
import { IdIndex } from './id-index.js';
import { LOG_FILE } from './log-name.js';
import { fsyncFolder, makeFolder, writeNewFile } from './durable.js';
import { CHAIN_START, faultMessage, formatLines, scanBytes, storedSum, type ChainPoint, type Scan } from './lines.js';
import { waitForWriter, withLock, type Lease } from './lock.js';
import { followLog, type FollowOptions } from './follow.js';
import { holdsNoSession, placeNewLog, readFrom, readLogBytes } from './log-path.js';
import { FileCheckpoints, type FileCursor } from './file-checkpoints.js';
import { assertExpected, LogError, type Batch, type EventSink, type EventStore, type Expected, type SealedLines } from './types.js';

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
