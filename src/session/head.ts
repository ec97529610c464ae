import { answersLoop, decodeHead, decodeHeadSummary, type SessionSummary, type SessionView } from '../core/index.js';
import { checkpointsOf, readCurrentHead, type EventStore } from '../log/index.js';
import { headFormat } from './state.js';

/*
 * The head checkpoint as a view, for the loop's questions (`next`, a stop
 * hook). Loads no schema, statechart or immer: a head that is current
 * answers them without the session, whose modules cost more to load than
 * the head costs to read.
 */

/**
 * The head of the session in `store` (what `next` and a stop hook ask of
 * it) when its head checkpoint covers the log's last line and answers the
 * loop's questions (a head that leaves gaps out does not while a decision is
 * due: the options list them); null otherwise. It reads the head and one
 * line of the log, whatever the log's length.
 */
export function peekHead(store: EventStore): SessionView | null {
  return answering(readHead(store));
}

/** The head of the session in `store` when its head checkpoint covers the log's last line, whether or not it answers the loop (its settings, its machine); null otherwise. */
export function readHead(store: EventStore): SessionView | null {
  const body = checkpointsOf(store).head(headFormat());
  return body === null ? null : decodeHead(body);
}

/** The summary in front of the head checkpoint of the session in `store` (its view not parsed), when the head covers the log's last line; null otherwise. */
export function readHeadSummary(store: EventStore): SessionSummary | null {
  const body = checkpointsOf(store).head(headFormat());
  return body === null ? null : decodeHeadSummary(body);
}

/** `peekHead` for the file log in `dir`, read without opening it as a FileLog. */
export function peekHeadIn(dir: string): SessionView | null {
  const body = readCurrentHead(dir, headFormat());
  return answering(body === null ? null : decodeHead(body));
}

function answering(head: SessionView | null): SessionView | null {
  return head !== null && answersLoop(head) ? head : null;
}
