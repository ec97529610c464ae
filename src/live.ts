import { createActor, type Actor, type InspectionEvent, type Observer } from 'xstate';
import type { SettledEvent } from '../events/index.js';
import { convergenceMachine, type ConvergenceConfig, type ConvergenceEvent } from '../machines/index.js';
import { machineEventOf, type MachineView, type SessionView } from './core/index.js';

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
 * What the actor needs to hear one stored event: the statechart event it
 * sends, and the thresholds and machine state just before it (plain copies,
 * so a batch can keep them until its write has gone in).
 */
export interface ActorFrame {
  started: boolean;
  config: ConvergenceConfig;
  machine: MachineView;
  event: ConvergenceEvent;
  /** The machine as the log recorded it after the event. */
  after: MachineView;
}

/** The frame for `event` given the view just before it; null when the event sends the statechart nothing. */
export function frameOf(view: SessionView, event: SettledEvent): ActorFrame | null {
  const machineEvent = machineEventOf(view, event);
  if (!machineEvent || (event.type !== 'round.closed' && event.type !== 'decision.made')) return null;
  const after = { ...event.data.outcome.machine };
  return { started: view.settings !== null, config: { ...view.config }, machine: { ...view.machine }, event: machineEvent, after };
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
    return this.#from({ started: view.settings !== null, config: view.config, machine: view.machine });
  }

  #from(view: Pick<ActorFrame, 'started' | 'config' | 'machine'>): ConvergenceActor | null {
    if (!view.started) return null;
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
  feed(view: SessionView, event: SettledEvent): void {
    const frame = frameOf(view, event);
    if (frame) this.play(frame);
  }

  /**
   * Sends one frame's event, from the state the frame was taken in. The log
   * is the truth: if today's machine goes elsewhere than the recorded step
   * (an old session under newer rules), the actor restarts where the log says.
   */
  play(frame: ActorFrame): void {
    const actor = this.#from(frame);
    actor?.send(frame.event);
    if (actor && actor.getSnapshot().value !== frame.after.state) {
      this.#actor?.stop();
      this.#actor = null;
      this.#from({ ...frame, machine: frame.after });
    }
  }

  stop(): void {
    this.#actor?.stop();
    this.#actor = null;
  }
}
