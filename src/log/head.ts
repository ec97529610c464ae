import { HEAD_FILE, readCurrentBody } from './checkpoint.js';
import { holdsNoSession } from './files.js';
import { LOG_FILE } from './log-name.js';

const { join } = process.getBuiltinModule('node:path');

/*
 * What `next` and a stop hook read of a session folder when the head
 * checkpoint is current: whether a session lives there, and the head. No
 * event schema and no lock: these read a checkpoint's checksummed text and
 * one line of the log, and FileLog answers the same questions with them.
 */

/** Whether a session lives in `dir` (see FileLog's `exists`). */
export function holdsSession(dir: string): boolean {
  return !holdsNoSession(join(dir, LOG_FILE));
}

/**
 * The head checkpoint of `format` in `dir`, when it covers the log's last
 * line exactly (nothing was appended after it); null otherwise. Reads the
 * head and one line of the log, whatever the log's length.
 */
export function readCurrentHead(dir: string, format: string): string | null {
  return readCurrentBody(dir, format, HEAD_FILE, join(dir, LOG_FILE))?.toString('utf8') ?? null;
}
