import type { EventBody } from '../../events/index.js';
import { Refusal, type Remedy } from './refusal.js';
import type { SessionView } from './view.js';

/** What a refusal names: `gap.opened GAP-1`, `decision.made pause`, `metrics.recorded atoms`. */
export function label(body: EventBody): string {
  if ('id' in body.data) return `${body.type} ${body.data.id}`;
  if ('policy' in body.data) return `${body.type} ${body.data.policy}`;
  return 'kind' in body.data ? `${body.type} ${body.data.kind}` : body.type;
}

export type Refuse = (why: string, remedy?: Remedy) => never;

/** A refusal of `body`, named by it. */
export function refuser(body: EventBody): Refuse {
  return (why, remedy) => {
    throw new Refusal(`${label(body)}: ${why}`, remedy);
  };
}

type Why = [why: string, remedy?: Remedy];

/** Why no round can start now, and what would let one, or null when one can. */
export function whyNoRoundCanStart(view: SessionView): Why | null {
  switch (view.machine.state) {
    case 'DIVERGENCE_WARNING':
      return ['no round can start in DIVERGENCE_WARNING: a decision is due first', 'decide'];
    case 'PAUSED':
      return ['no round can start while the session is PAUSED: resume it first', 'resume'];
    case 'COMPLETE':
      return [`the session is COMPLETE (${view.machine.outcome}); nothing more can be recorded`];
    default:
      return view.roundOpen ? [`round ${view.rounds.length} is already open; close it first`, 'close_round'] : null;
  }
}

export function refuseRoundStart(view: SessionView, refuse: Refuse): void {
  const why = whyNoRoundCanStart(view);
  if (why) refuse(...why);
}

/** A paused session takes no gap event, metrics, round close or binding: resume first. */
export function refusePaused(view: SessionView, refuse: Refuse): void {
  if (view.machine.state === 'PAUSED') refuse('the session is PAUSED; resume it first', 'resume');
}
