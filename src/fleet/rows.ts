import type { ConvergenceState } from '../../events/index.js';
import { closedRounds, summaryOf, tracksGaps, type SessionSummary, type SessionView } from '../core/index.js';

/*
 * What the fleet shows of one session, read off its view: pure functions,
 * the clock handed in, so a row is the same wherever it is computed.
 */

/**
 * One session in the fleet: a line of `gapflow fleet`, a row of the
 * dashboard. Its figures are the session's summary (SessionSummary: what a
 * head checkpoint holds in front), read at a time and maybe stale.
 */
export interface FleetRow extends Omit<SessionSummary, 'state'> {
  name: string;
  /** Null when the log could not be read (`error` says why). */
  state: ConvergenceState | null;
  /** Whole seconds from the last event to the time the row was computed; null when unknown. */
  age: number | null;
  /** Why the session could not be read (shown UNREADABLE, no figures); null when it was. */
  error: string | null;
  /**
   * True when the last read failed for a passing cause (a dropped
   * connection, a refused open: see isPassingReadFailure) after one that
   * succeeded: the figures are that earlier read's, and are read again.
   */
  stale: boolean;
  /** When reads began to fail, while stale; null otherwise. */
  staleSince: string | null;
  /** Whole seconds from `staleSince` to the time the row was computed; null when not stale. */
  staleForSeconds: number | null;
  /** Why the last read failed, while stale; null otherwise. */
  staleReason: string | null;
}

/** Since when (ms since the epoch) and why a session's reads have been failing for a passing cause. */
export interface Staleness {
  since: number;
  reason: string;
}

/** A round close that raised a DIVERGENCE_WARNING, and why: `stall`, `critical`, `divergence`, or another policy's reason. */
export interface Warning {
  round: number;
  cause: string;
}

/** The weighted open count at round 1's start (round 0) and at the close of each closed round: the dashboard's chart. */
export interface ChartPoint {
  round: number;
  weightedOpen: number;
}

/**
 * The row of a session read as `view` (its whole view or its head), or as
 * its summary (what a head checkpoint holds in front), at time `now` (ms
 * since the epoch); `stale` when reads of it have failed since it was read.
 */
export function fleetRow(name: string, view: SessionView | SessionSummary, now: number, stale: Staleness | null = null): FleetRow {
  const facts = 'machine' in view ? summaryOf(view) : view;
  return {
    name,
    ...facts,
    age: ageOf(facts.lastEventAt, now),
    error: null,
    stale: stale !== null,
    staleSince: stale === null ? null : new Date(stale.since).toISOString(),
    staleForSeconds: stale === null ? null : Math.max(0, Math.floor((now - stale.since) / 1000)),
    staleReason: stale?.reason ?? null,
  };
}

/** The row of a session whose log could not be read: its name and why, every figure empty. */
export function errorRow(name: string, error: string): FleetRow {
  return {
    name,
    state: null,
    outcome: null,
    round: 0,
    roundOpen: false,
    open: 0,
    weightedOpen: 0,
    lastReason: null,
    forecast: null,
    warnings: 0,
    eventCount: 0,
    lastEventAt: null,
    age: null,
    error,
    stale: false,
    staleSince: null,
    staleForSeconds: null,
    staleReason: null,
  };
}

function ageOf(at: string | null, now: number): number | null {
  const time = at === null ? Number.NaN : Date.parse(at);
  return Number.isNaN(time) ? null : Math.max(0, Math.floor((now - time) / 1000));
}

const CAUSES: Readonly<Record<string, string>> = { critical_introduced: 'critical', weighted_net_below_divergence: 'divergence' };

/**
 * The warnings a session raised: each round close that moved it to
 * DIVERGENCE_WARNING (a decision that leads back there is the same warning
 * still standing, not a new one). The cause is `stall` when the round
 * stalled the loop, `critical` for a CRITICAL gap opened, `divergence` for
 * a weighted net below the threshold, else the reason of the verdict that
 * drove the machine (another policy's, such as a budget running out).
 */
export function warningsOf(view: Pick<SessionView, 'history' | 'rounds' | 'roundsBefore'>): Warning[] {
  const warnings: Warning[] = [];
  view.history.forEach((entry, index) => {
    if (entry.cause !== 'round' || entry.to !== 'DIVERGENCE_WARNING') return;
    const stalled = view.history.slice(0, index).some((earlier) => earlier.cause === 'round' && earlier.round === entry.round && earlier.to === 'STALLED');
    // Round N is the N-th started (a head keeps only its last ones, `roundsBefore` counting those before).
    const reason = view.rounds[entry.round - 1 - view.roundsBefore]?.combined?.reason ?? entry.reason;
    warnings.push({ round: entry.round, cause: stalled ? 'stall' : (CAUSES[reason] ?? reason) });
  });
  return warnings;
}

/** The weighted open count over the rounds: at round 1's start, then at each close. Empty before a round closes, or when no policy reads gaps. */
export function weightedOpenChart(view: SessionView): ChartPoint[] {
  const closed = closedRounds(view);
  if (closed.length === 0 || !tracksGaps(view)) return [];
  return [{ round: 0, weightedOpen: closed[0]!.weightedOpenStart }, ...closed.map((r) => ({ round: r.round, weightedOpen: r.weightedOpenEnd! }))];
}
