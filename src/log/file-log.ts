import { closeSync, existsSync, fstatSync, fsyncSync, mkdirSync, openSync, readFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { GapflowEvent } from '../../events/index.js';
import { parseLines, toLine } from './lines.js';
import { LogError, type EventLog } from './types.js';

export const LOG_FILE = 'events.jsonl';

/** The embedded default: `<dir>/events.jsonl`, one event a line, appended and fsynced. */
export class FileLog implements EventLog {
  readonly location: string;
  /** The log's length in bytes as this object last read or wrote it. */
  #size: number | null = null;

  constructor(readonly dir: string) {
    this.location = join(dir, LOG_FILE);
  }

  exists(): boolean {
    return existsSync(this.location);
  }

  read(): GapflowEvent[] {
    let text: string;
    try {
      text = readFileSync(this.location, 'utf8');
    } catch (error) {
      if (isNotFound(error)) throw new LogError(`no session in ${this.dir} (\`gapflow init\` creates one)`);
      throw error;
    }
    const events = parseLines(text, this.location);
    this.#size = Buffer.byteLength(text, 'utf8');
    return events;
  }

  create(events: readonly GapflowEvent[]): void {
    mkdirSync(this.dir, { recursive: true });
    let fd: number;
    try {
      fd = openSync(this.location, 'wx');
    } catch (error) {
      if (isCode(error, 'EEXIST')) throw new LogError(`${this.location} already exists; a session lives there`);
      throw error;
    }
    this.#size = writeAll(fd, events, 0);
  }

  /**
   * Appends only if the file is still as this object read it: events were
   * checked against that content, so a log another writer has moved on is
   * refused rather than given a second event with the same `seq`. (A lock
   * that makes concurrent writers wait their turn is the next step.)
   */
  append(events: readonly GapflowEvent[]): void {
    if (events.length === 0) return;
    const fd = openSync(this.location, 'a');
    const size = fstatSync(fd).size;
    if (this.#size !== null && size !== this.#size) {
      closeSync(fd);
      throw new LogError(`${this.location} changed while this call ran (another writer?); nothing was written: run it again`);
    }
    this.#size = writeAll(fd, events, size);
  }
}

/**
 * One write for the whole batch, so a batch lands whole or (if the process
 * dies) as a torn tail that `read` detects. Returns the file's new length.
 */
function writeAll(fd: number, events: readonly GapflowEvent[], start: number): number {
  try {
    const bytes = Buffer.from(events.map(toLine).join(''), 'utf8');
    let written = 0;
    while (written < bytes.length) written += writeSync(fd, bytes, written);
    fsyncSync(fd);
    return start + bytes.length;
  } finally {
    closeSync(fd);
  }
}

function isCode(error: unknown, code: string): boolean {
  return error instanceof Error && 'code' in error && error.code === code;
}

function isNotFound(error: unknown): boolean {
  return isCode(error, 'ENOENT');
}
