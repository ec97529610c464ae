import type { SessionView } from '../core/index.js';

/**
 * Whose focus it is: the CRITICAL gaps a prioritize-critical decision named
 * (R11), or the gaps a prioritize decision chose (R26), whichever set the
 * focus last; each renderer words it (a prioritize-critical focus as it
 * always did).
 */
export function focusIsChosen(view: Pick<SessionView, 'decisions'>): boolean {
  return view.decisions.findLast((d) => d.kind === 'prioritize' || d.kind === 'prioritize_critical')?.kind === 'prioritize';
}
