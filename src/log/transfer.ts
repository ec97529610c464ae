import type { GapflowEvent } from '../../events/index.js';
import { CHAIN_START, scanBytes, type LineFault } from './lines.js';
import { linesOf, LogError, type EventStore, type SealedLines } from './types.js';

/*
 * Moving a session between stores (a JSONL folder, a database) line for
 * line: the sealed lines go across as they were written, so the copy has
 * the same bytes, the same checksums and the same figures. Both ways check
 * every line as `verify` does (the whole chain, today's schema), since a
 * read checks only the last line's checksum: a line edited in place is
 * refused here, not carried on under a fresh seal.
 */

/** What a whole check of a log's text found: its events and last checksum, or the first bad line. */
export interface CheckedLog {
  events: GapflowEvent[];
  lastSum: string;
  fault: LineFault | null;
  torn: boolean;
}

/** Checks a log's text line by line as `verify` does; never throws for a bad line. */
export function checkLogText(text: string): CheckedLog {
  const scan = scanBytes(Buffer.from(text, 'utf8'), CHAIN_START, 0, 'schema');
  return { events: scan.events, lastSum: scan.end.sum, fault: scan.fault, torn: scan.torn };
}

/** The sealed lines of a store that moves lines as they are. */
function movesLines(store: EventStore, doing: string): SealedLines {
  const lines = linesOf(store);
  if (lines === null) throw new LogError(`${store.location} keeps events, not sealed lines: it cannot ${doing}`);
  return lines;
}

/**
 * The session in `store` as JSONL bytes, every line as written, once every
 * line is checked, with how many events it holds and the last one's seq;
 * refuses a damaged log, naming the line. The events are checked as they
 * are read and let go: what it holds is the bytes it hands back (the ones it
 * checked, encoded once).
 */
export function exportLog(store: EventStore): { bytes: Buffer; count: number; lastSeq: number } {
  const bytes = Buffer.from(movesLines(store, 'export').text(), 'utf8');
  let count = 0;
  let lastSeq = 0;
  const counted = (event: GapflowEvent) => {
    count += 1;
    lastSeq = event.seq;
  };
  // A scan that starts over asks for a new sink: the count starts over with it.
  const sink = () => {
    count = 0;
    lastSeq = 0;
    return counted;
  };
  const scan = scanBytes(bytes, CHAIN_START, 0, 'schema', {}, sink);
  if (scan.fault !== null)
    throw new LogError(`${store.location} line ${scan.fault.line}: ${scan.fault.reason}; nothing was exported (\`gapflow verify\` says more)`, scan.fault.line);
  if (count === 0) throw new LogError(`${store.location} holds no event; nothing was exported`);
  return { bytes, count, lastSeq };
}

/**
 * Starts a session in `store` with a log's lines exactly as they are
 * (`source` names them in a refusal), once every line is checked; refuses
 * a damaged log, an empty one, or a store that holds a session already,
 * writing nothing.
 */
export function importLog(store: EventStore, text: string, source: string): readonly GapflowEvent[] {
  const target = movesLines(store, 'import a log');
  const checked = checkLogText(text);
  if (checked.fault !== null) throw new LogError(`${source} line ${checked.fault.line}: ${checked.fault.reason}; nothing was imported`, checked.fault.line);
  if (checked.events.length === 0) throw new LogError(`${source} holds no event; nothing was imported`);
  if (store.exists()) throw new LogError(`${store.location}: a session already lives there; import makes a new one, so nothing was imported`);
  target.create(text, checked.events);
  return checked.events;
}

/** Whether text looks like a log gapflow wrote (its first line a sealed event with `v` and `seq`), not a file of requests. */
export function looksLikeLog(text: string): boolean {
  const first = text.slice(0, text.indexOf('\n') === -1 ? text.length : text.indexOf('\n'));
  try {
    const line = JSON.parse(first) as unknown;
    return typeof line === 'object' && line !== null && 'v' in line && 'seq' in line;
  } catch {
    return false;
  }
}
