import { getMicrosteps } from 'xstate';
import {
  convergence,
  leafOf,
  recordOf,
  snapshotOf,
  type ConvergenceConfig,
  type ConvergenceEvent,
  type ConvergenceState,
  type MachineState,
} from '../../machines/index.js';

/** One state change the machine made. */
export interface Step {
  from: ConvergenceState;
  to: ConvergenceState;
}

export interface StepResult {
  machine: MachineState;
  /** Every microstep, so a transient STALLED is seen (R4). Empty when the event changed nothing. */
  steps: Step[];
}

/** Whether the statechart accepts this event in the given state. */
export function machineAccepts(machine: MachineState, config: ConvergenceConfig, event: ConvergenceEvent): boolean {
  return snapshotOf(machine, config).can(event);
}

/**
 * Runs one event through the convergence statechart as a pure function: no
 * actor, no clock. The view keeps the machine's state as its small record,
 * so the same log always rebuilds the same snapshot.
 */
export function stepMachine(machine: MachineState, config: ConvergenceConfig, event: ConvergenceEvent): StepResult {
  let snapshot = snapshotOf(machine, config);
  const steps: Step[] = [];
  for (const [next] of getMicrosteps(convergence(), snapshot, event)) {
    const from = leafOf(snapshot.value);
    const to = leafOf(next.value);
    if (from !== to) steps.push({ from, to });
    snapshot = next;
  }
  return { machine: recordOf(snapshot), steps };
}
