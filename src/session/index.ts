export { Session, createFileSession, createMemorySession, openFileSession } from './session.js';
export type { SessionOptions } from './options.js';
export {
  catchUp,
  changeSeverityBody,
  closeRoundBody,
  moveGapBody,
  openGapBody,
  parseBody,
  recordMetricsBody,
  renameGapBody,
  splitGapBody,
  stamper,
  startRoundBody,
  syncBody,
  type SyncSnapshot,
  type BatchRecorded,
  type BatchRequest,
  type DecisionOptions,
  type Recorded,
  type RequestNamer,
  type WriteOptions,
} from './writes.js';
export {
  closedIndexFormat,
  replay,
  storedView,
  verifyFileSession,
  verifyStoreSession,
  viewFormat,
  type SessionListener,
  type SessionUpdate,
  type StateChange,
  type Verification,
} from './state.js';
export { recordDecided } from './record-decided.js';
export { openLoopView, peekHead, readHead, readHeadSummary } from './loop-view.js';
export { LiveActor, type ConvergenceActor, type InspectOption } from './live.js';
export { draftSession, importedSession, type DraftSession, type ImportedSession, type TimedRequest } from './import.js';
