/** The convergence statechart (XState v5), for the Stately inspector, diagrams and path tests, and its one small record. */
import { convergence } from '../../machines/index.js';

export {
  CONVERGENCE_STATES,
  leafOf,
  recordOf,
  snapshotOf,
  VERDICTS,
  type ConvergenceConfig,
  type ConvergenceEvent,
  type ConvergenceMachine,
  type ConvergenceSnapshot,
  type ConvergenceState,
  type MachineInput,
  type MachineState,
  type Outcome,
  type RoundVerdict,
  type Verdict,
} from '../../machines/index.js';

/** The convergence statechart (XState v5), built. */
export const convergenceMachine = convergence();
