import type { EventBodyInput } from '../../events/index.js';
import { Refusal, type SessionView } from '../core/index.js';
import type { Session } from './session.js';

/** How often a decision is made again when other writers keep moving the log first. */
const ATTEMPTS = 3;

/**
 * Decides on a session's view, then records what was decided (`record`;
 * null: nothing) only if the log has not moved since, and returns the
 * decision. A decision made on a view another writer has since moved on
 * (a Stop and a SubagentStop hook at once) is refused and made again on a
 * freshly opened session; after `attempts` refusals the last one stands.
 * With `peek` (a cheap view that answers the same questions, such as a
 * head checkpoint; null when there is none), the decision is made on it
 * first, and the session is opened only when there is something to record.
 */
export function recordDecided<D extends { record: EventBodyInput | null }>(
  open: () => Session,
  decide: (view: SessionView) => D,
  attempts = ATTEMPTS,
  peek?: () => SessionView | null,
): D {
  const glance = peek?.() ?? null;
  if (glance !== null) {
    const decided = decide(glance);
    if (decided.record === null) return decided;
  }
  for (let attempt = 1; ; attempt++) {
    const session = open();
    const view = session.view;
    const decided = decide(view);
    if (decided.record === null) return decided;
    try {
      session.record(decided.record, { expectSeq: view.lastSeq });
      return decided;
    } catch (error) {
      if (error instanceof Refusal && attempt < attempts) continue;
      throw error;
    }
  }
}
