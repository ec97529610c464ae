import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from 'node:fs';
import { formatBytes, formatSize, type InputLimit } from './limits.js';
import { isCode, LogError } from './types.js';

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Input bytes as text: invalid UTF-8 is refused, naming where it came from, never silently replaced. */
export function decodeUtf8(bytes: Uint8Array, where: string): string {
  try {
    return utf8.decode(bytes);
  } catch {
    throw new LogError(`${where} is not valid UTF-8 text; nothing was written`);
  }
}

function kindOf(stats: Stats): string {
  if (stats.isDirectory()) return 'a folder';
  if (stats.isFIFO()) return 'a FIFO';
  if (stats.isCharacterDevice()) return 'a character device';
  if (stats.isBlockDevice()) return 'a block device';
  if (stats.isSocket()) return 'a socket';
  return 'not a regular file';
}

/** An open regular file and its size when opened. */
export interface OpenedFile {
  fd: number;
  size: number;
}

/**
 * Opens `path` for reading only if it is a regular file; anything else is
 * refused with `why` after the reason. O_NONBLOCK because opening a FIFO
 * waits for a writer, maybe forever; the open alone never reads, so a
 * device is refused before a byte of it is taken. With `follow` false a
 * symlink is refused, not followed. The open's own errors (ENOENT) are
 * thrown as they come, for the caller to word.
 */
export function openRegularFile(path: string, follow: boolean, why: string): OpenedFile {
  // Windows has no O_NOFOLLOW (0 there); a FIFO cannot be at a path there either.
  const flags = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (follow ? 0 : (constants.O_NOFOLLOW ?? 0));
  let fd: number;
  try {
    fd = openSync(path, flags);
  } catch (error) {
    if (!follow && isCode(error, 'ELOOP')) throw new LogError(`${path} is a symbolic link, which gapflow does not follow; ${why}`);
    throw error;
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) throw new LogError(`${path} is ${kindOf(stats)}, not a regular file; ${why}`);
    return { fd, size: stats.size };
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}

const CHUNK_BYTES = 64 * 1024;
const waitCell = new Int32Array(new SharedArrayBuffer(4));

/**
 * Reads `fd` from `start` (or its current position, for a pipe) to its end,
 * at most `maxBytes`: the read stops at the first byte past them and returns
 * null, so an endless input (`/dev/zero`, a stdin that never ends) costs no
 * more memory than the limit. Pages of the buffer are only touched as bytes
 * arrive, so a small input stays small.
 */
export function readUpTo(fd: number, maxBytes: number, start: number | null = null): Buffer | null {
  const buffer = Buffer.allocUnsafe(maxBytes + 1);
  let read = 0;
  while (read <= maxBytes) {
    let n: number;
    try {
      n = readSync(fd, buffer, read, Math.min(CHUNK_BYTES, buffer.length - read), start === null ? null : start + read);
    } catch (error) {
      // A non-blocking pipe (inherited that way) has nothing yet: wait a little, without spinning.
      if (isCode(error, 'EAGAIN')) {
        Atomics.wait(waitCell, 0, 0, 5);
        continue;
      }
      throw error;
    }
    if (n === 0) return buffer.subarray(0, read);
    read += n;
  }
  return null;
}

/** `length` bytes of `fd` from `start`, fewer if the file is shorter by now. */
export function readRange(fd: number, start: number, length: number, shared = false): Buffer {
  // Shared: memory a worker thread can read too, with no copy (chain-check.ts).
  const bytes = shared ? Buffer.from(new SharedArrayBuffer(Math.max(0, length))) : Buffer.allocUnsafe(Math.max(0, length));
  let read = 0;
  while (read < bytes.length) {
    const n = readSync(fd, bytes, read, bytes.length - read, start + read);
    if (n === 0) break;
    read += n;
  }
  return bytes.subarray(0, read);
}

function overLimit(where: string, limit: InputLimit, size: string): LogError {
  return new LogError(`${where} is ${size}, over the ${formatBytes(limit.maxBytes)} limit of ${limit.name}; nothing was written`);
}

/** Standard input (or a stand-in descriptor, for tests) as text, refused once it passes `limit`, without reading the rest. */
export function readStandardInput(limit: InputLimit, fd = 0): string {
  const bytes = readUpTo(fd, limit.maxBytes);
  if (bytes === null) throw overLimit('standard input', limit, `more than ${formatBytes(limit.maxBytes)}`);
  return decodeUtf8(bytes, 'standard input');
}

/** Input handed over as text (an in-process caller's stdin), held to the same limit as the bin's. */
export function validateInputText(text: string, where: string, limit: InputLimit): string {
  // Counting UTF-8 bytes of a long string costs a pass; a string short enough in UTF-16 units cannot be over.
  if (text.length * 3 > limit.maxBytes) {
    const size = Buffer.byteLength(text, 'utf8');
    if (size > limit.maxBytes) throw overLimit(where, limit, formatSize(size));
  }
  return text;
}

/**
 * The text of an input file (`append --file`, `record --json FILE`): a
 * missing file, a folder, a FIFO, a device, or a file past `limit` is one
 * clear line, refused before its bytes are read (a file that grows while
 * being read is cut off at the limit all the same).
 */
export function readTextFile(path: string, limit: InputLimit): string {
  let file: OpenedFile;
  try {
    file = openRegularFile(path, true, 'nothing was written (give a file, or - for standard input)');
  } catch (error) {
    if (isCode(error, 'ENOENT')) throw new LogError(`${path}: no such file`);
    throw error;
  }
  try {
    if (file.size > limit.maxBytes) throw overLimit(path, limit, formatSize(file.size));
    const bytes = readUpTo(file.fd, limit.maxBytes, 0);
    if (bytes === null) throw overLimit(path, limit, `more than ${formatBytes(limit.maxBytes)}`);
    return decodeUtf8(bytes, path);
  } finally {
    closeSync(file.fd);
  }
}
