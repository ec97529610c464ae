import { answersLoop, decodeHead, type SessionView } from '../core/index.js';
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
  return answering(checkpointsOf(store).head(headFormat()));
}

/** `peekHead` for the file log in `dir`, read without opening it as a FileLog. */
export function peekHeadIn(dir: string): SessionView | null {
  return answering(readCurrentHead(dir, headFormat()));
}

function answering(body: string | null): SessionView | null {
  const head = body === null ? null : decodeHead(body);
  return head !== null && answersLoop(head) ? head : null;
}
