export { Session } from './session.js';
export type { SessionOptions } from './options.js';
export { createFileSession, createMemorySession, openFileSession } from './embedded.js';
export type { BatchRecorded, Recorded } from './writes.js';
export type { SessionListener, SessionUpdate, StateChange } from './view-feed.js';
export type { DecisionOptions } from './request-bodies.js';
export { replay, verifyFileSession, type Verification } from './replay.js';
export type { BatchRequest, WriteOptions } from './requests.js';
export { LiveActor, type ConvergenceActor, type InspectOption } from './live.js';
