import type { EventBodyInput, GapflowEvent } from '../../events/index.js';
import { closedIndexLookUp, decodeMarkedHead, encodeHead, HEAD_ROUNDS, type ClosedIndexParts, type IndexMark, type SessionView } from '../core/index.js';
import { extendedIndex, newlyClosedLines, sameMark, withClosedGaps } from './head-decide.js';
import { checkpointsOf, FileLog, type EventStore } from '../log/index.js';
import { closedIndexFormat, headFormat } from './formats.js';
import type { BatchRequest, RequestNamer, WriteOptions } from './requests.js';
import { stamper, type Stamp } from './stamp.js';
import { decideBatch, transactBatch, type BatchRecorded, type Recorded } from './writes.js';

/*
 * Gap and round writes decided on the head, not the whole view. Deciding a
 * gap event or a round's start or close needs the open gaps, the last
 * rounds, the machine, the session's rules and the policies' records (all
 * in the head), and of the closed gaps only whether an id is taken or known
 * (the closed gaps' index answers that by lookup). So `gap`, `round` and an
 * `append` batch of them read a few kilobytes and one log line, append, and
 * write the new head, whatever the log's length. What the head cannot
 * decide goes the whole view's way: a move of a closed gap (reopening needs
 * its whole record), a split or a rename (rare, and a rename rewrites what
 * the closed gaps' index lists), any other kind of request (a decision may name closed
 * gaps; metrics and bindings are rare), a head or index that is not
 * current, or a log another writer appended to meanwhile.
 */

const ON_HEAD: readonly string[] = ['gap.opened', 'gap.moved', 'gap.severity_changed', 'round.started', 'round.closed'];

/** What a write on the head did, with the head before and after it (enough for the gap commands' own lines). */
export interface HeadRecorded extends BatchRecorded {
  before: SessionView;
  view: SessionView;
}

/** Thrown inside the store's hold when another writer appended since the head: nothing is written, the caller takes the whole view. */
class MovedOn extends Error {}

/**
 * Records gap requests on the head of `store`, as `Session.recordAll` would
 * on the whole view: the same events, refusals and retries. Returns null,
 * having written nothing, when the head cannot decide them.
 */
export function recordOnHead(
  store: EventStore,
  batch: readonly BatchRequest[] | ((head: SessionView) => readonly BatchRequest[]),
  where: RequestNamer,
  write: Pick<WriteOptions, 'expectSeq'>,
  stamp: Stamp,
): HeadRecorded | null {
  if (Array.isArray(batch) && !headDecides(batch)) return null;
  const found = checkpointsOf(store).headForWrite(headFormat(), closedIndexFormat());
  const marked = found === null ? null : decodeMarkedHead(found.head);
  if (found?.index == null || marked?.closed == null || !sameMark(marked.closed, found.index.at)) return null;
  const { view: head } = marked;
  // A request worded from the session (a round's number) is worded from the head.
  const requests = typeof batch === 'function' ? batch(head) : batch;
  if (!headDecides(requests)) return null;
  const index = found.index.parts;
  const lookUp = closedIndexLookUp(index);
  const working =
    lookUp === null
      ? null
      : withClosedGaps(
          head,
          requests.map((request) => request.body),
          lookUp,
        );
  if (working === null) return null;
  let done;
  try {
    done = transactBatch(store, head.lastSeq, requests, where, write, (fresh) => {
      if (fresh.length > 0) throw new MovedOn();
      return decideBatch(working, requests, where, store, stamp);
    });
  } catch (error) {
    if (error instanceof MovedOn) return null;
    throw error;
  }
  saveHead(store, done.view, done.appended, index, marked.closed);
  return { groups: done.groups, appended: done.appended, before: head, view: done.view };
}

function headDecides(requests: readonly BatchRequest[]): boolean {
  return requests.every((request) => ON_HEAD.includes(request.body.type));
}

/**
 * Writes the head the batch leaves, with the index it goes with: the same
 * index when no gap closed, else the index with the newly closed gaps added,
 * written first and only when the head is (a head never names an index that
 * does not hold its closed gaps; if the index cannot be written the head
 * names none).
 */
function saveHead(store: EventStore, view: SessionView, appended: readonly GapflowEvent[], index: ClosedIndexParts, mark: IndexMark): void {
  const added = newlyClosedLines(view, appended);
  const checkpoints = checkpointsOf(store);
  checkpoints.saveHead(headFormat(), view.lastSeq, () => {
    if (added === '') return encodeHead(view, HEAD_ROUNDS, mark);
    const body = extendedIndex(index, added);
    const next = body === null ? null : checkpoints.saveClosedIndex(closedIndexFormat(), view.lastSeq, body);
    return encodeHead(view, HEAD_ROUNDS, next);
  });
}

/**
 * One gap or round request (or one worded from the head: a round's number)
 * on the head of the session in `dir`, as `Session.record` would record it;
 * null when the head cannot decide it (nothing written).
 */
export function recordOnFileHead(
  dir: string,
  input: EventBodyInput | ((head: SessionView) => EventBodyInput),
  write: WriteOptions = {},
): (Recorded & { before: SessionView; view: SessionView }) | null {
  const request = (body: EventBodyInput): BatchRequest[] => [{ body, id: write.eventId }];
  const batch = typeof input === 'function' ? (head: SessionView) => request(input(head)) : request(input);
  const done = recordOnHead(new FileLog(dir), batch, null, { expectSeq: write.expectSeq }, stamper({}));
  if (done === null) return null;
  return { events: done.groups[0]!, appended: done.appended, duplicate: done.appended.length === 0, before: done.before, view: done.view };
}
