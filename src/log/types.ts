import type { GapflowEvent } from '../../events/index.js';

/** A stored line the log could not take as an event. */
export class LogError extends Error {
  override readonly name = 'LogError';
}

/**
 * Where a session's events live. The log knows lines, not rules: every event
 * was checked against the session's view before `append` is called, and
 * `append` writes a whole batch or nothing.
 */
export interface EventLog {
  /** For messages: the file path, or `memory`. */
  readonly location: string;
  exists(): boolean;
  /** Every event, in order; throws LogError naming the first bad line. */
  read(): GapflowEvent[];
  /** Creates the log with its first events; refuses if it exists. */
  create(events: readonly GapflowEvent[]): void;
  /** Appends a batch atomically (one write). */
  append(events: readonly GapflowEvent[]): void;
}
