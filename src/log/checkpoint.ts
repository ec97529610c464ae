import type { Stats } from 'node:fs';
import type * as Zlib from 'node:zlib';
import { crc32 } from '../core/index.js';
import { CHECKPOINT_LIMIT, type InputLimit, LOG_INPUT, type OpenedFile, readRange, SHARED_FILE_MODE, withSideFile, writeAll } from './files.js';
import { storedSum } from './chain.js';
import type { BodyParts, Checkpoints, EventStore } from './types.js';

const { hash, randomBytes } = process.getBuiltinModule('node:crypto');
const { accessSync, closeSync, constants, fstatSync, openSync, readdirSync, renameSync, rmSync, statSync } = process.getBuiltinModule('node:fs');
const { join } = process.getBuiltinModule('node:path');

/*
 * A checkpoint: a snapshot of what a reader builds from the log (the
 * session's view), kept beside it so a read loads it and folds only the
 * lines after it. The file is one header line, then the body:
 *   {"checkpoint":1,"format":"view-1","seq":812,"end":190331,"lineBytes":231,"sum":"…","bodyBytes":…,"bodySum":"…"}
 *   <body>
 * The header keys it to the last log line it covers: its seq, where it ends
 * (`end`, a byte offset), its length and its checksum. A reader trusts the
 * body only when that line is still there, byte for byte where it was, and
 * the body is whole (its length and sha256; crc32 for CLOSED_FILE and
 * STATE_FILE, and for CLOSED_FILE of its first line alone: see there);
 * anything else (an edited, stale or foreign checkpoint, a log
 * repaired or replaced under it, another build's format) is ignored, and the
 * reader replays the log and writes a new one. The closed gaps' index is the
 * one exception: it is trusted when the current head names it (its seq and
 * checksum), since the head already stood for the log's last line.
 * Losing it loses nothing: it is a cache, written whole by rename and never
 * fsynced, and `verify` never reads it.
 */

export const CHECKPOINT_FILE = 'checkpoint.json';
/**
 * The head's checkpoint: what the loop's questions read (`next`, a stop
 * hook), a few kilobytes, in the same format, rewritten after every write
 * so it covers the log's last line whenever gapflow wrote it.
 */
export const HEAD_FILE = 'checkpoint.head.json';
/**
 * The closed gaps' index: one `ID SS` line (a letter for the severity, one
 * for the state) per gap the head leaves out, those in a closed state and,
 * of a large inventory, those not closed past its part of the list, spread
 * over buckets (src/core/view-codec.ts).
 * A write decided on the head looks a gap up here (is this id taken? is
 * that gap known?) instead of loading the whole view; the head names the one
 * index it goes with (`ClosedAt`). Its body starts with a table line that
 * gives each bucket's length and crc32; the header's sum is the crc32 of
 * that line alone and its length the whole body's, so a lookup reads the
 * header, the table and the one bucket it needs (checked by its own crc),
 * never the 7 MiB a million-event log's index runs to (`openCheckpointParts`).
 */
export const CLOSED_FILE = 'checkpoint.closed.json';
/**
 * The `state --json` output, pre-rendered: printed as it is, without a
 * parse, while it covers the log's last line exactly. Its body is checked
 * by length and crc32 (not sha256): the check runs on every print, and
 * should cost little beside printing it; it is there for accidents (a
 * crash, an edit by hand), against which a crc is as good.
 */
export const STATE_FILE = 'checkpoint.state.json';
const CACHE_FILES = [CHECKPOINT_FILE, HEAD_FILE, CLOSED_FILE, STATE_FILE];
const HEADER_VERSION = 1;

/** What a checkpoint's header says of the log line it covers last. */
export interface CheckpointKey {
  /** The body's format (who wrote it and how to read it back). */
  format: string;
  seq: number;
  /** The byte offset just after that line. */
  end: number;
  /** That line's length in bytes, newline included. */
  lineBytes: number;
  /** That line's checksum. */
  sum: string;
}

/** A checkpoint as read from disk: its key and its body, whole. */
export interface StoredCheckpoint<Body = string> {
  key: CheckpointKey;
  body: Body;
  bodyBytes: number;
}

export interface Header extends CheckpointKey {
  checkpoint: number;
  bodyBytes: number;
  bodySum: string;
}

/** The header's `bodySum` of `body`: sha256, or crc32 for the files read on every call (of CLOSED_FILE's first line alone, which sums the rest). */
export function bodySum(body: string | Buffer, file: string): string {
  if (file === CLOSED_FILE) return crcSum(firstLine(typeof body === 'string' ? Buffer.from(body, 'utf8') : body), false);
  return file === STATE_FILE ? crcSum(body) : hash('sha256', body, 'hex').slice(0, 32);
}

// zlib is taken only for the stored state (tens of MiB, where its crc32 is quick): the closed gaps' index,
// read by every gap write, is summed by the core's (taking zlib cost such a write 1.7 ms).
function crcSum(body: string | Buffer, big = true): string {
  const sum = big ? (process.getBuiltinModule('node:zlib') as typeof Zlib).crc32(body) : crc32(body);
  return `crc32-${sum.toString(16).padStart(8, '0')}`;
}

/** `body`'s first line, newline included (all of it when it has none). */
function firstLine(body: Buffer): Buffer {
  const newline = body.indexOf(0x0a);
  return newline === -1 ? body : body.subarray(0, newline + 1);
}

/** A header line is never longer than this (its format names a shape and a version). */
export const MAX_HEADER_BYTES = 1024;

/** A temp file this old is a crashed writer's: the next writer removes it. */
const STALE_TEMP_MS = 60_000;

/**
 * The checkpoint's bytes, or null for anything but a readable regular file
 * within CHECKPOINT_LIMIT (a symlink is not followed, a FIFO is not waited
 * on): a cache that cannot be read is a cache that is not there.
 */
function readCheckpointBytes(path: string): Buffer | null {
  return withCheckpointFile(path, (file) => readRange(file.fd, 0, file.size));
}

/**
 * `read` on the file at `path` (a checkpoint, or the log's last line), opened
 * as a side file within `limit` (withSideFile, files.ts) and closed after; null when
 * it is not there or is refused, or the read fails: a cache that cannot be
 * read is passed over (nothing is read from it, and the next write replaces
 * it), and a log that cannot is not the one it was keyed to.
 */
export function withCheckpointFile<T>(path: string, read: (file: OpenedFile) => T | null, limit: InputLimit = CHECKPOINT_LIMIT): T | null {
  try {
    return withSideFile(path, limit, read);
  } catch {
    return null;
  }
}

/** The checkpoint of `format` in `dir`, if there is one whose body is whole; null otherwise (never throws). */
export function readCheckpoint(dir: string, format: string, file = CHECKPOINT_FILE): StoredCheckpoint | null {
  const found = readCheckpointBytesOf(dir, format, file);
  return found === null ? null : { ...found, body: found.body.toString('utf8') };
}

/** As `readCheckpoint`, with the body as the bytes stored. */
export function readCheckpointBytesOf(dir: string, format: string, file = CHECKPOINT_FILE): StoredCheckpoint<Buffer> | null {
  const bytes = readCheckpointBytes(join(dir, file));
  if (bytes === null) return null;
  const newline = bytes.indexOf(0x0a);
  if (newline === -1) return null;
  const header = parseHeader(bytes.subarray(0, newline).toString('utf8'));
  if (header === null || header.format !== format) return null;
  const bodyBytes = bytes.length - newline - 1;
  if (bodyBytes !== header.bodyBytes) return null;
  const body = bytes.subarray(newline + 1);
  if (bodySum(body, file) !== header.bodySum) return null;
  const { seq, end, lineBytes, sum } = header;
  return { key: { format, seq, end, lineBytes, sum }, body, bodyBytes };
}

export function parseHeader(text: string): Header | null {
  let header: unknown;
  try {
    header = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof header !== 'object' || header === null) return null;
  const h = header as Record<string, unknown>;
  const counts = [h.seq, h.end, h.lineBytes, h.bodyBytes].every((n) => Number.isSafeInteger(n) && (n as number) >= 0);
  const ok = h.checkpoint === HEADER_VERSION && typeof h.format === 'string' && counts && typeof h.sum === 'string' && typeof h.bodySum === 'string';
  return ok && (h.seq as number) > 0 && (h.lineBytes as number) > 0 && (h.end as number) >= (h.lineBytes as number) ? (h as unknown as Header) : null;
}

/**
 * Whether `bytes` (read from the log at `key.end - key.lineBytes - 1`, or
 * from 0 for a key on the first line) start with the line the key names:
 * after a newline, that long, ending in a newline, with that seq and that
 * checksum. Returns where the line after it starts in `bytes`, or -1.
 */
export function keyLineEnd(bytes: Buffer, key: CheckpointKey): number {
  const lead = key.end > key.lineBytes ? 1 : 0;
  const end = lead + key.lineBytes;
  if (bytes.length < end || (lead === 1 && bytes[0] !== 0x0a) || bytes[end - 1] !== 0x0a) return -1;
  const line = bytes.subarray(lead, end - 1).toString('utf8');
  if (storedSum(line) !== key.sum) return -1;
  let seq: unknown;
  try {
    seq = (JSON.parse(line) as { seq?: unknown }).seq;
  } catch {
    return -1;
  }
  return seq === key.seq ? end : -1;
}

/** The header line of an open checkpoint and where it ends, when it is sound and the body after it is as long as it says; null otherwise. */
function readHeader(opened: { fd: number; size: number }): { header: Header; newline: number } | null {
  const start = readRange(opened.fd, 0, Math.min(opened.size, MAX_HEADER_BYTES));
  const newline = start.indexOf(0x0a);
  const header = newline === -1 ? null : parseHeader(start.subarray(0, newline).toString('utf8'));
  return header === null || header.bodyBytes !== opened.size - newline - 1 ? null : { header, newline };
}

/** The key of the checkpoint in `file`, read from its header line alone (never its body); null when there is none. */
export function readCheckpointKey(dir: string, file: string): Pick<CheckpointKey, 'format' | 'seq' | 'end' | 'sum'> | null {
  return withCheckpointFile(join(dir, file), (opened) => {
    // A body cut short (the header alone cannot say it is damaged otherwise) is no checkpoint.
    const header = readHeader(opened)?.header ?? null;
    return header === null ? null : { format: header.format, seq: header.seq, end: header.end, sum: header.sum };
  });
}

/**
 * The body of the checkpoint of `format` in `file`, when it covers the last
 * line of the log at `logPath` exactly (the log ends where that line ends,
 * nothing appended after it) and is whole; null otherwise (never throws).
 * Reads the header, the log's last line, then the body, from one open of
 * the file: a stale or foreign checkpoint costs no read of its body.
 */
export function readCurrentBody(dir: string, format: string, file: string, logPath: string): Buffer | null {
  return readCurrent(dir, format, file, logPath)?.body ?? null;
}

/** A checkpoint that covers the log's last line: its key, its body, and that line's bytes (newline included). */
export interface CurrentCheckpoint {
  key: CheckpointKey;
  body: Buffer;
  lastLine: Buffer;
}

/** As `readCurrentBody`, with the key and the log's last line (a write resumed from the checkpoint appends after it). */
export function readCurrent(dir: string, format: string, file: string, logPath: string): CurrentCheckpoint | null {
  return withCheckpointFile(join(dir, file), (opened) => {
    const found = readHeader(opened);
    if (found === null || found.header.format !== format) return null;
    const { header, newline } = found;
    const lastLine = keyLineOf(logPath, header);
    if (lastLine === null) return null;
    const body = readRange(opened.fd, newline + 1, header.bodyBytes);
    if (body.length !== header.bodyBytes || bodySum(body, file) !== header.bodySum) return null;
    const { seq, end, lineBytes, sum } = header;
    return { key: { format, seq, end, lineBytes, sum }, body, lastLine };
  });
}

/** The line `key` names, when the log at `logPath` ends with it (reading that line alone); null otherwise (never throws). */
function keyLineOf(logPath: string, key: CheckpointKey): Buffer | null {
  return withCheckpointFile(
    logPath,
    (file) => {
      if (file.size !== key.end) return null;
      const from = key.end - key.lineBytes - (key.end > key.lineBytes ? 1 : 0);
      const bytes = readRange(file.fd, from, key.end - from);
      const after = keyLineEnd(bytes, key);
      return after === -1 ? null : Buffer.from(bytes.subarray(after - key.lineBytes, after));
    },
    LOG_INPUT,
  );
}

/** Whether a checkpoint can be written in `dir` at all (checked before a body is built for it). */
export function canWriteCheckpoint(dir: string): boolean {
  try {
    accessSync(dir, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * Writes a checkpoint whole (a temp file renamed over the old one), best
 * effort: a folder that cannot take it (read-only, full) leaves reads as
 * they were, so nothing here throws for the file system. Returns the
 * body's size, or null when nothing was written.
 */
export function writeCheckpoint(dir: string, key: CheckpointKey, body: string | Buffer, file = CHECKPOINT_FILE): number | null {
  // Encoded once: its length, its sum and the write all take these bytes (a state output runs to a hundred MiB).
  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  const bodyBytes = bytes.length;
  const header: Header = { checkpoint: HEADER_VERSION, ...key, bodyBytes, bodySum: bodySum(bytes, file) };
  const path = join(dir, file);
  const temp = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    const fd = openSync(temp, 'wx', SHARED_FILE_MODE);
    try {
      writeAll(fd, Buffer.from(`${JSON.stringify(header)}\n`, 'utf8'));
      writeAll(fd, bytes);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, path);
  } catch {
    rmSync(temp, { force: true });
    return null;
  }
  removeStaleTemps(dir);
  return bodyBytes;
}

/** Temp files a crashed writer left (a live writer's is younger than a minute, and renames its own). */
function removeStaleTemps(dir: string): void {
  try {
    const now = Date.now();
    for (const name of readdirSync(dir)) {
      if (!CACHE_FILES.some((file) => name.startsWith(`${file}.`)) || !name.endsWith('.tmp')) continue;
      const path = join(dir, name);
      if (now - statSync(path).mtimeMs > STALE_TEMP_MS) rmSync(path, { force: true });
    }
  } catch {
    // Best effort, like the checkpoint itself.
  }
}

/** Removes the view's checkpoint alone (one that does not pay: FileCheckpoints.save). */
export function removeViewCheckpoint(dir: string): void {
  try {
    rmSync(join(dir, CHECKPOINT_FILE), { force: true });
  } catch {
    // A cache that cannot be removed is read as before; it stays a cache.
  }
}

/** Removes the checkpoints, the pre-rendered state with them (a new session starting in the folder of an old one). */
export function removeCheckpoint(dir: string): void {
  for (const file of CACHE_FILES) rmSync(join(dir, file), { force: true });
}

/*
 * A checkpoint read in parts, for one whose header sums its body's first
 * line alone (the closed gaps' index, whose first line is a table of what
 * follows, each part with its own crc): one read takes the header and that
 * line, and the rest is read by range when it is asked for, from the same
 * file. What the parts hold is the caller's to check.
 */

/**
 * A checkpoint's header and first body line (checked), and its body's bytes
 * by range, read from the file the header was read from: null when they
 * cannot be read, or the file at that path is no longer that file
 * (replaced, grown, touched).
 */
export interface CheckpointParts extends BodyParts {
  key: CheckpointKey;
}

/** The first read takes this much (the closed gaps' index's header and table line fit in it); a longer first line is read in reads twice as long each. */
const FIRST_READ_BYTES = 8 * 1024;
/** A first line longer than this is no sound one. */
const MAX_FIRST_BYTES = 1024 * 1024;

/**
 * The checkpoint of `format` in `file` under `dir`, when its header is sound,
 * its body as long as it says and its first line matches the header's sum;
 * null otherwise (never throws). Reads the header and that line only.
 */
export function openCheckpointParts(dir: string, format: string, file: string): CheckpointParts | null {
  const path = join(dir, file);
  return withCheckpointFile(path, (opened) => {
    let start = readRange(opened.fd, 0, Math.min(opened.size, FIRST_READ_BYTES));
    const newline = start.indexOf(0x0a);
    const header = newline === -1 || newline > MAX_HEADER_BYTES ? null : parseHeader(start.toString('utf8', 0, newline));
    if (header === null || header.format !== format || header.bodyBytes !== opened.size - newline - 1) return null;
    let lineEnd = start.indexOf(0x0a, newline + 1);
    while (lineEnd === -1 && start.length < opened.size && start.length < MAX_HEADER_BYTES + MAX_FIRST_BYTES) {
      const longer = readRange(opened.fd, 0, Math.min(opened.size, start.length * 2));
      // A file cut short under the reader gives no more bytes: no table line, no index.
      if (longer.length <= start.length) return null;
      start = longer;
      lineEnd = start.indexOf(0x0a, newline + 1);
    }
    if (lineEnd === -1 || bodySum(start.subarray(newline + 1, lineEnd + 1), file) !== header.bodySum) return null;
    const first = Buffer.from(start.subarray(newline + 1));
    const seen = fstatSync(opened.fd);
    const bodyStart = newline + 1;
    const { seq, end, lineBytes, sum } = header;
    return {
      key: { format, seq, end, lineBytes, sum },
      bodyBytes: header.bodyBytes,
      first,
      range: (offset, length) =>
        withCheckpointFile(path, (again) => {
          if (!sameFile(fstatSync(again.fd), seen) || offset < 0 || offset + length > header.bodyBytes) return null;
          const bytes = readRange(again.fd, bodyStart + offset, length);
          return bytes.length === length ? bytes : null;
        }),
    };
  });
}

/** Whether two stats are of one file as it was (a rename over it, a rewrite or an append shows). */
function sameFile(now: Stats, then: Stats): boolean {
  return now.dev === then.dev && now.ino === then.ino && now.size === then.size && now.mtimeMs === then.mtimeMs;
}

/** A store with checkpoints of its own (FileLog, PgLog). */
export interface KeepsCheckpoints {
  readonly checkpoints: Checkpoints;
}

/** The checkpoints `store` keeps, or, for one that keeps none, a stand-in that keeps nothing and reads every event. */
export function checkpointsOf(store: EventStore): Checkpoints {
  return 'checkpoints' in store ? (store as EventStore & KeepsCheckpoints).checkpoints : noCheckpoints(store);
}

/** Checkpoints that keep nothing: every read starts from the first event. */
export function noCheckpoints(store: Pick<EventStore, 'read'>): Checkpoints {
  return {
    resume: () => ({ checkpoint: null, events: store.read() }),
    save: () => undefined,
    due: () => false,
    head: () => null,
    saveHead: () => undefined,
    headForWrite: () => null,
    saveClosedIndex: () => null,
    saveState: () => undefined,
    state: () => null,
  };
}
