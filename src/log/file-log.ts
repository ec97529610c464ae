import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, writeSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import type { GapflowEvent } from '../../events/index.js';
import { parseLines, toLine } from './lines.js';
import { LogError, type EventLog } from './types.js';

export const LOG_FILE = 'events.jsonl';

/** The embedded default: `<dir>/events.jsonl`, one event a line, appended and fsynced. */
export class FileLog implements EventLog {
  readonly location: string;

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
    return parseLines(text, this.location);
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
    writeAll(fd, events);
  }

  append(events: readonly GapflowEvent[]): void {
    if (events.length === 0) return;
    writeAll(openSync(this.location, 'a'), events);
  }
}

/** One write for the whole batch, so a batch lands whole or (if the process dies) as a torn tail `read` detects. */
function writeAll(fd: number, events: readonly GapflowEvent[]): void {
  try {
    const bytes = Buffer.from(events.map(toLine).join(''), 'utf8');
    let written = 0;
    while (written < bytes.length) written += writeSync(fd, bytes, written);
    fsyncSync(fd);
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
