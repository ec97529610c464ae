import { isCode } from './files.js';
import type { GapflowEvent } from '../../events/index.js';

const { statSync } = process.getBuiltinModule('node:fs');

/** A log's events by id, up to `version`, kept up to date with the events its FileLog reads and writes. */
export class IdIndex {
  readonly #byId = new Map<string, GapflowEvent>();
  #version = 0;
  /** The log's size when the index last covered all of it (-1: never): a miss reads the log again only once it has changed. */
  #size = -1;

  /** `readAfter(version)` reads the log's events after `version`, and the size it then knows the log to have. */
  find(id: string, location: string, readAfter: (version: number) => { events: readonly GapflowEvent[]; size: number }): GapflowEvent | undefined {
    // A miss may be an event another writer appended since the index last looked: if the file grew, read it first.
    if (!this.#byId.has(id) && fileSize(location) !== this.#size) {
      const { events, size } = readAfter(this.#version);
      this.add(events);
      this.#size = size;
    }
    return this.#byId.get(id);
  }

  /** Takes in the events seen appended, in order. */
  add(events: readonly GapflowEvent[]): void {
    for (const event of events) {
      if (event.seq !== this.#version + 1) continue;
      this.#byId.set(event.id, event);
      this.#version = event.seq;
    }
  }

  /** The log ends at `seq`, `size` bytes long; if the index reaches that far, a miss need not read the log again unless it grows. */
  covers(seq: number, size: number): void {
    if (this.#version === seq) this.#size = size;
  }
}

/** The size of the file at `path` now (-1 when there is none). */
function fileSize(path: string): number {
  try {
    return statSync(path).size;
  } catch (error) {
    if (isCode(error, 'ENOENT')) return -1;
    throw error;
  }
}
