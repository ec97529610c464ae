/** The convergence statechart (XState v5), for the Stately inspector, diagrams and path tests, and its one small record. */
export {
  CONVERGENCE_STATES,
  convergenceMachine,
  leafOf,
  recordOf,
  snapshotOf,
  VERDICTS,
  type ConvergenceConfig,
  type ConvergenceEvent,
  type ConvergenceSnapshot,
  type ConvergenceState,
  type MachineInput,
  type MachineState,
  type Outcome,
  type RoundVerdict,
  type Verdict,
} from '../../machines/index.js';
