import type { SessionView } from '../core/index.js';
import { renderStatus } from '../render/index.js';
import { catchUp, replay } from '../session/index.js';
import { errorRow, fleetRow, weightedOpenChart, warningsOf, type ChartPoint, type FleetRow, type Warning } from './rows.js';
import type { FleetEntry, FleetSource } from './source.js';

/** What the dashboard shows of one session when it is opened: its row, chart, warnings and status.md. */
export interface SessionDetail {
  row: FleetRow;
  chart: ChartPoint[];
  warnings: Warning[];
  /** status.md as `gapflow status` prints it; null when the log could not be read. */
  status: string | null;
}

/** What changed in the fleet: the rows recomputed, and the names of sessions that are gone. */
export interface FleetChange {
  rows: FleetRow[];
  removed: string[];
}

/** A session as last read: its view and its last event (its id and time), or why it could not be read. */
type Loaded = { entry: FleetEntry; view: SessionView; lastEventAt: string | null; lastId: string | null } | { entry: FleetEntry; error: string };

export interface FleetOptions {
  /** Ms since the epoch (a test's fixed clock); default Date.now. */
  now?: () => number;
  /** Changes to one session closer together than this are read once (ms); default 50. */
  settleMs?: number;
}

/** Reads one session whole: every event, replayed (nothing is written to the store, not even a checkpoint): when it is first listed. */
function load(entry: FleetEntry): Loaded {
  if (!('store' in entry)) return { entry, error: entry.error };
  try {
    const events = entry.store.read();
    const view = replay(events, entry.store.location);
    return { entry, view, lastEventAt: events.at(-1)?.at ?? null, lastId: events.at(-1)?.id ?? null };
  } catch (error) {
    return { entry, error: error instanceof Error ? error.message : String(error) };
  }
}

/**
 * A session read again after it grew: only the events past those it was
 * read to, folded onto its view, when the last of those is still where it
 * was; read whole otherwise (a log replaced or cut back, or one that could
 * not be read before).
 */
function loadMore(loaded: Loaded): Loaded {
  if ('error' in loaded || loaded.view.lastSeq === 0 || !('store' in loaded.entry)) return load(loaded.entry);
  const { entry, view } = loaded;
  const { store } = loaded.entry;
  try {
    const [last, ...fresh] = store.read(view.lastSeq - 1);
    if (last?.id !== loaded.lastId) return load(entry);
    if (fresh.length === 0) return loaded;
    return { entry, view: catchUp(view, fresh).view, lastEventAt: fresh.at(-1)!.at, lastId: fresh.at(-1)!.id };
  } catch {
    return load(entry);
  }
}

/**
 * The sessions of a source, read, and kept current while watched: the
 * model `fleet` prints and `serve` serves. Each session that changes is read
 * again whole, a moment after its last change of a burst; a source that
 * says sessions came or went is listed again. Listeners hear each change.
 */
export class Fleet {
  readonly #source: FleetSource;
  readonly #now: () => number;
  readonly #settleMs: number;
  #loaded = new Map<string, Loaded>();
  readonly #listeners = new Set<(change: FleetChange) => void>();
  readonly #due = new Map<string | null, ReturnType<typeof setTimeout>>();
  #unwatch: (() => void) | null = null;

  constructor(source: FleetSource, options: FleetOptions = {}) {
    this.#source = source;
    this.#now = options.now ?? Date.now;
    this.#settleMs = options.settleMs ?? 50;
    for (const entry of source.sessions()) this.#loaded.set(entry.name, load(entry));
  }

  get location(): string {
    return this.#source.location;
  }

  /** Every session's row, by name. */
  rows(): FleetRow[] {
    const now = this.#now();
    return [...this.#loaded.values()].map((loaded) => this.#rowOf(loaded, now));
  }

  /** One session's detail; undefined when there is no session of that name. */
  detail(name: string): SessionDetail | undefined {
    const loaded = this.#loaded.get(name);
    if (loaded === undefined) return undefined;
    const row = this.#rowOf(loaded, this.#now());
    if ('error' in loaded) return { row, chart: [], warnings: [], status: null };
    return { row, chart: weightedOpenChart(loaded.view), warnings: warningsOf(loaded.view), status: renderStatus(loaded.view) };
  }

  /** Calls `listener` with every change from now on; returns the unsubscribe. */
  subscribe(listener: (change: FleetChange) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Starts watching the source (once); `stop` ends it. */
  watch(): void {
    this.#unwatch ??= this.#source.watch((name) => this.#soon(name));
  }

  /** Stops watching and frees the source. */
  stop(): void {
    this.#unwatch?.();
    this.#unwatch = null;
    for (const timer of this.#due.values()) clearTimeout(timer);
    this.#due.clear();
    this.#source.close();
  }

  #rowOf(loaded: Loaded, now: number): FleetRow {
    return 'error' in loaded ? errorRow(loaded.entry.name, loaded.error) : fleetRow(loaded.entry.name, loaded.view, loaded.lastEventAt, now);
  }

  #soon(name: string | null): void {
    if (this.#due.has(name)) return;
    this.#due.set(
      name,
      setTimeout(() => {
        this.#due.delete(name);
        this.#tell(name === null ? this.#relist() : this.#reload(name));
      }, this.#settleMs),
    );
  }

  #reload(name: string): FleetChange {
    const known = this.#loaded.get(name);
    if (known === undefined) return { rows: [], removed: [] };
    const loaded = loadMore(known);
    this.#loaded.set(name, loaded);
    return { rows: [this.#rowOf(loaded, this.#now())], removed: [] };
  }

  /** Lists the sessions again: new ones read, gone ones dropped, those still there kept as read. */
  #relist(): FleetChange {
    let entries: FleetEntry[];
    try {
      entries = this.#source.sessions();
    } catch {
      // The source cannot list now (the folder went away): every session is gone.
      entries = [];
    }
    const next = new Map<string, Loaded>();
    const added: FleetRow[] = [];
    const now = this.#now();
    for (const entry of entries) {
      const known = this.#loaded.get(entry.name);
      const loaded = known ?? load(entry);
      if (known === undefined) added.push(this.#rowOf(loaded, now));
      next.set(entry.name, loaded);
    }
    const removed = [...this.#loaded.keys()].filter((name) => !next.has(name));
    this.#loaded = next;
    return { rows: added, removed };
  }

  #tell(change: FleetChange): void {
    if (change.rows.length === 0 && change.removed.length === 0) return;
    for (const listener of this.#listeners) listener(change);
  }
}
