/**
 * gapflow: tells an iterative refinement loop whether it is converging, flat,
 * stalled, diverging, paused or complete, from an append-only event log.
 *
 * What an embedding mediator needs, and nothing else (docs/api.md): sessions
 * and the stores under them at the top level, with the read model and what
 * a refusal says; the renderers, the policies, the machine and the event
 * vocabulary each in its namespace.
 */

// Sessions: record gap events, rounds, metrics and decisions; read the view; hear of changes.
export {
  createFileSession,
  createMemorySession,
  importedSession,
  LiveActor,
  openFileSession,
  parseBody,
  recordDecided,
  replay,
  Session,
  verifyFileSession,
  verifyStoreSession,
  type BatchRecorded,
  type BatchRequest,
  type DecisionOptions,
  type ImportedSession,
  type InspectOption,
  type Recorded,
  type SessionListener,
  type SessionOptions,
  type SessionUpdate,
  type StateChange,
  type SyncSnapshot,
  type TimedRequest,
  type Verification,
  type WriteOptions,
} from './session/index.js';

// Findings from tools: a SARIF, JUnit or JSON text read as one source's snapshot, for `session.sync` (docs/sync.md).
export {
  readFindingsJson,
  readJunit,
  readSarif,
  SyncInputError,
  type Finding,
  type ReadOptions,
  type SeverityOverrides,
  type Snapshot,
} from './sync/index.js';

// Stores: where the events live. A JSONL file is the embedded default; memory for tests and embedding.
export {
  checkpointsOf,
  closePostgresStores,
  FileLog,
  linesOf,
  LogError,
  MemoryLog,
  OutcomeUnknown,
  PgLog,
  VersionConflict,
  type Batch,
  type Checkpoints,
  type EventStore,
  type Expected,
  type SealedLines,
} from './log/index.js';

// The core as a Decider (decide refuses or returns events; evolve folds one in), the read model, and the loop's answers.
export {
  decide,
  evolve,
  formatCount,
  hookDecision,
  hookStep,
  initialView,
  loopStep,
  nextStep,
  Refusal,
  SEVERITIES,
  SEVERITY_WEIGHT,
  standingStopRequest,
  type Gap,
  type HistoryEntry,
  type HookCall,
  type HookContext,
  type HookStep,
  type HookDecision,
  type LoopStep,
  type NextAction,
  type Remedy,
  type RoundFigures,
  type SessionView,
  type StopRequest,
} from './core/index.js';

// The words a session is recorded in.
export type { DecisionKind, GapflowEvent, GapState, SessionSettings, Severity } from '../events/index.js';
export type { ConvergenceState, Outcome, Verdict } from '../machines/index.js';

export { events, machine, policies, render } from './api/index.js';
