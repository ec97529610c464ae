import type { GapflowEvent, SettledEvent } from '../../events/index.js';
import { judgeDecision, judgeRoundClose } from './judge.js';
import type { SessionView } from './view.js';

/**
 * The upcaster of outcomes: a stored event as the view folds it. A round
 * close or a decision written since version 3 carries what the machine
 * decided, and that is applied as it is. One written before has none: its
 * outcome is computed once, from the view just before it, by the session
 * rules of the versions that wrote it (R12 then bound only sessions without
 * the gap policy). Null for an old round close with no round open to judge
 * (nothing to apply; `verify` names it).
 */
export function settle(view: SessionView, event: GapflowEvent): SettledEvent | null {
  if (event.type === 'round.closed' && event.data.outcome === undefined) {
    const outcome = judgeRoundClose(view, 'before-v4');
    return outcome === null ? null : { ...event, data: { ...event.data, outcome } };
  }
  if (event.type === 'decision.made' && event.data.outcome === undefined) {
    return { ...event, data: { ...event.data, outcome: judgeDecision(view, event.data) } };
  }
  return event as SettledEvent;
}
