import { crc32 } from './crc32.js';
import type { GapState, Severity } from '../../events/index.js';
import { STATE_CLASS } from './rules.js';
import type { Gap, SessionView } from './view.js';

/*
 * The closed gaps' index: what the head leaves out of the inventory, kept
 * as one `ID SEVERITY STATE` line per gap in a closed state. A write decided
 * on the head asks it two things only: is this id taken (a new gap's), and
 * is that gap known (a spawned-by or blocked-by gap). On a million-event log
 * the index runs to megabytes, so its lines are spread over CLOSED_BUCKETS
 * buckets by a hash of the id, and a lookup reads one bucket (a few
 * kilobytes) and searches its bytes as read, never decoding the whole.
 *
 * The index's body is one table line, then the buckets' bytes in order:
 *   <bytes>/<crc> <bytes>/<crc> … (one entry per bucket)\n
 *   <bucket 0's lines><bucket 1's lines>…
 * Each entry gives a bucket's length in bytes (decimal) and the crc32 of
 * those bytes (eight hex digits); a bucket starts where the one before it
 * ends. The table line is checked by the checkpoint's header (its sum is the
 * crc32 of that line), and each bucket by its own crc when it is read: a
 * damaged bucket is found by the lookup that reads it, whatever else is read.
 * Gap ids hold no space or newline (GAP_ID_PATTERN), so a line is found by
 * its id alone.
 */

/** How many buckets the index spreads its lines over. */
export const CLOSED_BUCKETS = 256;

/** A closed gap as the index knows it: enough to refuse a reused id or accept a reference, not to reopen it. */
export type ClosedGap = Pick<Gap, 'id' | 'severity' | 'state'>;

/** Where a bucket lies in the index's body (`offset` counts from the body's first byte) and its bytes' crc32. */
export interface ClosedBucket {
  offset: number;
  bytes: number;
  crc: number;
}

/** A bucket or the index read damaged (a crc that does not match, a file replaced under the reader): the index is not to be believed. */
export class DamagedIndex extends Error {}

/** The bucket `id` belongs in: the crc32 of its UTF-8 bytes, modulo CLOSED_BUCKETS (stable across processes and versions). */
export function closedBucketOf(id: string): number {
  return crc32(id) % CLOSED_BUCKETS;
}

/** The index lines for `gaps`, keeping the closed ones. */
export function closedIndexLines(gaps: Iterable<Gap>): string {
  let text = '';
  for (const gap of gaps) if (STATE_CLASS[gap.state] === 'closed') text += `${gap.id} ${gap.severity} ${gap.state}\n`;
  return text;
}

/** The whole index of `view`: its body as stored (table line, then buckets). */
export function encodeClosedIndex(view: SessionView): Buffer {
  return closedIndexOf(closedIndexLines(view.gaps.values()));
}

/** The index body that lists `lines` (`ID SEVERITY STATE\n` lines), each in its bucket, in their order. */
export function closedIndexOf(lines: string): Buffer {
  return bucketed(splitLines(lines));
}

/** `lines` (whole `ID SEVERITY STATE\n` lines) by the bucket each belongs in, in their order. */
function splitLines(lines: string): string[] {
  const buckets: string[] = new Array<string>(CLOSED_BUCKETS).fill('');
  for (const line of lines.split('\n')) if (line !== '') buckets[closedBucketOf(line.split(' ', 1)[0]!)] += `${line}\n`;
  return buckets;
}

/** The body for buckets given as text, or as bytes with their crc (a bucket carried as stored keeps the crc it was stored under). */
function bucketed(buckets: readonly (string | { bytes: Buffer; crc: number })[]): Buffer {
  const parts = buckets.map((bucket) => {
    if (typeof bucket !== 'string') return bucket;
    const bytes = Buffer.from(bucket, 'utf8');
    return { bytes, crc: crc32(bytes) };
  });
  const table = `${parts.map(({ bytes, crc }) => `${bytes.length}/${crc.toString(16).padStart(8, '0')}`).join(' ')}\n`;
  return Buffer.concat([Buffer.from(table, 'utf8'), ...parts.map((part) => part.bytes)]);
}

/** The longest table line there is: CLOSED_BUCKETS entries of a length (up to 16 digits), a slash, a crc, a space or the newline. */
export const MAX_CLOSED_TABLE_BYTES = CLOSED_BUCKETS * (16 + 1 + 8 + 1);

const TABLE_ENTRY = /^(0|[1-9][0-9]{0,15})\/([0-9a-f]{8})$/;

/**
 * The buckets the table line at the start of `start` (a body's first
 * bytes, the whole line at least) lists, for a body of `bodyBytes`; null
 * when the line is missing, malformed, or its buckets do not fill the body
 * exactly (a body cut short or grown).
 */
export function closedTableOf(start: Buffer, bodyBytes: number): { tableBytes: number; buckets: ClosedBucket[] } | null {
  const newline = start.indexOf(0x0a);
  if (newline === -1) return null;
  const entries = start.toString('latin1', 0, newline).split(' ');
  if (entries.length !== CLOSED_BUCKETS) return null;
  const tableBytes = newline + 1;
  const buckets: ClosedBucket[] = [];
  let offset = tableBytes;
  for (const entry of entries) {
    const match = TABLE_ENTRY.exec(entry);
    if (match === null) return null;
    const bytes = Number(match[1]);
    buckets.push({ offset, bytes, crc: Number.parseInt(match[2]!, 16) });
    offset += bytes;
  }
  return offset === bodyBytes ? { tableBytes, buckets } : null;
}

/** `bytes` when they are the bucket `entry` describes (its length and crc); null otherwise. */
export function checkedBucket(bytes: Buffer | null, entry: ClosedBucket): Buffer | null {
  return bytes !== null && bytes.length === entry.bytes && crc32(bytes) === entry.crc ? bytes : null;
}

/** What a reader of the index gives a lookup: the body's first bytes (the table line whole), its length, and its bytes by range (null when they cannot be read). */
export interface ClosedIndexParts {
  first: Buffer;
  bodyBytes: number;
  range(offset: number, length: number): Buffer | null;
}

/**
 * A lookup over the index `parts` give, reading each bucket once, when it
 * is first asked for, and checking it against its crc; null when the table
 * line is not sound. The lookup throws DamagedIndex when a bucket cannot be
 * read or does not match its crc: an id is never called absent on a
 * damaged bucket's word.
 */
export function closedIndexLookUp(parts: ClosedIndexParts): ((id: string) => ClosedGap | null) | null {
  const table = closedTableOf(parts.first, parts.bodyBytes);
  if (table === null) return null;
  const read = new Map<number, Buffer>();
  return (id) => {
    if (!isIndexId(id)) return null;
    const at = closedBucketOf(id);
    const entry = table.buckets[at]!;
    if (entry.bytes === 0) return null;
    let bucket = read.get(at);
    if (bucket === undefined) {
      bucket = checkedBucket(parts.range(entry.offset, entry.bytes), entry) ?? undefined;
      if (bucket === undefined) throw new DamagedIndex(`bucket ${at} of the closed gaps' index does not match its crc`);
      read.set(at, bucket);
    }
    return lookUpClosed(bucket, id);
  };
}

/**
 * `body` (a whole index, its table line already checked) with `lines`
 * added, each to the end of its bucket: the bytes an index write takes.
 * Only the buckets that change are checked against their crc (the others
 * are carried as they are, their crc with them); null when the table or a
 * changed bucket is not sound.
 */
export function extendClosedIndex(body: Buffer, lines: string): Buffer | null {
  const table = closedTableOf(body, body.length);
  if (table === null) return null;
  const added = splitLines(lines);
  const buckets: { bytes: Buffer; crc: number }[] = [];
  for (const [at, entry] of table.buckets.entries()) {
    const stored = body.subarray(entry.offset, entry.offset + entry.bytes);
    if (added[at] === '') {
      buckets.push({ bytes: stored, crc: entry.crc });
      continue;
    }
    if (checkedBucket(stored, entry) === null) return null;
    const bytes = Buffer.concat([stored, Buffer.from(added[at]!, 'utf8')]);
    buckets.push({ bytes, crc: crc32(bytes) });
  }
  return bucketed(buckets);
}

/** An id with a space or a newline is no gap id (the schema refuses it): it must not match part of a line. */
function isIndexId(id: string): boolean {
  return id !== '' && !/\s/.test(id);
}

/** The gap `id` as `lines` (index lines' UTF-8 bytes: one bucket's, or any run of whole lines) lists it; null when it is not there. */
export function lookUpClosed(lines: Buffer, id: string): ClosedGap | null {
  if (!isIndexId(id)) return null;
  const first = Buffer.from(`${id} `, 'utf8');
  let at = 0;
  if (!lines.subarray(0, first.length).equals(first)) {
    const newline = lines.indexOf(`\n${id} `, 0, 'utf8');
    if (newline === -1) return null;
    at = newline + 1;
  }
  const end = lines.indexOf(0x0a, at);
  const [, severity, state] = lines.toString('utf8', at, end === -1 ? undefined : end).split(' ');
  return { id, severity: severity as Severity, state: state as GapState };
}
