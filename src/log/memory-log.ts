import type { GapflowEvent } from '../../events/index.js';
import { assertExpected, continues } from './lines.js';
import { LogError, VersionConflict, type Batch, type EventStore, type Expected } from './types.js';

/** A stream held in memory, for a mediator that embeds gapflow and keeps its own storage, and for tests. */
export class MemoryLog implements EventStore {
  readonly location = 'memory';
  readonly #events: GapflowEvent[] = [];
  /** A Map: ids such as `__proto__` are plain keys. */
  readonly #ids = new Map<string, GapflowEvent>();
  readonly #followers = new Set<(events: readonly GapflowEvent[]) => void>();

  constructor(events: readonly GapflowEvent[] = []) {
    this.#push(events);
  }

  exists(): boolean {
    return this.#events.length > 0;
  }

  read(from = 0): GapflowEvent[] {
    return this.#events.slice(from);
  }

  create(events: readonly GapflowEvent[]): void {
    if (this.exists()) throw new LogError('this memory log already holds a session');
    continues(events, 0, this.location);
    this.#push(events);
  }

  byId(id: string): GapflowEvent | undefined {
    return this.#ids.get(id);
  }

  transact<T>(knownVersion: number, decide: (fresh: readonly GapflowEvent[]) => Batch<T>, expected?: Expected): T {
    assertExpected(this.location, expected, this.#version());
    const { events, result } = decide(this.#events.slice(knownVersion));
    this.append(events, this.#version());
    return result;
  }

  append(events: readonly GapflowEvent[], expectedVersion: number): void {
    if (expectedVersion !== this.#version()) throw new VersionConflict(this.location, expectedVersion, this.#version());
    continues(events, this.#version(), this.location);
    for (const event of events) {
      if (this.#ids.has(event.id)) throw new LogError(`${this.location}: event id ${event.id} is already in the log; nothing was written`);
    }
    this.#push(events);
  }

  follow(from: number, listener: (events: readonly GapflowEvent[]) => void): () => void {
    const backlog = this.#events.slice(from);
    if (backlog.length > 0) listener(backlog);
    this.#followers.add(listener);
    return () => this.#followers.delete(listener);
  }

  #version(): number {
    return this.#events.at(-1)?.seq ?? 0;
  }

  #push(events: readonly GapflowEvent[]): void {
    if (events.length === 0) return;
    for (const event of events) {
      this.#events.push(event);
      this.#ids.set(event.id, event);
    }
    for (const follower of this.#followers) follower(events);
  }
}
