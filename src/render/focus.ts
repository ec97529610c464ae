import type { SessionView } from '../core/lean.js';

/**
 * What the focus is, in words: the CRITICAL gaps a prioritize-critical
 * decision named (R11), or the gaps a prioritize decision chose (R26),
 * whichever set the focus last.
 */
export function focusLabel(view: Pick<SessionView, 'decisions'>): string {
  const setBy = view.decisions.findLast((d) => d.kind === 'prioritize' || d.kind === 'prioritize_critical');
  return setBy?.kind === 'prioritize' ? 'the gaps the user prioritized' : 'the CRITICAL gaps the user prioritized';
}
