export {
  createFileSession,
  createMemorySession,
  openFileSession,
  Session,
  type BatchRecorded,
  type DecisionOptions,
  type Recorded,
  type SessionListener,
  type SessionOptions,
  type SessionUpdate,
  type StateChange,
} from './session.js';
export { replay, verifyFileSession, type Verification } from './replay.js';
export type { BatchRequest, WriteOptions } from './requests.js';
export { recordDecided } from './record-decided.js';
export { LiveActor, type ConvergenceActor, type InspectOption } from './live.js';
