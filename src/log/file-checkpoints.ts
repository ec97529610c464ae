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
  STATE_FILE,
  writeCheckpoint,
} from './checkpoint.js';
import { readCurrentHead } from './head.js';
import { scanBytes, type ChainPoint, type Scan } from './lines.js';
import { fileSizeOf, readFrom } from './log-path.js';
import { readStateCache } from './state-cache.js';
import type { Checkpoints, ClosedAt, EventSink, HeadForWrite, Resumed } from './types.js';

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

  save(format: string, seq: number, body: () => string): void {
    const known = this.#cursor.known;
    // Only a line with a written checksum can key a checkpoint (a log of version 1 lines alone has none).
    if (known === null || known.point.seq !== seq || seq === 0 || !known.point.sealed || !canWriteCheckpoint(this.#dir)) return;
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
   * Like `save`, for the head, but at any size: what reads the
   * head (`next`, a stop hook, a gap write) then loads no schema library,
   * which pays even where replaying a short log would not. Skipped when
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
    writeCheckpoint(this.#dir, { format, seq, end: known.end, lineBytes: known.lastLine.length, sum: known.point.sum }, body(), STATE_FILE);
  }

  state(format: string): string | null {
    return readStateCache(this.#dir, format)?.toString('utf8') ?? null;
  }

  due(): boolean {
    if (this.#cursor.known === null) return false;
    const past = this.#cursor.known.end - (this.#checkpoint?.end ?? 0);
    return past >= this.#minBytes && past * 4 >= (this.#checkpoint?.bodyBytes ?? 0);
  }
}
