import type { GapState, Severity } from '../../events/index.js';
import { STATE_CLASS } from './rules.js';
import type { Gap, SessionView } from './view.js';

/*
 * The closed gaps' index: what the head leaves out of the inventory, kept
 * as one `ID SEVERITY STATE` line per gap in a closed state. A write decided
 * on the head asks it two things only: is this id taken (a new gap's), and
 * is that gap known (a spawned-by or blocked-by gap). Looking one id up is a
 * search of the index's bytes as read (never decoded to a string: on a
 * million-event log the index is 7 MiB), so a write never parses thousands
 * of closed gaps to name one. Gap ids hold no space or newline (GAP_ID_PATTERN), so a line is
 * found by its id alone.
 */

/** A closed gap as the index knows it: enough to refuse a reused id or accept a reference, not to reopen it. */
export type ClosedGap = Pick<Gap, 'id' | 'severity' | 'state'>;

/** The index lines for `gaps`, keeping the closed ones. */
export function closedIndexLines(gaps: Iterable<Gap>): string {
  let text = '';
  for (const gap of gaps) if (STATE_CLASS[gap.state] === 'closed') text += `${gap.id} ${gap.severity} ${gap.state}\n`;
  return text;
}

/** The whole index of `view`. */
export function encodeClosedIndex(view: SessionView): string {
  return closedIndexLines(view.gaps.values());
}

/** The gap `id` as `index` (the index's UTF-8 bytes) lists it; null when it is not there. */
export function lookUpClosed(index: Buffer, id: string): ClosedGap | null {
  // An id with a space or a newline is no gap id (the schema refuses it): it must not match part of a line.
  if (id === '' || /\s/.test(id)) return null;
  const first = Buffer.from(`${id} `, 'utf8');
  let at = 0;
  if (!index.subarray(0, first.length).equals(first)) {
    const newline = index.indexOf(`\n${id} `, 0, 'utf8');
    if (newline === -1) return null;
    at = newline + 1;
  }
  const end = index.indexOf(0x0a, at);
  const [, severity, state] = index.toString('utf8', at, end === -1 ? undefined : end).split(' ');
  return { id, severity: severity as Severity, state: state as GapState };
}
