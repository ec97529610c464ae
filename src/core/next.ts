import { forecastPastLimit } from './session-forecast.js';
import { closedRoundCount } from './inventory.js';
import { formatCount } from '../policies/index.js';
import { metricPoliciesOf, missingMetrics, roundLimit, tracksGaps } from './policies.js';
import { runWords } from './gate.js';
import type { SessionView } from './view.js';

export type NextAction = 'continue' | 'ask_user' | 'stop';

/** What the loop should do now: go on, put a decision to the user, or stop. */
export function nextStep(view: SessionView): { action: NextAction; reason: string } {
  const { state, outcome, flatCount } = view.machine;
  const closed = closedRoundCount(view);
  const lastReason = view.history.at(-1)?.reason;
  const lastRoundReason = view.history.findLast((h) => h.cause === 'round')?.reason;
  switch (state) {
    case 'COMPLETE':
      return { action: 'stop', reason: `the session is COMPLETE (${outcome})${lastReason ? `: ${lastReason}` : ''}` };
    case 'PAUSED':
      return { action: 'stop', reason: 'the session is PAUSED; resuming picks it up where it was' };
    case 'DIVERGENCE_WARNING':
      return {
        action: 'ask_user',
        reason: `DIVERGENCE_WARNING${lastRoundReason ? ` (${lastRoundReason})` : ''}: the user must decide before the next round; the decision prompt shows the options`,
      };
    default: {
      const flat = `${state === 'FLAT' ? `; no net progress (${flatCount}/${view.config.stallThreshold} toward stall)` : ''}${lastRoundWarning(view)}${failedCheck(view)}`;
      if (!tracksGaps(view)) {
        const due = view.roundOpen ? missingMetrics(view, closed + 1) : metricPoliciesOf(view.policies.enabled).map((p) => p.name);
        // Every policy recorded but the round still open (its automatic close was lost to a crash): close it.
        const work = due.length > 0 ? `record ${due.join(', ')} for round ${closed + 1}` : `close round ${closed + 1}`;
        return { action: 'continue', reason: `${state}: ${work}${flat}` };
      }
      const missing = view.roundOpen ? missingMetrics(view, closed + 1) : [];
      const record = missing.length > 0 ? `record ${missing.join(', ')}, ` : '';
      const work = view.roundOpen ? `round ${closed + 1} is open: work on the open gaps, ${record}then close it` : `start round ${closed + 1}`;
      const open = `; ${formatCount(view.open.count)} open`;
      return { action: 'continue', reason: `${state}: ${work}${flat}${open}${forecastPastLimit(view)}` };
    }
  }
}

/**
 * R24: whether the next round to close (the open one, or the next to
 * start) is the last the round limit allows; false where no limit applies.
 */
export function nextRoundIsLast(view: SessionView): boolean {
  const limit = roundLimit(view);
  return limit !== null && closedRoundCount(view) + 1 >= limit;
}

/** The warning `next` gives before the last round, naming the decision that allows more; empty otherwise. */
function lastRoundWarning(view: SessionView): string {
  if (!nextRoundIsLast(view)) return '';
  const last = closedRoundCount(view) + 1;
  return `; round ${last} is the last: closing it ends the session at max_rounds (${view.config.maxRounds}) unless the user extends the limit (decide extend-rounds N)`;
}

/**
 * The verification gate's failing run, while nothing has moved past it (no
 * round closed since): why the session did not complete; empty otherwise.
 */
function failedCheck(view: SessionView): string {
  const run = view.verification;
  if (run === null || run.passed || run.afterRound !== closedRoundCount(view)) return '';
  const retry = run.gates === 'approve' ? 'approve again' : view.roundOpen ? 'close the round again' : 'close the next round';
  return `; the verification check failed (${runWords(run)}), so the session did not complete: fix what it reports, then ${retry} (the check runs again)`;
}
