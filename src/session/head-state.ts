import type { EventBodyInput, GapflowEvent } from '../../events/index.js';
import {
  closedIndexLines,
  closedIndexLookUp,
  DamagedIndex,
  decodeMarkedHead,
  encodeHead,
  extendClosedIndex,
  HEAD_ROUNDS,
  type ClosedGap,
  type ClosedIndexParts,
  type Gap,
  type IndexMark,
  type SessionView,
} from '../core/index.js';
import type { Checkpoints } from '../log/index.js';
import { closedIndexFormat, headFormat } from './formats.js';
import type { BatchRequest } from './requests.js';

/*
 * The head: how a session decides gap and round writes cheaply. Deciding a
 * gap event or a round's start or close needs the open gaps, the last
 * rounds, the machine, the session's rules and the policies' records (all
 * in the head checkpoint), and of the closed gaps only whether an id is
 * taken or known (the closed gaps' index answers that by lookup). So such a
 * write reads a few kilobytes and one log line, appends, and writes the new
 * head, whatever the log's length. What the head cannot decide goes to the
 * whole view: a move of a closed gap (reopening needs its whole record), a
 * split or a rename (rare, and a rename rewrites what the index lists), any
 * other kind of request (a decision may name closed gaps; metrics and
 * bindings are rare), a head or index that is not current, or a log another
 * writer appended to meanwhile.
 */

const ON_HEAD: readonly string[] = ['gap.opened', 'gap.moved', 'gap.severity_changed', 'round.started', 'round.closed'];

/** A current head, with the closed gaps' index it names (read in parts) and what names it. */
export interface Head {
  view: SessionView;
  index: ClosedIndexParts;
  mark: IndexMark;
}

/** The head `checkpoints` keep, when it covers the log's last line and the index it names is whole; null otherwise. */
export function loadHead(checkpoints: Checkpoints): Head | null {
  const found = checkpoints.headForWrite(headFormat(), closedIndexFormat());
  const marked = found === null ? null : decodeMarkedHead(found.head);
  if (found?.index == null || marked?.closed == null || !sameMark(marked.closed, found.index.at)) return null;
  return { view: marked.view, index: found.index.parts, mark: marked.closed };
}

/**
 * The working copy a batch is decided on, on `head`: the head with the
 * closed gaps the requests name put back; null when the head cannot decide
 * the batch (see above).
 */
export function headWorking(head: Head, requests: readonly BatchRequest[]): SessionView | null {
  if (!requests.every((request) => ON_HEAD.includes(request.body.type))) return null;
  const lookUp = closedIndexLookUp(head.index);
  return lookUp === null
    ? null
    : withClosedGaps(
        head.view,
        requests.map((request) => request.body),
        lookUp,
      );
}

/**
 * Writes the head a batch leaves, with the index it goes with: the same
 * index when no gap closed, else the index with the newly closed gaps added,
 * written first and only when the head is (a head never names an index that
 * does not hold its closed gaps; if the index cannot be written the head
 * names none).
 */
export function saveHead(checkpoints: Checkpoints, head: Head, view: SessionView, appended: readonly GapflowEvent[]): void {
  const added = newlyClosedLines(view, appended);
  checkpoints.saveHead(headFormat(), view.lastSeq, () => {
    if (added === '') return encodeHead(view, HEAD_ROUNDS, head.mark);
    const body = extendedIndex(head.index, added);
    const next = body === null ? null : checkpoints.saveClosedIndex(closedIndexFormat(), view.lastSeq, body);
    return encodeHead(view, HEAD_ROUNDS, next);
  });
}

function sameMark(a: IndexMark, b: IndexMark): boolean {
  return a.seq === b.seq && a.sum === b.sum;
}

/**
 * The head with the closed gaps the requests name put back as the index
 * (`lookUp`) knows them (id, severity, state), so the rules judge them as
 * the whole view would; null when a request moves a closed gap (a reopen
 * needs the gap whole), names as the gap it duplicates one withdrawn or
 * split (the refusal names where that one went), or the index turns out
 * damaged where it is read.
 */
function withClosedGaps(head: SessionView, bodies: readonly EventBodyInput[], lookUp: (id: string) => ClosedGap | null): SessionView | null {
  try {
    return namingClosedGaps(head, bodies, lookUp);
  } catch (error) {
    if (error instanceof DamagedIndex) return null;
    throw error;
  }
}

function namingClosedGaps(head: SessionView, bodies: readonly EventBodyInput[], lookUp: (id: string) => ClosedGap | null): SessionView | null {
  const named = new Map<string, Gap>();
  for (const body of bodies) {
    const data = (body as { data?: Record<string, unknown> }).data ?? {};
    for (const key of ['id', 'spawnedBy', 'blockedBy', 'of']) {
      const id = data[key];
      if (typeof id !== 'string' || head.gaps.has(id)) continue;
      const closed = named.get(id) ?? lookUp(id);
      if (closed === null) continue;
      // Checked for every request that names it, not only the first: a batch may name a closed gap, then move it.
      if (body.type === 'gap.moved' && key === 'id') return null;
      // A duplicate of a gap itself withdrawn or split is refused naming where that gap went, which the index does not keep.
      if (key === 'of' && (closed.state === 'DUPLICATE' || closed.state === 'SPLIT')) return null;
      named.set(id, { title: '', spawnedBy: null, blocking: false, openedInRound: 0, reason: null, blockedBy: null, ...closed });
    }
  }
  return named.size === 0 ? head : { ...head, gaps: new Map([...head.gaps, ...named]) };
}

/**
 * The index `parts` hold with `lines` added: the bytes an index write
 * takes. Reads it whole (a write that closes a gap rewrites it whole);
 * null when it can no longer be read as it was, or a bucket it changes is
 * damaged (the head then names no index, and the next write rebuilds one).
 */
function extendedIndex(parts: ClosedIndexParts, lines: string): Buffer | null {
  const body = parts.range(0, parts.bodyBytes);
  return body === null ? null : extendClosedIndex(body, lines);
}

/** The index lines for the gaps `appended` moved that end the batch closed (none was listed before: a listed gap is never moved on the head). */
function newlyClosedLines(view: SessionView, appended: readonly GapflowEvent[]): string {
  const moved = [...new Set(appended.flatMap((event) => (event.type === 'gap.moved' ? [event.data.id] : [])))];
  return closedIndexLines(moved.map((id) => view.gaps.get(id)).filter((gap): gap is Gap => gap !== undefined));
}
