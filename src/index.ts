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
  type EventLog,
  type LogInspection,
  type RepairReport,
} from './log/index.js';
export { escapeMarkdown, renderPrompt, renderRoundReport, renderStatus, renderSummary } from './render/index.js';
export {
  createFileSession,
  createMemorySession,
  openFileSession,
  replay,
  Session,
  type BatchRequest,
  type DecisionOptions,
  type SessionOptions,
  type StateChange,
  type StateListener,
  type Verification,
  verifyFileSession,
  type WriteOptions,
} from './session.js';
export { LiveActor, type ConvergenceActor, type InspectOption } from './live.js';
export { gapflowJsonSchemaText } from './schema.js';
