import { closeSync } from 'node:fs';
import { join } from 'node:path';
import { HEAD_FILE, keyLineEnd, readCheckpoint } from './checkpoint.js';
import { holdsNoSession, LOG_FILE } from './log-path.js';
import { openRegularFile, readRange } from './text-file.js';

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
  const found = readCheckpoint(dir, format, HEAD_FILE);
  if (found === null) return null;
  const { key, body } = found;
  let file;
  try {
    file = openRegularFile(join(dir, LOG_FILE), false, 'the log must be a regular file at that path itself');
  } catch {
    return null;
  }
  try {
    if (file.size !== key.end) return null;
    const from = key.end - key.lineBytes - (key.end > key.lineBytes ? 1 : 0);
    return keyLineEnd(readRange(file.fd, from, key.end - from), key) === -1 ? null : body;
  } finally {
    closeSync(file.fd);
  }
}
