import type { Severity } from '../../events/index.js';
import { SEVERITIES } from './rules.js';
import type { RoundFigures } from './view.js';

/**
 * A round as it opens: numbered, starting from the given open counts, every
 * tally at `zero` (NaN for the head's stand-in of a round it leaves out).
 */
export function openingFigures(round: number, openStart: number, weightedOpenStart: number, zero = 0): RoundFigures {
  const bySeverity = {} as Record<Severity, RoundFigures['bySeverity'][Severity]>;
  // A loop, not `Object.fromEntries` over mapped pairs: a replay opens a round every twenty-odd events.
  for (const s of SEVERITIES) bySeverity[s] = { resolved: zero, new: zero, weightedResolved: zero, weightedNew: zero };
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
    bySeverity,
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
