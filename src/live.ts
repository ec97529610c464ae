import { createActor, type Actor, type InspectionEvent, type Observer } from 'xstate';
import type { GapflowEvent } from '../events/index.js';
import { convergenceMachine, type ConvergenceConfig } from '../machines/index.js';
import { machineEventOf, type SessionView } from './core/index.js';

/** What XState accepts as an actor's `inspect` option: an observer or a plain callback. */
export type InspectOption = Observer<InspectionEvent> | ((event: InspectionEvent) => void);

export type ConvergenceActor = Actor<typeof convergenceMachine>;

function sameConfig(a: ConvergenceConfig, b: ConvergenceConfig): boolean {
  return (
    a.stallThreshold === b.stallThreshold &&
    a.divergenceThreshold === b.divergenceThreshold &&
    a.maxRounds === b.maxRounds &&
    a.criticalOverride === b.criticalOverride
  );
}

/**
 * A running XState actor that mirrors a session, for the Stately inspector
 * and anyone who wants a live actor: it is sent the same statechart events
 * the projection steps through, and only those. The view stays the source of
 * truth; the actor is a window on it.
 */
export class LiveActor {
  #actor: ConvergenceActor | null = null;
  #config: ConvergenceConfig | null = null;

  constructor(private readonly inspect: InspectOption | undefined) {}

  get actor(): ConvergenceActor | null {
    return this.#actor;
  }

  /** Starts (or restarts) the actor from the view when it has none, or when the thresholds changed. */
  sync(view: SessionView): ConvergenceActor | null {
    if (!view.settings) return null;
    if (this.#actor && this.#config && sameConfig(this.#config, view.config)) return this.#actor;
    // The auto preset fixes the thresholds when round 1 starts: restart from the view with them.
    this.#actor?.stop();
    const { state, flatCount, outcome, pausedFrom } = view.machine;
    const snapshot = convergenceMachine.resolveState({ value: state, context: { ...view.config, flatCount, outcome, pausedFrom } });
    // The snapshot carries the context, so `input` (required by the types) is never read.
    this.#actor = createActor(convergenceMachine, {
      input: view.config,
      snapshot,
      ...(this.inspect ? { inspect: this.inspect } : {}),
    });
    this.#config = { ...view.config };
    this.#actor.start();
    return this.#actor;
  }

  /** Sends the actor what `event` sends the statechart; `view` is the view just before the event. */
  feed(view: SessionView, event: GapflowEvent): void {
    const machineEvent = machineEventOf(view, event);
    if (machineEvent) this.sync(view)?.send(machineEvent);
  }

  stop(): void {
    this.#actor?.stop();
    this.#actor = null;
  }
}
