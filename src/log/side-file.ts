import { closeSync } from 'node:fs';
import { formatBytes, formatSize, type InputLimit } from './limits.js';
import { openRegularFile, readRange, readUpTo, type OpenedFile } from './text-file.js';
import { isCode, LogError } from './types.js';

/*
 * Every file gapflow reads beside the log (the lock, config.json,
 * hook-state.json, the checkpoints) is opened here, and only here. A
 * session folder may come from anywhere (a repository can commit one), so
 * what stands at such a path is input: a symlink to /dev/zero would be read
 * until memory runs out, a FIFO would hold the call until a writer came.
 * So the file is opened without following a symlink and without waiting
 * (O_NOFOLLOW, O_NONBLOCK), judged by fstat on the open descriptor (no race
 * between a look and the open), and read no further than its limit. A
 * refusal is one LogError naming the path, what is there and the limit;
 * what the bytes say is each caller's to judge.
 */

/**
 * `read` on the side file at `path`, opened and closed after; null when
 * nothing is there. A symlink, anything but a regular file, or a file past
 * `limit` is refused (LogError) before a byte of it is read.
 */
export function withSideFile<T>(path: string, limit: InputLimit, read: (file: OpenedFile) => T): T | null {
  let file: OpenedFile;
  try {
    file = openRegularFile(path, false, `${limit.name} must be a regular file of at most ${formatBytes(limit.maxBytes)}: delete it`);
  } catch (error) {
    if (isCode(error, 'ENOENT')) return null;
    throw error;
  }
  try {
    if (file.size > limit.maxBytes) throw overLimit(path, limit, formatSize(file.size));
    return read(file);
  } finally {
    closeSync(file.fd);
  }
}

/** The text of the side file at `path` (not checked as UTF-8: its reader judges its content), or null when there is none. */
export function readSideFile(path: string, limit: InputLimit): string | null {
  return withSideFile(path, limit, (file) => sideText(file, path, limit));
}

/** The whole text of an opened side file, from its start; one that grew past `limit` since it was opened is refused at the first byte over. */
export function sideText(file: OpenedFile, path: string, limit: InputLimit): string {
  // Sized by the fstat (a buffer of the whole limit costs a hook call more than its read): a byte more than
  // that says the file grew since (a lock being filled), and then it is read again, up to the limit.
  const seen = readRange(file.fd, 0, file.size + 1);
  if (seen.length <= file.size) return seen.toString('utf8');
  const bytes = readUpTo(file.fd, limit.maxBytes, 0);
  if (bytes === null) throw overLimit(path, limit, `more than ${formatBytes(limit.maxBytes)}`);
  return bytes.toString('utf8');
}

function overLimit(path: string, limit: InputLimit, size: string): LogError {
  return new LogError(`${path} is ${size}, over the ${formatBytes(limit.maxBytes)} limit of ${limit.name}; it was not read: delete it`);
}
