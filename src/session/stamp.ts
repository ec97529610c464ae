import { nanoid } from 'nanoid';
import { EVENT_VERSION, formatIssue, GapflowEvent, type Decided, type SettledEvent } from '../../events/index.js';
import { evolveMany, type SessionView } from '../core/index.js';
import { LogError } from '../log/index.js';
import type { SessionOptions } from './options.js';
import { ownIndex } from './requests.js';

/** Stamps each decided body as the next event (`eventId` goes to the request's own one) and folds it into the working view. */
export type Stamp = (bodies: readonly Decided[], eventId: string | undefined, working: SessionView, step: (event: SettledEvent) => void) => SettledEvent[];

/** A Stamp with the session's clock and ids. */
export function stamper({ clock = () => new Date(), newId = () => nanoid() }: Pick<SessionOptions, 'clock' | 'newId'>): Stamp {
  return (bodies, eventId, working, step) => {
    const own = ownIndex(bodies);
    return bodies.map((body, index) => {
      const id = eventId !== undefined && index === own ? eventId : newId();
      const event = { v: EVENT_VERSION, seq: working.lastSeq + 1, id, at: clock().toISOString(), ...body } as SettledEvent;
      if (event.type === 'round.closed' || event.type === 'decision.made') readsBack(event);
      step(event);
      return event;
    });
  };
}

/** Stamps and folds a request's decided events on their own working copy (a session's first event). */
export function stampAll(
  stamp: Stamp,
  view: SessionView,
  bodies: readonly Decided[],
  eventId: string | undefined,
): { events: SettledEvent[]; view: SessionView } {
  const { view: next, result: events } = evolveMany(view, (working, step) => stamp(bodies, eventId, working, step));
  return { events, view: next };
}

/**
 * An event whose outcome gapflow computed must read back as it is written:
 * a line the schema refuses would make the whole log unreadable, so it is
 * refused here, before anything is appended (the requests' own parts were
 * parsed by `decide`).
 */
function readsBack(event: SettledEvent): void {
  const parsed = GapflowEvent.safeParse(event);
  if (!parsed.success) throw new LogError(`${event.type} (seq ${event.seq}) would not read back (${formatIssue(parsed.error)}); nothing was written`);
}
