import { decodeHead, type SessionView } from '../core/index.js';
import { headFormat } from './formats.js';
import { FileLog, type EventStore } from '../log/index.js';
import type { SessionOptions } from './options.js';
import { Session } from './session.js';

/**
 * The head of the session in `store` (what `next` and a stop hook ask of
 * it) when its head checkpoint covers the log's last line; null otherwise.
 * It reads the head and one line of the log, whatever the log's length.
 */
export function peekHead(store: EventStore): SessionView | null {
  const body = store.resumeHead?.(headFormat()) ?? null;
  return body === null ? null : decodeHead(body);
}

/**
 * A view that answers the loop's questions (loopStep, hookStep, the decision
 * prompt) for the session in `dir`: its head when the head checkpoint is
 * current, else the whole view, opened as `openFileSession` opens it (which
 * writes the head for the next call). Never rendered whole: for status.md,
 * the state JSON or a write, open the session.
 */
export function openLoopView(dir: string, options: SessionOptions = {}): SessionView {
  const store = new FileLog(dir);
  const head = options.checkpoints === false || options.inspect ? null : peekHead(store);
  return head ?? Session.open(store, options).view;
}
