import type { GapflowEvent } from '../../events/index.js';
import { continues, LogError, type Batch, type EventLog } from './types.js';

/** A log held in memory, for a mediator that embeds gapflow and keeps its own storage. */
export class MemoryLog implements EventLog {
  readonly location = 'memory';
  #events: GapflowEvent[] = [];

  constructor(events: readonly GapflowEvent[] = []) {
    this.#events = [...events];
  }

  exists(): boolean {
    return this.#events.length > 0;
  }

  read(): GapflowEvent[] {
    return [...this.#events];
  }

  create(events: readonly GapflowEvent[]): void {
    if (this.exists()) throw new LogError('this memory log already holds a session');
    this.#events = [...events];
  }

  update<T>(afterSeq: number, step: (fresh: readonly GapflowEvent[]) => Batch<T>): T {
    const { events, result } = step(this.#events.filter((event) => event.seq > afterSeq));
    this.append(events);
    return result;
  }

  append(events: readonly GapflowEvent[]): void {
    continues(events, this.#events.at(-1)?.seq ?? 0, this.location);
    this.#events.push(...events);
  }
}
