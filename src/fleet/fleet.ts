import { summaryOf, type SessionSummary, type SessionView } from '../core/index.js';
import { renderStatus } from '../render/index.js';
import { readHeadSummary, storedView } from '../session/index.js';
import { pauseFor } from '../log/index.js';
import { isPassingReadFailure, retryDelayMs, SETTLE_WITHIN_MS } from './retry.js';
import { errorRow, fleetRow, weightedOpenChart, warningsOf, type ChartPoint, type FleetRow, type Staleness, type Warning } from './rows.js';
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

/** What one read of a session came to: what its row shows, a fault of its log (why it is unreadable), or a failure that says nothing about the log. */
type Outcome = { facts: SessionSummary } | { fault: string } | { failed: string };

/**
 * A session as the fleet holds it: what the last read that got an answer
 * found (null before one did) and, while reads fail for a passing cause,
 * since when, why, and how many retries have been set.
 */
interface Held {
  entry: FleetEntry;
  found: { facts: SessionSummary } | { fault: string } | null;
  failing: (Staleness & { retries: number }) | null;
}

export interface FleetOptions {
  /** Ms since the epoch (a test's fixed clock); default Date.now. */
  now?: () => number;
  /** Changes to one session closer together than this are read once (ms); default 50. */
  settleMs?: number;
}

const NO_CHANGE: FleetChange = { rows: [], removed: [] };

/** How many sessions' details a fleet keeps read (a dashboard shows one at a time; a few tabs may show others). */
const DETAILS_KEPT = 8;

/** A read that threw: a failure that says nothing about the log (isPassingReadFailure), or a fault of the log. */
function failure(error: unknown): Outcome {
  const message = error instanceof Error ? error.message : String(error);
  return isPassingReadFailure(error) ? { failed: message } : { fault: message };
}

/**
 * Reads what one session's row shows: the summary in front of its head
 * checkpoint when that covers the log's last line (the head read, its view
 * not parsed), else the summary of its whole view (its checkpoint and the
 * events after it). The fleet holds summaries, not views, so its memory
 * does not grow with the sessions' inventories. Nothing is written to the
 * store, not even a checkpoint.
 */
function load(entry: FleetEntry): Outcome {
  if (!('store' in entry)) return { fault: entry.error };
  try {
    return { facts: readHeadSummary(entry.store) ?? summaryOf(storedView(entry.store)) };
  } catch (error) {
    return failure(error);
  }
}

/** A session after a read at `now`: what it found, or, when the read failed for a passing cause, what was found before, failing since the first such failure. */
function after(held: Held, outcome: Outcome, now: number): Held {
  if (!('failed' in outcome)) return { entry: held.entry, found: outcome, failing: null };
  return { ...held, failing: { since: held.failing?.since ?? now, reason: outcome.failed, retries: held.failing?.retries ?? 0 } };
}

/**
 * The sessions of a source, read, and kept current while watched: the
 * model `fleet` prints and `serve` serves. Each session that changes is read
 * again, a moment after its last change of a burst; a source that says
 * sessions came or went is listed again. Listeners hear each change.
 *
 * A read that fails for a passing cause (isPassingReadFailure) keeps what
 * the session's last read found, shown stale, and is tried again while the
 * fleet is watched: 0.25 s later, then twice as long each time up to 4 s
 * (retryDelayMs), until a read gets an answer. A fault of the log shows the
 * session unreadable until it changes.
 */
export class Fleet {
  readonly #source: FleetSource;
  readonly #now: () => number;
  readonly #settleMs: number;
  #held = new Map<string, Held>();
  /** The details read last (at most DETAILS_KEPT, oldest first), each with the seq it was read at. */
  readonly #details = new Map<string, { seq: number; detail: Omit<SessionDetail, 'row'> }>();
  readonly #listeners = new Set<(change: FleetChange) => void>();
  readonly #due = new Map<string | null, ReturnType<typeof setTimeout>>();
  /** The retry set for each session whose reads are failing; null: the listing's. */
  readonly #retries = new Map<string | null, ReturnType<typeof setTimeout>>();
  /** Listings in a row that failed for a passing cause. */
  #relistFailures = 0;
  #unwatch: (() => void) | null = null;

  constructor(source: FleetSource, options: FleetOptions = {}) {
    this.#source = source;
    this.#now = options.now ?? Date.now;
    this.#settleMs = options.settleMs ?? 50;
    const now = this.#now();
    for (const entry of source.sessions()) this.#held.set(entry.name, after({ entry, found: null, failing: null }, load(entry), now));
  }

  get location(): string {
    return this.#source.location;
  }

  /** Every session's row, by name. */
  rows(): FleetRow[] {
    const now = this.#now();
    return [...this.#held.entries()].map(([name, held]) => rowOf(name, held, now));
  }

  /**
   * One session's detail, read whole now (the only read of a whole view:
   * the fleet holds each session's summary); undefined when there is no
   * session of that name. When that read fails, the row as last read, and
   * nothing else.
   */
  detail(name: string): SessionDetail | undefined {
    const held = this.#held.get(name);
    if (held === undefined) return undefined;
    const now = this.#now();
    const row = rowOf(name, held, now);
    if (held.found === null || 'fault' in held.found || !('store' in held.entry)) return { row, chart: [], warnings: [], status: null };
    // Read for a request before, and unchanged since (the same last event as the row): not read again.
    const kept = this.#details.get(name);
    if (kept !== undefined && kept.seq === held.found.facts.eventCount) return { row, ...kept.detail };
    let view: SessionView;
    try {
      view = storedView(held.entry.store);
    } catch {
      return { row, chart: [], warnings: [], status: null };
    }
    const detail = { chart: weightedOpenChart(view), warnings: warningsOf(view), status: renderStatus(view) };
    this.#details.delete(name);
    this.#details.set(name, { seq: view.lastSeq, detail });
    for (const old of this.#details.keys()) if (this.#details.size > DETAILS_KEPT) this.#details.delete(old);
    return { row: fleetRow(name, view, now, held.failing === null ? null : { since: held.failing.since, reason: held.failing.reason }), ...detail };
  }

  /** Calls `listener` with every change from now on; returns the unsubscribe. */
  subscribe(listener: (change: FleetChange) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Starts watching the source (once), and retrying the sessions whose reads failed; `stop` ends both. */
  watch(): void {
    if (this.#unwatch !== null) return;
    this.#unwatch = this.#source.watch((name) => this.#soon(name));
    for (const name of this.#held.keys()) this.#retryLater(name);
  }

  /**
   * For a fleet read once and not watched (`gapflow fleet`): reads again,
   * as a watched fleet would and on the same schedule, each session whose
   * last read failed for a passing cause, until none has or the next retry
   * would come after `withinMs`. Holds the thread while it waits.
   */
  settle(withinMs = SETTLE_WITHIN_MS): void {
    const end = Date.now() + withinMs;
    for (let attempt = 0; ; attempt++) {
      const failing = [...this.#held].filter(([, held]) => held.failing !== null).map(([name]) => name);
      const wait = retryDelayMs(attempt);
      if (failing.length === 0 || Date.now() + wait > end) return;
      pauseFor(wait);
      for (const name of failing) this.#reload(name);
    }
  }

  /** Stops watching and retrying, and frees the source. */
  stop(): void {
    this.#unwatch?.();
    this.#unwatch = null;
    for (const timer of [...this.#due.values(), ...this.#retries.values()]) clearTimeout(timer);
    this.#due.clear();
    this.#retries.clear();
    this.#source.close();
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

  /** Sets the next retry of a session whose reads are failing (or of the listing: null), while watched; one at a time. */
  #retryLater(name: string | null): void {
    if (this.#unwatch === null || this.#retries.has(name)) return;
    let retries: number;
    if (name === null) retries = this.#relistFailures - 1;
    else {
      const held = this.#held.get(name);
      if (held?.failing == null) return;
      retries = held.failing.retries;
      this.#held.set(name, { ...held, failing: { ...held.failing, retries: retries + 1 } });
    }
    const timer = setTimeout(() => {
      this.#retries.delete(name);
      this.#tell(name === null ? this.#relist() : this.#reload(name));
    }, retryDelayMs(retries));
    // A retry never keeps a process alive: the watch does, for as long as it is wanted.
    timer.unref();
    this.#retries.set(name, timer);
  }

  #cancelRetry(name: string | null): void {
    clearTimeout(this.#retries.get(name));
    this.#retries.delete(name);
  }

  #reload(name: string): FleetChange {
    const held = this.#held.get(name);
    if (held === undefined) return NO_CHANGE;
    const next = after(held, load(held.entry), this.#now());
    this.#held.set(name, next);
    if (next.failing === null) this.#cancelRetry(name);
    else this.#retryLater(name);
    // Failing again, for the same reason: the row shows what it showed.
    if (held.failing !== null && next.failing?.reason === held.failing.reason) return NO_CHANGE;
    return { rows: [rowOf(name, next, this.#now())], removed: [] };
  }

  /** Lists the sessions again: new ones read, gone ones dropped, those still there kept as read. */
  #relist(): FleetChange {
    let entries: FleetEntry[];
    try {
      entries = this.#source.sessions();
      this.#relistFailures = 0;
      this.#cancelRetry(null);
    } catch (error) {
      if (isPassingReadFailure(error)) {
        // The database out of reach for now: every session stays as it was read, and the listing is tried again.
        this.#relistFailures += 1;
        this.#retryLater(null);
        return NO_CHANGE;
      }
      // The source cannot list (the folder went away): every session is gone.
      entries = [];
    }
    const next = new Map<string, Held>();
    const added: FleetRow[] = [];
    const now = this.#now();
    for (const entry of entries) {
      const known = this.#held.get(entry.name);
      const held = known ?? after({ entry, found: null, failing: null }, load(entry), now);
      if (known === undefined) added.push(rowOf(entry.name, held, now));
      next.set(entry.name, held);
    }
    const removed = [...this.#held.keys()].filter((name) => !next.has(name));
    this.#held = next;
    for (const name of removed) this.#cancelRetry(name);
    for (const row of added) this.#retryLater(row.name);
    return { rows: added, removed };
  }

  #tell(change: FleetChange): void {
    if (change.rows.length === 0 && change.removed.length === 0) return;
    for (const listener of this.#listeners) listener(change);
  }
}

/**
 * A session's row: its figures as last read, stale while reads are failing
 * for a passing cause; unreadable when its log has a fault, or when no read
 * of it has got an answer yet.
 */
function rowOf(name: string, held: Held, now: number): FleetRow {
  const { found, failing } = held;
  if (found === null) return errorRow(name, failing?.reason ?? 'not read yet');
  if ('fault' in found) return errorRow(name, found.fault);
  return fleetRow(name, found.facts, now, failing === null ? null : { since: failing.since, reason: failing.reason });
}
