import type * as Zlib from 'node:zlib';
import { closedTableOf, type ClosedBucket } from '../../core/index.js';
import type { BodyParts, ClosedAt, HeadForWrite } from '../types.js';
import type { Row, Step } from './protocol.js';
import * as sql from './statements.js';

const { randomUUID } = process.getBuiltinModule('node:crypto');

/*
 * A database session's head and closed gaps' index, as a folder keeps
 * checkpoint.head.json and checkpoint.closed.json (schema.ts, migration 4):
 * what `next`, a stop hook and a gap or round write read instead of the
 * whole view, so that on a session of 100,000 gaps they read a few
 * kilobytes, as on a folder. The head is a checkpoints row; the index a row
 * that names it (its table line) and a row per bucket. Each is a cache keyed
 * by the event it covers (its seq and checksum): a row that no longer
 * matches is not used, and one that cannot be written is not written (never
 * an error).
 */

/** What the head rows share with their store: where it last saw the stream end, and its connection (which throws as the store's does). */
export interface HeadCursor {
  known(): { seq: number; sum: string } | null;
  /** The store appends next after this event (a write decided on the head reads nothing before it). */
  endsAt(known: { seq: number; sum: string }): void;
  run(steps: Step[]): Row[][];
}

/** The index this object last opened or wrote: which write of it the rows are, and its buckets' lengths and crcs. */
interface OpenedIndex {
  token: string;
  buckets: readonly ClosedBucket[];
}

export class HeadRows {
  /** The seq of the head this object last wrote, or found current. */
  #headSeq = 0;
  #opened: OpenedIndex | null = null;

  constructor(
    readonly session: string,
    readonly cursor: HeadCursor,
  ) {}

  /** The head of `format` when it covers the stream's last event exactly; null otherwise. One statement. */
  head(format: string): string | null {
    const found = this.cursor.run([sql.currentCheckpoint(this.session, 'head', format)])[0]![0];
    return found === undefined ? null : String(found.body);
  }

  /**
   * The head when it covers the stream's last event, with the row that names
   * the index (its table line), in one statement: a lookup then reads its one
   * bucket by `parts.range`. The store then appends after the head's event,
   * as after a read that ended there.
   */
  headForWrite(headFormat: string, indexFormat: string): HeadForWrite | null {
    const found = this.cursor.run([sql.headForWrite(this.session, headFormat, indexFormat)])[0]![0];
    if (found === undefined) return null;
    this.cursor.endsAt({ seq: Number(found.seq), sum: String(found.sum) });
    return { head: String(found.body), index: found.token === null ? null : this.#openIndex(found) };
  }

  #openIndex(found: Row): { at: ClosedAt; parts: BodyParts } | null {
    const first = Buffer.from(String(found.table_line), 'utf8');
    const bodyBytes = Number(found.body_bytes);
    const table = closedTableOf(first, bodyBytes);
    if (table === null || table.tableBytes !== first.length) return null;
    const opened = { token: String(found.token), buckets: table.buckets };
    this.#opened = opened;
    return {
      at: { seq: Number(found.index_seq), sum: String(found.index_sum) },
      parts: { first, bodyBytes, range: (offset, length) => this.#range(opened, first, bodyBytes, offset, length) },
    };
  }

  /**
   * Bytes `offset` to `offset + length` of the index `opened` names: its
   * table line, then the buckets the range covers, read in one statement
   * while the index is still that write, each checked against its length
   * and crc. A bucket that does not match drops the row that names the index
   * (the next write rewrites every bucket) and gives null, as a file changed
   * under its reader does.
   */
  #range(opened: OpenedIndex, first: Buffer, bodyBytes: number, offset: number, length: number): Buffer | null {
    if (!Number.isSafeInteger(offset) || !Number.isSafeInteger(length) || offset < 0 || length < 0 || offset + length > bodyBytes) return null;
    const end = offset + length;
    const covered = opened.buckets.flatMap((bucket, n) => (bucket.bytes > 0 && bucket.offset < end && bucket.offset + bucket.bytes > offset ? [n] : []));
    if (covered.length === 0) return first.subarray(offset, end);
    let rows: Row[];
    try {
      rows = this.cursor.run([sql.closedBuckets(this.session, opened.token, covered[0]!, covered.at(-1)!)])[0]!;
    } catch {
      return null;
    }
    const stored = new Map(rows.map((row) => [Number(row.bucket), Buffer.from(String(row.text), 'latin1')]));
    const parts: Buffer[] = [first];
    for (let n = covered[0]!; n <= covered.at(-1)!; n++) {
      const bucket = opened.buckets[n]!;
      if (bucket.bytes === 0) continue;
      const bytes = stored.get(n);
      if (bytes === undefined || bytes.length !== bucket.bytes || zlib().crc32(bytes) !== bucket.crc) {
        this.#forget(opened);
        return null;
      }
      parts.push(bytes);
    }
    // From the table line's start: the buckets before the first covered one are not read, so they are skipped here.
    const skipped = opened.buckets[covered[0]!]!.offset - first.length;
    const body = Buffer.concat(parts);
    return body.subarray(offset - (offset >= first.length ? skipped : 0), end - skipped);
  }

  /** Drops the row that names the index `opened` (best effort): its buckets are not what its table says. */
  #forget(opened: OpenedIndex): void {
    if (this.#opened === opened) this.#opened = null;
    try {
      this.cursor.run([sql.forgetClosedIndex(this.session, opened.token)]);
    } catch {
      // A cache: the bucket stays damaged until a write replaces it, and each lookup that reads it gives way to the whole view.
    }
  }

  /**
   * Keeps `body()` as the head at `seq`, when this store last saw the stream
   * end there; skipped when the head row already covers `seq` (one small
   * statement, so an open that finds the head current builds no body), and
   * when the stream has moved on (another writer's head will cover that).
   * The row is written only while the stream still ends at `seq`.
   */
  saveHead(format: string, seq: number, body: () => string): void {
    const known = this.cursor.known();
    if (known === null || known.seq !== seq || seq === 0 || known.sum === '' || this.#headSeq === seq) return;
    let found: Row | undefined;
    try {
      found = this.cursor.run([sql.headKey(this.session)])[0]![0];
    } catch {
      return;
    }
    if (found === undefined || Number(found.version) !== seq || String(found.last_sum) !== known.sum) return;
    if (found.format === format && Number(found.seq) === seq && found.sum === known.sum) {
      this.#headSeq = seq;
      return;
    }
    const text = body();
    if (this.#keep([sql.keepHead(this.session, format, seq, known.sum, text)])) this.#headSeq = seq;
  }

  /**
   * Keeps `body` as the index at `seq`: the row that names it and the
   * buckets that differ from the index this object opened or wrote, when
   * that is still the one stored (every bucket otherwise), in one
   * transaction that holds the index's row. A bucket is taken as unchanged
   * when its length and crc32 are (what the table says of it, and what a
   * lookup checks). Nothing is written when an index at this very event is
   * there already: two writers keeping one event's head each cut their own,
   * and a head must never name another's index.
   */
  saveClosedIndex(format: string, seq: number, body: string | Buffer): ClosedAt | null {
    const known = this.cursor.known();
    if (known === null || known.seq !== seq || seq === 0 || known.sum === '') return null;
    const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
    const table = closedTableOf(bytes, bytes.length);
    if (table === null) return null;
    let stored: Row | undefined;
    try {
      stored = this.cursor.run([{ text: 'BEGIN' }, sql.lockClosedIndex(this.session)])[1]![0];
    } catch {
      return null;
    }
    if (stored !== undefined && Number(stored.seq) === seq && stored.sum === known.sum) {
      this.#keep([{ text: 'ROLLBACK' }]);
      return null;
    }
    const opened = this.#opened;
    const since = stored !== undefined && opened !== null && opened.token === stored.token ? opened.buckets : null;
    const written = table.buckets.flatMap((bucket, n) => (since !== null && sameBucket(since[n]!, bucket) ? [] : [n]));
    const token = randomUUID();
    const row: sql.ClosedIndexRow = {
      format,
      seq,
      sum: known.sum,
      token,
      bodyBytes: bytes.length,
      tableLine: bytes.toString('latin1', 0, table.tableBytes),
      numbers: written,
      lengths: written.map((n) => table.buckets[n]!.bytes),
      bytes: Buffer.concat(written.map((n) => bytes.subarray(table.buckets[n]!.offset, table.buckets[n]!.offset + table.buckets[n]!.bytes))),
    };
    // A failed statement ends the request and rolls the transaction back (protocol.ts).
    if (!this.#keep([sql.keepClosedIndex(this.session, row), { text: 'COMMIT' }])) return null;
    this.#opened = { token, buckets: table.buckets };
    return { seq, sum: known.sum };
  }

  /** Runs a cache's write; false when it could not (best effort: a read then does without). */
  #keep(steps: Step[]): boolean {
    try {
      this.cursor.run(steps);
      return true;
    } catch {
      return false;
    }
  }
}

/** Whether two entries of an index's table describe the same bytes (where they lie aside). */
function sameBucket(a: ClosedBucket, b: ClosedBucket): boolean {
  return a.bytes === b.bytes && a.crc === b.crc;
}

/** zlib, for its crc32: a whole index's buckets, checked as they are read, run to megabytes, where the core's takes 20 times as long. */
function zlib(): typeof Zlib {
  return process.getBuiltinModule('node:zlib');
}
