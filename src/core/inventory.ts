import type { Severity } from '../../events/index.js';
import { CLASS_FACTOR, SEVERITIES, SEVERITY_WEIGHT, STATE_CLASS } from './rules.js';
import type { Gap } from './view.js';

/** RULINGS R9: OPEN + IN_PROGRESS + BLOCKED + PROPOSED + NEEDS_REVISION + 0.5 × USER_DEFERRED. */
export function openCount(gaps: Iterable<Gap>): number {
  let total = 0;
  for (const gap of gaps) total += CLASS_FACTOR[STATE_CLASS[gap.state]];
  return total;
}

/** R9: the same sum with each gap at its severity weight. */
export function weightedOpen(gaps: Iterable<Gap>): number {
  let total = 0;
  for (const gap of gaps) total += CLASS_FACTOR[STATE_CLASS[gap.state]] * SEVERITY_WEIGHT[gap.severity];
  return total;
}

export function isOpen(gap: Gap): boolean {
  return STATE_CLASS[gap.state] === 'open';
}

/** Open (not parked, not closed) gaps per severity. */
export function openBySeverity(gaps: Iterable<Gap>): Record<Severity, number> {
  const counts = Object.fromEntries(SEVERITIES.map((s) => [s, 0])) as Record<Severity, number>;
  for (const gap of gaps) if (isOpen(gap)) counts[gap.severity] += 1;
  return counts;
}

/** Open and parked gaps, most severe first, in the order they were recorded. */
export function unfinishedGaps(gaps: Iterable<Gap>): Gap[] {
  const unfinished = [...gaps].filter((gap) => STATE_CLASS[gap.state] !== 'closed');
  return unfinished.sort((a, b) => SEVERITIES.indexOf(a.severity) - SEVERITIES.indexOf(b.severity));
}
