import { hash, randomBytes } from 'node:crypto';
import { accessSync, closeSync, constants, openSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { SHARED_FILE_MODE, writeAll } from './durable.js';
import { MAX_LOG_BYTES } from './limits.js';
import { storedSum } from './sum-field.js';
import { openRegularFile, readRange } from './text-file.js';

/*
 * A checkpoint: a snapshot of what a reader builds from the log (the
 * session's view), kept beside it so a read loads it and folds only the
 * lines after it. The file is one header line, then the body:
 *   {"checkpoint":1,"format":"view-1","seq":812,"end":190331,"lineBytes":231,"sum":"…","bodyBytes":…,"bodySum":"…"}
 *   <body>
 * The header keys it to the last log line it covers: its seq, where it ends
 * (`end`, a byte offset), its length and its checksum. A reader trusts the
 * body only when that line is still there, byte for byte where it was, and
 * the body is whole (its length and sha256); anything else (an edited, stale
 * or foreign checkpoint, a log repaired or replaced under it, another build's
 * format) is ignored, and the reader replays the log and writes a new one.
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
export interface StoredCheckpoint {
  key: CheckpointKey;
  body: string;
  bodyBytes: number;
}

interface Header extends CheckpointKey {
  checkpoint: number;
  bodyBytes: number;
  bodySum: string;
}

function bodySum(body: string): string {
  return hash('sha256', body, 'hex').slice(0, 32);
}

/** A checkpoint is never bigger than this (a view's JSON runs below its log's size); a bigger file is not read. */
const MAX_CHECKPOINT_BYTES = 2 * MAX_LOG_BYTES;
/** A temp file this old is a crashed writer's: the next writer removes it. */
const STALE_TEMP_MS = 60_000;

/**
 * The checkpoint's bytes, or null for anything but a readable regular file
 * of a sane size (a symlink is not followed, a FIFO is not waited on): a
 * cache that cannot be read is a cache that is not there.
 */
function readCheckpointBytes(path: string): Buffer | null {
  let file;
  try {
    file = openRegularFile(path, false, 'a checkpoint must be a regular file');
  } catch {
    return null;
  }
  try {
    return file.size > MAX_CHECKPOINT_BYTES ? null : readRange(file.fd, 0, file.size);
  } catch {
    return null;
  } finally {
    closeSync(file.fd);
  }
}

/** The checkpoint of `format` in `dir`, if there is one whose body is whole; null otherwise (never throws). */
export function readCheckpoint(dir: string, format: string, file = CHECKPOINT_FILE): StoredCheckpoint | null {
  const bytes = readCheckpointBytes(join(dir, file));
  if (bytes === null) return null;
  const newline = bytes.indexOf(0x0a);
  if (newline === -1) return null;
  const header = parseHeader(bytes.subarray(0, newline).toString('utf8'));
  if (header === null || header.format !== format) return null;
  const bodyBytes = bytes.length - newline - 1;
  if (bodyBytes !== header.bodyBytes) return null;
  const body = bytes.subarray(newline + 1).toString('utf8');
  if (bodySum(body) !== header.bodySum) return null;
  const { seq, end, lineBytes, sum } = header;
  return { key: { format, seq, end, lineBytes, sum }, body, bodyBytes };
}

function parseHeader(text: string): Header | null {
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

/** The key of the checkpoint in `file`, read from its header line alone (never its body); null when there is none. */
export function readCheckpointKey(dir: string, file: string): Pick<CheckpointKey, 'format' | 'seq' | 'end' | 'sum'> | null {
  let opened;
  try {
    opened = openRegularFile(join(dir, file), false, 'a checkpoint must be a regular file');
  } catch {
    return null;
  }
  try {
    const start = readRange(opened.fd, 0, Math.min(opened.size, 1024));
    const newline = start.indexOf(0x0a);
    const header = newline === -1 ? null : parseHeader(start.subarray(0, newline).toString('utf8'));
    // A body cut short (the header alone cannot say it is damaged otherwise) is no checkpoint.
    if (header === null || header.bodyBytes !== opened.size - newline - 1) return null;
    return { format: header.format, seq: header.seq, end: header.end, sum: header.sum };
  } catch {
    return null;
  } finally {
    closeSync(opened.fd);
  }
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
export function writeCheckpoint(dir: string, key: CheckpointKey, body: string, file = CHECKPOINT_FILE): number | null {
  const bodyBytes = Buffer.byteLength(body, 'utf8');
  const header: Header = { checkpoint: HEADER_VERSION, ...key, bodyBytes, bodySum: bodySum(body) };
  const path = join(dir, file);
  const temp = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    const fd = openSync(temp, 'wx', SHARED_FILE_MODE);
    try {
      writeAll(fd, Buffer.from(`${JSON.stringify(header)}\n${body}`, 'utf8'));
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
      if (!(name.startsWith(`${CHECKPOINT_FILE}.`) || name.startsWith(`${HEAD_FILE}.`)) || !name.endsWith('.tmp')) continue;
      const path = join(dir, name);
      if (now - statSync(path).mtimeMs > STALE_TEMP_MS) rmSync(path, { force: true });
    }
  } catch {
    // Best effort, like the checkpoint itself.
  }
}

/** Removes the checkpoints (a new session starting in the folder of an old one). */
export function removeCheckpoint(dir: string): void {
  rmSync(join(dir, CHECKPOINT_FILE), { force: true });
  rmSync(join(dir, HEAD_FILE), { force: true });
}
