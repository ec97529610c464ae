export * from './convergence.js';
export { guardName, leafOf, recordOf, snapshotOf, type ConvergenceSnapshot, type MachineState } from './snapshot.js';
