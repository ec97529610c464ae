import type { EventBodyInput, GapflowEvent } from '../../events/index.js';
import { closedIndexLines, decodeMarkedHead, encodeHead, HEAD_ROUNDS, lookUpClosed, type Gap, type IndexMark, type SessionView } from '../core/index.js';
import { FileLog, type EventStore } from '../log/index.js';
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
 * its whole record), any other kind of request (a decision may name closed
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
  const found = store.resumeForWrite?.(headFormat(), closedIndexFormat()) ?? null;
  const marked = found === null ? null : decodeMarkedHead(found.head);
  if (found?.index == null || marked?.closed == null || !sameMark(marked.closed, found.index.at)) return null;
  const { view: head } = marked;
  // A request worded from the session (a round's number) is worded from the head.
  const requests = typeof batch === 'function' ? batch(head) : batch;
  if (!headDecides(requests)) return null;
  const index = found.index.body;
  const working = withClosedGaps(head, requests, index);
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

function sameMark(a: IndexMark, b: IndexMark): boolean {
  return a.seq === b.seq && a.sum === b.sum;
}

/**
 * The head with the closed gaps the requests name put back as the index
 * knows them (id, severity, state), so the rules judge them as the whole
 * view would; null when a request moves a closed gap (a reopen needs the
 * gap whole).
 */
function withClosedGaps(head: SessionView, requests: readonly BatchRequest[], index: string): SessionView | null {
  const named = new Map<string, Gap>();
  for (const { body } of requests) {
    const data = (body as { data?: Record<string, unknown> }).data ?? {};
    for (const key of ['id', 'spawnedBy', 'blockedBy']) {
      const id = data[key];
      if (typeof id !== 'string' || head.gaps.has(id)) continue;
      const closed = named.get(id) ?? lookUpClosed(index, id);
      if (closed === null) continue;
      // Checked for every request that names it, not only the first: a batch may name a closed gap, then move it.
      if (body.type === 'gap.moved' && key === 'id') return null;
      named.set(id, { title: '', spawnedBy: null, blocking: false, openedInRound: 0, reason: null, blockedBy: null, ...closed });
    }
  }
  return named.size === 0 ? head : { ...head, gaps: new Map([...head.gaps, ...named]) };
}

/**
 * Writes the head the batch leaves, with the index it goes with: the same
 * index when no gap closed, else the index with the newly closed gaps added,
 * written first and only when the head is (a head never names an index that
 * does not hold its closed gaps; if the index cannot be written the head
 * names none).
 */
function saveHead(store: EventStore, view: SessionView, appended: readonly GapflowEvent[], index: string, mark: IndexMark): void {
  // Gaps the batch moved that end it closed: none was listed before (a listed gap is never moved here: see withClosedGaps).
  const closedNow = [...new Set(appended.flatMap((event) => (event.type === 'gap.moved' ? [event.data.id] : [])))]
    .map((id) => view.gaps.get(id))
    .filter((gap): gap is Gap => gap !== undefined);
  const added = closedIndexLines(closedNow);
  store.saveHead?.(headFormat(), view.lastSeq, () => {
    const next = added === '' ? mark : (store.saveClosedIndex?.(closedIndexFormat(), view.lastSeq, index + added) ?? null);
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
