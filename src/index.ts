/**
 * gapflow: tells an iterative refinement loop whether it is converging, flat,
 * stalled, diverging, paused or complete, from an append-only event log.
 */
export * from '../events/index.js';
export * from '../machines/index.js';
export * from './core/index.js';
export * from './policies/index.js';
export { FileLog, LogError, MemoryLog, LOG_FILE, parseLines, toLine, type EventLog } from './log/index.js';
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
} from './session.js';
export { LiveActor, type ConvergenceActor, type InspectOption } from './live.js';
