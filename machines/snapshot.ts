import type { AnyStateNode, SnapshotFrom, StateValue } from 'xstate';
import type { ConvergenceState, MachineState, ResumableState } from '../events/index.js';
import { convergence, type ConvergenceMachine, type MachineInput } from './convergence.js';

export type { MachineState } from '../events/index.js';
export type ConvergenceSnapshot = SnapshotFrom<ConvergenceMachine>;

/** Every leaf state has an id equal to its name, so the record's one word finds its node. */
function nodeOf(state: ConvergenceState | 'RESUMED'): AnyStateNode {
  return convergence().getStateNodeById(state);
}

/** `FLAT` as the nested value XState resolves: `{ ONGOING: { ACTIVE: { LOOPING: 'FLAT' } } }`. */
function nestedValue(state: ConvergenceState): StateValue {
  const path = nodeOf(state).path;
  const leaf = path.at(-1)!;
  return path.slice(0, -1).reduceRight<StateValue>((inner, key) => ({ [key]: inner }), leaf);
}

/** The leaf of a nested state value: the one name the log records. */
export function leafOf(value: StateValue): ConvergenceState {
  let current = value;
  while (typeof current !== 'string') current = Object.values(current)[0]!;
  return current as ConvergenceState;
}

/** The machine's snapshot for its small record: the leaf state, the context, and, while PAUSED, the history state's value. */
export function snapshotOf(record: MachineState, config: MachineInput): ConvergenceSnapshot {
  const history = nodeOf('RESUMED');
  return convergence().resolveState({
    value: nestedValue(record.state),
    context: { stallThreshold: config.stallThreshold, flatCount: record.flatCount, outcome: record.outcome },
    ...(record.pausedFrom ? { historyValue: { [history.id]: [nodeOf(record.pausedFrom)] } } : {}),
  });
}

/** The small record of a snapshot: what a round close or a decision stores. */
export function recordOf(snapshot: ConvergenceSnapshot): MachineState {
  const state = leafOf(snapshot.value);
  const resumeTo = snapshot.historyValue[nodeOf('RESUMED').id]?.[0];
  return {
    state,
    flatCount: snapshot.context.flatCount,
    outcome: snapshot.context.outcome,
    pausedFrom: state === 'PAUSED' && resumeTo ? (resumeTo.key as ResumableState) : null,
  };
}

/** A transition's guard as its name (`flatCountReachesStall`), null when unguarded. */
export function guardName(guard: unknown): string | null {
  if (typeof guard === 'string') return guard;
  if (guard && typeof guard === 'object' && 'type' in guard) return String(guard.type);
  return null;
}
