import type { Outcome } from '../../events/index.js';
import type { Counterfactual, Course } from './backtest.js';

/**
 * How a counterfactual's stop stands to the record's:
 * - `same`, `earlier`, `later`: both stopped; `rounds` says by how many (later or earlier);
 * - `only_here`: this run stopped where the record went on to its end without stopping;
 * - `not_yet`: the record stopped and this run reached the record's end still going (it stops later, if at all);
 * - `unknown`: the record stopped and this run left the record before either could be compared;
 * - `neither`: neither stopped.
 */
export type StopShift = 'same' | 'earlier' | 'later' | 'only_here' | 'not_yet' | 'unknown' | 'neither';

export interface Comparison {
  /** Rounds this run warns at that the record did not. */
  warningsRaised: number[];
  /** Rounds the record warned at that this run judged and did not warn at. */
  warningsMissed: number[];
  stop: { shift: StopShift; rounds: number; outcomeChanged: { was: Outcome; now: Outcome } | null };
}

/** A counterfactual against the record: warnings raised and missed over the rounds it judged, and where it stops. */
export function compareCourses(recorded: Course, run: Counterfactual): Comparison {
  const warnedHere = new Set(run.warnings.map((w) => w.round));
  const warnedThere = new Set(recorded.warnings.map((w) => w.round));
  return {
    warningsRaised: [...warnedHere].filter((round) => !warnedThere.has(round)),
    warningsMissed: [...warnedThere].filter((round) => round <= run.rounds && !warnedHere.has(round)),
    stop: compareStops(recorded, run),
  };
}

function compareStops(recorded: Course, run: Counterfactual): Comparison['stop'] {
  const was = recorded.stop;
  const now = run.stop;
  if (was && now) {
    const rounds = Math.abs(now.round - was.round);
    const shift = now.round === was.round ? 'same' : now.round < was.round ? 'earlier' : 'later';
    return { shift, rounds, outcomeChanged: was.outcome === now.outcome ? null : { was: was.outcome, now: now.outcome } };
  }
  if (now) return { shift: 'only_here', rounds: 0, outcomeChanged: null };
  if (!was) return { shift: 'neither', rounds: 0, outcomeChanged: null };
  return { shift: run.diverged ? 'unknown' : 'not_yet', rounds: 0, outcomeChanged: null };
}
