import { createActor, type Actor, type InspectionEvent, type Observer } from 'xstate';
import type { SettledEvent } from '../../events/index.js';
import { convergence, recordOf, snapshotOf, type ConvergenceMachine, type MachineInput, type MachineState } from '../../machines/index.js';
import { machineEventOf, type SessionView } from '../core/index.js';

/** What XState accepts as an actor's `inspect` option: an observer or a plain callback. */
export type InspectOption = Observer<InspectionEvent> | ((event: InspectionEvent) => void);

export type ConvergenceActor = Actor<ConvergenceMachine>;

/** The machine reads only the stall threshold; the other thresholds reach it inside the round's verdict. */
function sameConfig(a: MachineInput, b: MachineInput): boolean {
  return a.stallThreshold === b.stallThreshold;
}

/**
 * A running XState actor that mirrors a session, for the Stately inspector
 * and anyone who wants a live actor. It replays the machine events the log
 * recorded (a round close's figures and verdict, a decision) and nothing
 * else; the log stays the truth: where today's machine would go elsewhere
 * than the recorded step (an old session under newer rules), the actor
 * restarts where the log says.
 */
export class LiveActor {
  #actor: ConvergenceActor | null = null;
  #config: MachineInput | null = null;

  constructor(private readonly inspect: InspectOption | undefined) {}

  get actor(): ConvergenceActor | null {
    return this.#actor;
  }

  /** Starts (or restarts) the actor from the view when it has none, or when the thresholds changed. */
  sync(view: Pick<SessionView, 'settings' | 'config' | 'machine'>): ConvergenceActor | null {
    if (!view.settings) return null;
    if (this.#actor && this.#config && sameConfig(this.#config, view.config)) return this.#actor;
    // The auto preset fixes the thresholds when round 1 starts: restart from the view with them.
    return this.#start(view.config, view.machine);
  }

  /** Replays one stored event, `view` being the view just before it (as replay folds it). */
  feed(view: SessionView, event: SettledEvent): void {
    const actor = this.sync(view);
    if (actor) this.#play(actor, event, view.config);
  }

  /** A session's subscriber: replays what a write or a catch-up appended, then follows the view's thresholds. */
  hear(update: { events: readonly SettledEvent[]; view: SessionView }): void {
    for (const event of update.events) {
      const actor = this.#actor ?? this.sync(update.view);
      if (actor) this.#play(actor, event, this.#config ?? update.view.config);
    }
    this.sync(update.view);
  }

  stop(): void {
    this.#actor?.stop();
    this.#actor = null;
  }

  #play(actor: ConvergenceActor, event: SettledEvent, config: MachineInput): void {
    const machineEvent = machineEventOf(event);
    if (!machineEvent || (event.type !== 'round.closed' && event.type !== 'decision.made')) return;
    actor.send(machineEvent);
    const recorded = event.data.outcome.machine;
    const reached = recordOf(actor.getSnapshot());
    const same =
      reached.state === recorded.state &&
      reached.flatCount === recorded.flatCount &&
      reached.outcome === recorded.outcome &&
      reached.pausedFrom === recorded.pausedFrom;
    if (!same) this.#start(config, recorded);
  }

  #start(config: MachineInput, machine: MachineState): ConvergenceActor {
    this.#actor?.stop();
    const snapshot = snapshotOf(machine, config);
    // The snapshot carries the context, so `input` (required by the types) is never read.
    const input = { stallThreshold: config.stallThreshold };
    this.#actor = createActor(convergence(), { input, snapshot, ...(this.inspect ? { inspect: this.inspect } : {}) });
    this.#config = input;
    this.#actor.start();
    return this.#actor;
  }
}
