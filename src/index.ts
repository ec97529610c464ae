/**
 * gapflow: tells an iterative refinement loop whether it is converging, flat,
 * stalled, diverging, paused or complete, from an append-only event log.
 */
export * from '../events/index.js';
export * from '../machines/index.js';
export * from './core/index.js';
export * from './policies/index.js';
export {
  chainSum,
  eventContent,
  FileLog,
  formatLines,
  inspectLog,
  LOG_FILE,
  LogError,
  MAX_LINE_BYTES,
  MAX_LOG_BYTES,
  MemoryLog,
  parseLines,
  repairLog,
  sealLine,
  STALE_AFTER_MS,
  type Batch,
  type EventStore,
  type Expected,
  VersionConflict,
  type LogInspection,
  type RepairReport,
} from './log/index.js';
export { escapeMarkdown, renderPrompt, renderRoundReport, renderStatus, renderSummary } from './render/index.js';
export {
  createFileSession,
  createMemorySession,
  LiveActor,
  openFileSession,
  recordDecided,
  replay,
  Session,
  verifyFileSession,
  type BatchRecorded,
  type BatchRequest,
  type ConvergenceActor,
  type DecisionOptions,
  type InspectOption,
  type Recorded,
  type SessionListener,
  type SessionOptions,
  type SessionUpdate,
  type StateChange,
  type Verification,
  type WriteOptions,
} from './session/index.js';
export { gapflowJsonSchemaText } from './schema.js';
