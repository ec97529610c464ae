import type { SessionSettings } from '../../events/index.js';
import { FileLog, MemoryLog } from '../log/index.js';
import type { WriteOptions } from './requests.js';
import type { SessionOptions } from './options.js';
import { Session } from './session.js';

/** A session in `<dir>/events.jsonl`, the embedded default. */
export function createFileSession(dir: string, settings: SessionSettings = {}, options?: SessionOptions, write?: WriteOptions): Session {
  return Session.create(new FileLog(dir), settings, options, write);
}

export function openFileSession(dir: string, options?: SessionOptions): Session {
  return Session.open(new FileLog(dir), options);
}

/** A session held in memory, for embedding. */
export function createMemorySession(settings: SessionSettings = {}, options?: SessionOptions): Session {
  return Session.create(new MemoryLog(), settings, options);
}
