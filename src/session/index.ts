export { Session } from './session.js';
export type { SessionOptions } from './options.js';
export { createFileSession, createMemorySession, openFileSession } from './embedded.js';
export { catchUp, type BatchRecorded, type Recorded } from './writes.js';
export type { SessionListener, SessionUpdate, StateChange } from './view-feed.js';
export type { DecisionOptions } from './request-bodies.js';
export { replay, verifyFileSession, verifyStoreSession, type Verification } from './replay.js';
export type { BatchRequest, RequestNamer, WriteOptions } from './requests.js';
export { recordDecided } from './record-decided.js';
export { openLoopView, peekHead } from './loop-view.js';
export { LiveActor, type ConvergenceActor, type InspectOption } from './live.js';
export {
  changeSeverityBody,
  closeRoundBody,
  moveGapBody,
  recordMetricsBody,
  openGapBody,
  renameGapBody,
  splitGapBody,
  startRoundBody,
} from './request-bodies.js';
export { stamper } from './stamp.js';
export { draftSession, importedSession, type DraftSession, type ImportedSession, type TimedRequest } from './import.js';
