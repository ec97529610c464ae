import type { SessionView } from '../core/index.js';
import { peekHead } from './head.js';
import { FileLog, type EventStore } from '../log/index.js';
import type { SessionOptions } from './options.js';
import { Session } from './session.js';

export { peekHead, readHead, readHeadSummary } from './head.js';

/**
 * A view that answers the loop's questions (loopStep, hookStep, the decision
 * prompt) for the session in `at` (a folder, or a store such as a database
 * session): its head when the head checkpoint is current, else the whole
 * view, opened as `Session.open` opens it (which writes the head for the
 * next call). Never rendered whole: for status.md, the state JSON or a
 * write, open the session.
 */
export function openLoopView(at: string | EventStore, options: SessionOptions = {}): SessionView {
  const store = typeof at === 'string' ? new FileLog(at) : at;
  const head = options.checkpoints === false || options.inspect ? null : peekHead(store);
  return head ?? Session.open(store, options).view;
}
