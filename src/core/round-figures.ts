import type { Severity } from '../../events/index.js';
import { SEVERITIES } from './rules.js';
import type { RoundFigures } from './view.js';

/**
 * A round as it opens: numbered, starting from the given open counts, every
 * tally at `zero` (NaN for the head's stand-in of a round it leaves out).
 */
export function openingFigures(round: number, openStart: number, weightedOpenStart: number, zero = 0): RoundFigures {
  const entries = SEVERITIES.map((s) => [s, { resolved: zero, new: zero, weightedResolved: zero, weightedNew: zero }] as const);
  return {
    round,
    kind: 'work',
    openStart,
    weightedOpenStart,
    openEnd: null,
    weightedOpenEnd: null,
    resolved: zero,
    new: zero,
    weightedResolved: zero,
    weightedNew: zero,
    withdrawn: zero,
    weightedWithdrawn: zero,
    unweightedNet: zero,
    weightedNet: zero,
    bySeverity: Object.fromEntries(entries) as Record<Severity, RoundFigures['bySeverity'][Severity]>,
    resolvedGaps: [],
    newGaps: [],
    withdrawnGaps: [],
    splits: [],
    severityChanges: [],
    criticalIntroduced: [],
    outsideFocus: [],
    state: null,
    flatCount: null,
    verdicts: [],
    combined: null,
  };
}
