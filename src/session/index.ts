export {
  Session,
  type BatchRecorded,
  type Recorded,
} from './session.js';
export type { SessionListener, SessionUpdate, StateChange } from './view-feed.js';
export type { SessionOptions } from './options.js';
export { createFileSession, createMemorySession, openFileSession } from './embedded.js';
export { replay, verifyFileSession, type Verification } from './replay.js';
export type { BatchRequest, WriteOptions } from './requests.js';
export type { DecisionOptions } from './request-bodies.js';
export { LiveActor, type ConvergenceActor, type InspectOption } from './live.js';
