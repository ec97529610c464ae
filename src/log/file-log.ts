import { randomBytes } from 'node:crypto';
import {
  closeSync,
  existsSync,
  fstatSync,
  fsyncSync,
  ftruncateSync,
  linkSync,
  mkdirSync,
  openSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import type { GapflowEvent } from '../../events/index.js';
import { formatBytes, formatSize, MAX_LINE_BYTES, MAX_LOG_BYTES } from './limits.js';
import { CHAIN_START, faultMessage, formatLines, scanBytes, type ChainPoint, type Scan } from './lines.js';
import { isCode, withLock } from './lock.js';
import { openRegularFile, readRange, type OpenedFile } from './text-file.js';
import { continues, LogError, type Batch, type EventLog } from './types.js';

export const LOG_FILE = 'events.jsonl';

/** How far this object has read the file and found it good: the next append goes after `end`. */
interface Known {
  end: number;
  point: ChainPoint;
  /** The last good line's bytes: if they are not where they were, the file changed beneath us. */
  lastLine: Buffer;
}

/**
 * The embedded default: `<dir>/events.jsonl`, one sealed event a line.
 * Appends hold the lock, look at what other writers added since this object
 * last looked, and write each batch with one write on an append-mode
 * descriptor, fsynced before they return. A file is created whole (written
 * aside, fsynced, then linked into place) and its folder fsynced.
 */
export class FileLog implements EventLog {
  readonly location: string;
  #known: Known | null = null;

  constructor(readonly dir: string) {
    this.location = join(dir, LOG_FILE);
  }

  exists(): boolean {
    return existsSync(this.location);
  }

  read(): GapflowEvent[] {
    let scan = this.#scanFile();
    // A torn tail may be a write still under way: look again once its writer lets go.
    if (scan.torn) scan = withLock(this.location, () => this.#scanFile());
    if (scan.fault) throw new LogError(faultMessage(this.location, scan));
    return scan.events;
  }

  create(events: readonly GapflowEvent[]): void {
    const made = mkdirSync(this.dir, { recursive: true });
    const { text, sum, lines } = formatLines(events);
    const bytes = Buffer.from(text, 'utf8');
    const aside = `${this.location}.${randomBytes(6).toString('hex')}.new`;
    try {
      writeNewFile(aside, bytes);
      linkSync(aside, this.location);
    } catch (error) {
      if (isCode(error, 'EEXIST')) throw new LogError(`${this.location} already exists; a session lives there`);
      throw error;
    } finally {
      // Linked or not, the aside copy goes (a failed write, a full disk, must not leave it behind).
      rmSync(aside, { force: true });
    }
    fsyncFolder(this.dir);
    if (made !== undefined) fsyncFolder(dirname(made));
    this.#known = { end: bytes.length, point: { seq: events.at(-1)?.seq ?? 0, sum, sealed: true }, lastLine: Buffer.from(lines.at(-1) ?? '', 'utf8') };
  }

  update<T>(afterSeq: number, step: (fresh: readonly GapflowEvent[]) => Batch<T>): T {
    return withLock(this.location, () => {
      const fresh = this.#catchUp(afterSeq);
      const { events, result } = step(fresh);
      this.#write(events);
      return result;
    });
  }

  append(events: readonly GapflowEvent[]): void {
    this.update(this.#known?.point.seq ?? 0, () => ({ events, result: undefined }));
  }

  #scanFile(): Scan {
    const bytes = readLogBytes(this.location, this.dir);
    const scan = scanBytes(bytes);
    if (!scan.fault) this.#remember(bytes, scan, CHAIN_START, 0);
    return scan;
  }

  /** `bytes` were scanned from byte `offset` of the file, after `from`. */
  #remember(bytes: Buffer, scan: Scan, from: ChainPoint, offset: number): void {
    const lastLine = scan.lastLineBytes > 0 ? Buffer.from(bytes.subarray(scan.goodBytes - scan.lastLineBytes, scan.goodBytes)) : this.#known?.lastLine;
    this.#known = { end: offset + scan.goodBytes, point: scan.goodBytes > 0 ? scan.end : from, lastLine: lastLine ?? Buffer.alloc(0) };
  }

  /** Under the lock: the events after `afterSeq`, reading only what was added since this object last looked when it can. */
  #catchUp(afterSeq: number): GapflowEvent[] {
    const known = this.#known;
    if (known === null || known.point.seq !== afterSeq) {
      const scan = this.#scanFile();
      if (scan.fault) throw new LogError(`${faultMessage(this.location, scan)}; nothing was written`);
      return scan.events.slice(afterSeq);
    }
    const bytes = readFrom(this.location, known.end - known.lastLine.length);
    if (bytes.length < known.lastLine.length || !bytes.subarray(0, known.lastLine.length).equals(known.lastLine)) {
      throw new LogError(`${this.location} changed beneath this call (repaired or replaced?); nothing was written: run it again`);
    }
    const added = bytes.subarray(known.lastLine.length);
    const scan = scanBytes(added, known.point, known.end);
    if (scan.fault) throw new LogError(`${faultMessage(this.location, scan)}; nothing was written`);
    this.#remember(added, scan, known.point, known.end);
    return scan.events;
  }

  #write(events: readonly GapflowEvent[]): void {
    if (events.length === 0) return;
    const known = this.#known!;
    continues(events, known.point.seq, this.location);
    const { lines, sum } = formatLines(events, known.point.sum);
    lines.forEach((line, index) => {
      const size = Buffer.byteLength(line, 'utf8');
      if (size > MAX_LINE_BYTES) {
        const event = events[index]!;
        throw new LogError(`${event.type} (seq ${event.seq}) would be a ${formatBytes(size)} line, over the ${formatBytes(MAX_LINE_BYTES)} limit; nothing was written`);
      }
    });
    const bytes = Buffer.from(lines.join(''), 'utf8');
    if (known.end + bytes.length > MAX_LOG_BYTES) {
      throw new LogError(`${this.location} would grow past the ${formatBytes(MAX_LOG_BYTES)} limit; nothing was written: start a new session`);
    }
    const fd = openSync(this.location, 'a');
    try {
      // The lock makes this hold; if a writer that took our lock for stale wrote meanwhile, refuse rather than interleave.
      if (fstatSync(fd).size !== known.end) {
        throw new LogError(`${this.location} grew beneath this write (its lock was taken over); nothing was written: run it again`);
      }
      try {
        writeAll(fd, bytes);
        fsyncSync(fd);
      } catch (error) {
        // A failed write (a full disk) must not leave half a line for the next writer to find.
        ftruncateSync(fd, known.end);
        throw error;
      }
    } finally {
      closeSync(fd);
    }
    const lastLine = Buffer.from(lines.at(-1)!, 'utf8');
    this.#known = { end: known.end + bytes.length, point: { seq: events.at(-1)!.seq, sum, sealed: true }, lastLine };
  }
}

/** A new file (refused if one is there) holding `bytes`, on disk before this returns. */
export function writeNewFile(path: string, bytes: Buffer): void {
  const fd = openSync(path, 'wx');
  try {
    writeAll(fd, bytes);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** One write call for the batch; a short write (rare, on a full disk) goes on where it stopped. */
function writeAll(fd: number, bytes: Buffer): void {
  let written = 0;
  while (written < bytes.length) written += writeSync(fd, bytes, written);
}

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
      throw new LogError(`${path} is ${formatSize(file.size)}, over the ${formatBytes(MAX_LOG_BYTES)} limit of a log; it was not read (gapflow never writes one that big)`);
    }
    return readRange(file.fd, start, file.size - start);
  } finally {
    closeSync(file.fd);
  }
}

/** What was added to the log after byte `start`, read as the whole log is (same refusals). */
function readFrom(path: string, start: number): Buffer {
  return readLogBytes(path, dirname(path), start);
}

/** Makes a new directory entry durable. Some platforms cannot fsync a folder; there the entry is as durable as they make it. */
export function fsyncFolder(dir: string): void {
  let fd: number;
  try {
    fd = openSync(dir, 'r');
  } catch {
    return;
  }
  try {
    fsyncSync(fd);
  } catch (error) {
    if (!isCode(error, 'EISDIR') && !isCode(error, 'EINVAL') && !isCode(error, 'EPERM')) throw error;
  } finally {
    closeSync(fd);
  }
}
