import { getMicrosteps } from 'xstate';
import {
  convergenceMachine,
  type ConvergenceConfig,
  type ConvergenceEvent,
  type ConvergenceState,
} from '../../machines/index.js';
import type { MachineView } from './view.js';

/** One state change the machine made, with the guard that chose it (null: unguarded). */
export interface Step {
  from: ConvergenceState;
  to: ConvergenceState;
  rule: string | null;
}

export interface StepResult {
  machine: MachineView;
  /** Every microstep, so a transient STALLED is seen (R4). Empty when the event changed nothing. */
  steps: Step[];
  /** The guard of the first transition taken, also when the state stayed the same. */
  rule: string | null;
}

function snapshotOf(machine: MachineView, config: ConvergenceConfig) {
  return convergenceMachine.resolveState({
    value: machine.state,
    context: { ...config, flatCount: machine.flatCount, outcome: machine.outcome, pausedFrom: machine.pausedFrom },
  });
}

/** Whether the statechart accepts this event in the given state. */
export function machineAccepts(machine: MachineView, config: ConvergenceConfig, event: ConvergenceEvent): boolean {
  return snapshotOf(machine, config).can(event);
}

function guardName(guard: unknown): string | null {
  if (typeof guard === 'string') return guard;
  if (guard && typeof guard === 'object' && 'type' in guard) return String(guard.type);
  return null;
}

/**
 * Runs one event through the convergence statechart as a pure function: no
 * actor, no clock. The view keeps the machine's state as plain data, so the
 * same log always rebuilds the same snapshot.
 */
export function stepMachine(machine: MachineView, config: ConvergenceConfig, event: ConvergenceEvent): StepResult {
  let snapshot = snapshotOf(machine, config);
  const taken = convergenceMachine.getTransitionData(snapshot, event)[0];
  const rule = guardName(taken?.guard);
  const steps: Step[] = [];
  for (const [next] of getMicrosteps(convergenceMachine, snapshot, event)) {
    const from = snapshot.value as ConvergenceState;
    const to = next.value as ConvergenceState;
    if (from !== to) steps.push({ from, to, rule: steps.length === 0 ? rule : null });
    snapshot = next;
  }
  const { flatCount, outcome, pausedFrom } = snapshot.context;
  return { machine: { state: snapshot.value as ConvergenceState, flatCount, outcome, pausedFrom }, steps, rule };
}
