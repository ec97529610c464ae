import type { GapflowEvent } from '../../events/index.js';

/** A stored line the log could not take as an event, or a log that cannot be written now. */
export class LogError extends Error {
  override readonly name = 'LogError';

  /** @param line the log line the message names, when it names one */
  constructor(
    message: string,
    readonly line: number | null = null,
  ) {
    super(message);
  }
}

/** What a writer decides once it holds the log: the events to append (maybe none) and what to hand back. */
export interface Batch<T> {
  events: readonly GapflowEvent[];
  result: T;
}

/**
 * Where a session's events live. The log knows lines, not rules: every event
 * was checked against the session's view before it is appended, and a batch
 * is written whole (one write) or not at all.
 */
export interface EventLog {
  /** For messages: the file path, or `memory`. */
  readonly location: string;
  exists(): boolean;
  /** Every event, in order; throws LogError naming the first bad line. */
  read(): GapflowEvent[];
  /** Creates the log with its first events; refuses if it exists. */
  create(events: readonly GapflowEvent[]): void;
  /**
   * One writer at a time: holding the log, hands `step` the events appended
   * after seq `afterSeq` (by other writers), then appends the batch it
   * returns, durably, before returning its result. A throw appends nothing.
   */
  update<T>(afterSeq: number, step: (fresh: readonly GapflowEvent[]) => Batch<T>): T;
  /** Appends events that continue the log as it is (their seq must follow its last); a raw append without rules. */
  append(events: readonly GapflowEvent[]): void;
}

/** The check `append` makes: the batch continues the log's seq. */
export function continues(events: readonly GapflowEvent[], lastSeq: number, where: string): void {
  events.forEach((event, index) => {
    if (event.seq !== lastSeq + 1 + index) {
      throw new LogError(`${where}: seq ${event.seq} does not follow the log's last seq ${lastSeq + index}; nothing was written`);
    }
  });
}
