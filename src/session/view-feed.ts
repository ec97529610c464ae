import type { SettledEvent } from '../../events/index.js';
import type { HistoryEntry, SessionView } from '../core/index.js';

/** A state change, as a subscriber hears of it. */
export type StateChange = HistoryEntry;

/** What subscribers hear after each write or catch-up: the new events (outcomes included), the state changes they made, the view now. */
export interface SessionUpdate {
  events: readonly SettledEvent[];
  changes: readonly StateChange[];
  view: SessionView;
}
export type SessionListener = (update: SessionUpdate) => void;

/** A session's view now, and the listeners that hear each time it moves on. */
export class ViewFeed {
  #view: SessionView;
  readonly #listeners = new Set<SessionListener>();

  constructor(view: SessionView) {
    this.#view = view;
  }

  get view(): SessionView {
    return this.#view;
  }

  /** Returns the unsubscribe. */
  subscribe(listener: SessionListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Moves the view on and tells subscribers what changed. */
  publish({ events, view }: { events: readonly SettledEvent[]; view: SessionView }): void {
    const before = this.#view;
    this.#view = view;
    if (this.#listeners.size === 0) return;
    const changes = stateChanges(before, view);
    for (const listener of this.#listeners) listener({ events, changes, view });
  }
}

/** The steps `next` added to `before`'s history that moved the state, as subscribers hear them. */
export function stateChanges(before: SessionView, next: SessionView): StateChange[] {
  return next.history.slice(before.history.length).filter((entry) => entry.from !== entry.to);
}
