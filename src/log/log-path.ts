import { closeSync, lstatSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { PARALLEL_CHAIN_BYTES } from './chain-check.js';
import { formatBytes, formatSize, MAX_LOG_BYTES } from './limits.js';
import { openRegularFile, readRange, type OpenedFile } from './text-file.js';
import { isCode, LogError } from './types.js';

export { LOG_FILE } from './log-name.js';

/**
 * The log's bytes, from `start`. Only a regular file is a log: a symlink is
 * refused, not followed, and a FIFO, a device or a folder is refused without
 * waiting on it; a file past MAX_LOG_BYTES (which gapflow never writes) is
 * refused before any of it is read.
 */
export function readLogBytes(path: string, dir: string, start = 0): Buffer {
  let file: OpenedFile;
  try {
    file = openRegularFile(path, false, 'the log must be a regular file at that path itself');
  } catch (error) {
    if (isCode(error, 'ENOENT')) throw new LogError(`no session in ${dir} (\`gapflow init\` creates one)`);
    throw error;
  }
  try {
    if (file.size > MAX_LOG_BYTES) {
      throw new LogError(
        `${path} is ${formatSize(file.size)}, over the ${formatBytes(MAX_LOG_BYTES)} limit of a log; it was not read (gapflow never writes one that big)`,
      );
    }
    const length = file.size - start;
    return readRange(file.fd, start, length, length >= PARALLEL_CHAIN_BYTES);
  } finally {
    closeSync(file.fd);
  }
}

/** What was added to the log after byte `start`, read as the whole log is (same refusals). */
export function readFrom(path: string, start: number): Buffer {
  return readLogBytes(path, dirname(path), start);
}

/** Nothing at `path`, or an empty regular file (a symlink, a FIFO or a folder is something: reading it refuses it). */
export function holdsNoSession(path: string): boolean {
  try {
    const stat = lstatSync(path);
    return stat.isFile() && stat.size === 0;
  } catch (error) {
    if (isCode(error, 'ENOENT')) return true;
    throw error;
  }
}

/** The size of the file at `path` now, or -1 when it cannot be seen. */
export function fileSizeOf(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return -1;
  }
}

/** Whether `path` is a folder: true or false, or null when it cannot be seen (reading it then names what is wrong). */
export function isFolder(path: string): boolean | null {
  try {
    return statSync(path).isDirectory();
  } catch {
    return null;
  }
}
