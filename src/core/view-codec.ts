import type { GapState, Severity } from '../../events/index.js';
import type { ConvergenceState } from '../../machines/index.js';
import { LISTED_GAPS, SEVERITIES, STATE_CLASS } from './rules.js';
import type { Gap, GapsLeftOut, ListFrontier, MetricsRecord, RoundFigures, SessionSummary, SessionView } from './view.js';
import type { ForecastReason } from './read-model.js';
import { policyRulesNamed } from '../policies/index.js';

/*
 * The view as the checkpoints keep it: whole (what replay leaves), its head
 * (what the loop's questions and a gap write read), and the closed gaps'
 * index the head goes with; and what those need besides: a CRC-32, deep
 * freezing for the views handed out, and a round's opening figures (every
 * round the fold opens is made of them). One module, because every write
 * decided on the head runs all of it; nothing here loads immer, a schema or
 * the statechart.
 */

// The whole view.

/**
 * The view as a checkpoint stores it: plain JSON, its Maps as arrays. A
 * checkpoint is a cache of replay, never a source of truth: the store keys
 * it by the log line it covers, and whatever does not decode here is
 * dropped and rebuilt from the log.
 *
 * The format (viewFormat, src/session/state.ts) names this shape and the version of
 * gapflow that folded the view. Bump VIEW_SHAPE when SessionView changes
 * shape between releases' builds.
 *
 * `roundsBefore` and `gapsLeftOut` are not stored: they are 0 in every
 * whole view, and a head's checkpoint (encodeHead) carries them beside the
 * view it stores.
 */
export const VIEW_SHAPE = 'view-8';

interface StoredView extends Omit<SessionView, 'gaps' | 'policies' | 'roundsBefore' | 'gapsLeftOut'> {
  gaps: Gap[];
  /** Only in a head that leaves gaps out. */
  gapsLeftOut?: GapsLeftOut;
  policies: Omit<SessionView['policies'], 'settings' | 'records'> & {
    settings: [string, unknown][];
    records: [string, MetricsRecord[]][];
  };
}

/** The view as one JSON text. */
export function encodeView(view: SessionView): string {
  const { roundsBefore: _before, gapsLeftOut, ...kept } = view;
  const stored: StoredView = {
    ...kept,
    ...(leavesGapsOut(view) ? { gapsLeftOut } : {}),
    gaps: [...view.gaps.values()],
    policies: { ...view.policies, settings: [...view.policies.settings], records: [...view.policies.records] },
  };
  return JSON.stringify(stored);
}

/** What encodeView writes for a gap besides its id and title (its keys, states and figures): fewer characters than any gap takes. */
const GAP_TEXT_AT_LEAST = 120;

/**
 * At least how many bytes `encodeView(view)` runs to, counted from its gaps
 * alone (their ids and titles, and what each gap's entry takes besides), in
 * the time a walk over the gaps takes: a store judges from it whether a
 * checkpoint of the view pays before it encodes one.
 */
export function viewBytesAtLeast(view: Pick<SessionView, 'gaps'>): number {
  let total = 0;
  for (const gap of view.gaps.values()) total += gap.id.length + gap.title.length + GAP_TEXT_AT_LEAST;
  return total;
}

/**
 * The view a checkpoint's text holds, as plain objects (unfrozen: see
 * decodeView for the view replay leaves, and decodeHead for the head);
 * null when the text is not a view this build wrote (the caller then replays
 * the log).
 */
export function readView(text: string): SessionView | null {
  let stored: unknown;
  try {
    stored = JSON.parse(text);
  } catch {
    return null;
  }
  if (!looksStored(stored)) return null;
  const view: SessionView = {
    ...stored,
    roundsBefore: 0,
    gapsLeftOut: stored.gapsLeftOut ?? NOTHING_LEFT_OUT,
    gaps: new Map(stored.gaps.map((gap) => [gap.id, gap])),
    policies: { ...stored.policies, settings: new Map(stored.policies.settings), records: new Map(stored.policies.records) },
  };
  return view;
}

/**
 * The shape checks that keep a damaged cache from reaching the fold: the
 * containers are what the view needs, and every policy it enables is one
 * this build has (a policy it lacks would fail the first read that asks
 * it). The store has already checked the text's checksum, so this guards
 * against a checkpoint written by another build under the same format, not
 * against edits.
 */
function looksStored(value: unknown): value is StoredView {
  if (!isObject(value)) return false;
  const { gaps, rounds, weightedOpenEnds, history, decisions, focus, renames, machine, policies, open, lastSeq, lastAt, warningsRaised, sources, gapsLeftOut } =
    value;
  return (
    (gapsLeftOut === undefined || looksLeftOut(gapsLeftOut)) &&
    Array.isArray(gaps) &&
    gaps.every((gap) => isObject(gap) && typeof gap.id === 'string') &&
    [rounds, weightedOpenEnds, history, decisions, focus, renames, sources].every(Array.isArray) &&
    isObject(machine) &&
    isObject(open) &&
    Number.isSafeInteger(lastSeq) &&
    (lastAt === null || typeof lastAt === 'string') &&
    Number.isSafeInteger(warningsRaised) &&
    isObject(policies) &&
    Array.isArray(policies.enabled) &&
    policies.enabled.every((name) => typeof name === 'string' && policyRulesNamed(name) !== undefined) &&
    Array.isArray(policies.settings) &&
    Array.isArray(policies.records)
  );
}

function looksLeftOut(value: unknown): boolean {
  if (!isObject(value)) return false;
  const frontier = (f: unknown) =>
    f === null || (isObject(f) && SEVERITIES.includes(f.severity as Severity) && Array.isArray(f.before) && f.before.every((id) => typeof id === 'string'));
  return Number.isSafeInteger(value.open) && Number.isSafeInteger(value.parked) && frontier(value.unfinished) && frontier(value.openList);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The view a checkpoint's text holds, frozen as replay leaves it (so the
 * fold goes on from it as from its own output); null
 * when the text is not a view this build wrote (the caller then replays the
 * log). The text's format is encodeView's.
 */
export function decodeView(text: string): SessionView | null {
  const view = readView(text);
  return view === null ? null : freezeNew(view);
}

// The head.

/*
 * The head of a view: what the loop's questions read (`next`, a stop hook:
 * loopStep, hookStep, the decision prompt) and a gap write is decided on,
 * cut from the whole view so a hook reads kilobytes, not the session's
 * history or its inventory. It keeps the settings, thresholds, counts,
 * machine, focus, baseline, binding and policies whole; the decisions; the
 * last rounds whole (the ones before are counted in `roundsBefore`, not
 * kept, so what a write folds and a question reads does not grow with the
 * session); the history from the round before the last closed one on; and
 * the gaps not closed, when there are at most `whole` of them
 * (HEAD_WHOLE_GAPS).
 *
 * A larger inventory (a scanner's findings run to tens of thousands) is cut
 * too: the head keeps the first 2 x `listed` gaps not closed and the first
 * 2 x `listed` open ones, in the list's order (most severe first, then as
 * recorded: what `next --json` lists and a stop hook shows the top of, with
 * as many again in reserve), and every gap the loop names wherever it
 * stands (reopened ones, for ping-pong; claims a tool disputes). It counts
 * the rest and says where its part of each list ends (`gapsLeftOut`), and
 * keeps its rounds' figures without their lists of gaps, which only a
 * round's close and the decision prompt read. The gaps it leaves out are
 * listed in the index that goes with it (with the closed ones), so a write
 * decided on it finds any gap by lookup.
 *
 * Such a head answers the loop's questions as the whole view does while its
 * part of each list holds the first `listed` (`headIsExact`) and no decision
 * is due (`answersLoop`); test/core/view-head.test.ts holds it to that on
 * random sessions. A write on it keeps what it keeps (a head is never cut
 * again from a head: what it left out it cannot see), and leaves a new gap
 * out when it falls past the head's part of the list.
 *
 * Nothing here loads immer, a schema or the statechart: `next` and a stop
 * hook read the head on every turn of an agent's loop, and their start-up
 * is most of their time.
 */

/** How many of the last rounds the head keeps whole: the open one, the last closed one and the one before. */
export const HEAD_ROUNDS = 3;

/**
 * How many gaps not closed a head keeps whole: up to this many it keeps
 * every one, and decides every gap and round write as before; past it, the
 * first 2 x `listed` of each list. A round close is not decided on a head
 * that leaves gaps out (its verdict reads the round's lists), so the
 * inventory a loop works through by hand (hundreds of gaps) keeps its writes
 * on the head, and a scanner's (thousands and more) keeps its head small.
 */
export const HEAD_WHOLE_GAPS = 500;

/** A view that leaves no gap out (every whole view). */
export const NOTHING_LEFT_OUT: GapsLeftOut = Object.freeze({ open: 0, parked: 0, unfinished: null, openList: null });

/** The head of `view`, keeping its last `keep` rounds whole (at least 2: the open round and the last closed one) and, of a larger inventory, the first gaps of each list (twice `listed`). */
export function headOf(view: SessionView, keep = HEAD_ROUNDS, listed = LISTED_GAPS, whole = HEAD_WHOLE_GAPS): SessionView {
  return cutHead(view, keep, listed, whole).head;
}

/** Whether `view` leaves gaps not closed out (a head cut from a large inventory). */
export function leavesGapsOut(view: Pick<SessionView, 'gapsLeftOut'>): boolean {
  return view.gapsLeftOut.open + view.gapsLeftOut.parked > 0;
}

/**
 * Whether a head's part of each list still holds the first `listed` gaps
 * of it (a write on the head may have closed or parked some of them): the
 * gaps of the list more severe than where the part ends, all kept, and
 * those of that severity recorded before it, as they stand now.
 */
export function headIsExact(view: Pick<SessionView, 'gaps' | 'gapsLeftOut'>, listed = LISTED_GAPS): boolean {
  const { unfinished, openList } = view.gapsLeftOut;
  return (
    holds(view, unfinished, (gap) => STATE_CLASS[gap.state] !== 'closed', listed) && holds(view, openList, (gap) => STATE_CLASS[gap.state] === 'open', listed)
  );
}

function holds(view: Pick<SessionView, 'gaps'>, frontier: ListFrontier | null, inList: (gap: Gap) => boolean, listed: number): boolean {
  if (frontier === null) return true;
  const rank = SEVERITIES.indexOf(frontier.severity);
  let count = 0;
  for (const gap of view.gaps.values()) if (inList(gap) && SEVERITIES.indexOf(gap.severity) < rank) count += 1;
  for (const id of frontier.before) {
    const gap = view.gaps.get(id);
    if (gap !== undefined && inList(gap) && gap.severity === frontier.severity) count += 1;
  }
  return count >= listed;
}

/**
 * Whether `view` answers the loop's questions (`next`, a stop hook) as the
 * whole view would: it leaves no gap out, or its part of each list holds
 * the first ones and no decision is due (the options and the prompt read
 * every gap not closed and the last round's lists).
 */
export function answersLoop(view: Pick<SessionView, 'gaps' | 'gapsLeftOut' | 'machine'>): boolean {
  return !leavesGapsOut(view) || (view.machine.state !== 'DIVERGENCE_WARNING' && headIsExact(view));
}

/**
 * Whether a gap opened now on `head` falls past its part of the lists (it
 * is recorded last, so it comes after every gap of its severity): when the
 * open list leaves a gap out at its severity or a more severe one. Such a
 * gap is left out of the head and listed in its index instead.
 */
export function fallsPastHead(head: Pick<SessionView, 'gapsLeftOut'>, severity: Severity): boolean {
  const frontier = head.gapsLeftOut.openList;
  return frontier !== null && SEVERITIES.indexOf(severity) >= SEVERITIES.indexOf(frontier.severity);
}

/** Names the index a head goes with (the seq and checksum of the event it was written at). */
export interface IndexMark {
  seq: number;
  sum: string;
}

/** A head cut from a view, and the gaps not closed it left out (the index lists them, with the closed ones). */
export interface CutHead {
  head: SessionView;
  leftOut: Gap[];
}

/**
 * The head of `view` (see above), and the gaps not closed the cut left out
 * now: every one a whole view's cut leaves out; none for a head that
 * already leaves gaps out (it keeps what it keeps, whose left-out ones are
 * in its index already).
 */
export function cutHead(view: SessionView, keep = HEAD_ROUNDS, listed = LISTED_GAPS, whole = HEAD_WHOLE_GAPS): CutHead {
  const rounds = view.rounds.slice(-Math.max(2, keep));
  const firstKept = rounds[0]?.round ?? 0;
  // The round whose close the prompt and the stop request speak of, and the one before it.
  const lastClosed = view.rounds.findLast((r) => r.openEnd !== null)?.round ?? 0;
  const since = Math.min(firstKept, lastClosed - 1);
  // History: from its first entry of round `since` or later, to the end (a hand-made log may number a later entry
  // lower; keeping everything after that first one keeps a superset). Decisions are few: all kept (whether a
  // standing stop request was answered is asked of every decision made after its round).
  const first = view.history.findIndex((entry) => entry.round >= since);
  const roundsBefore = view.roundsBefore + view.rounds.length - rounds.length;
  const history = first === -1 ? [] : view.history.slice(first);
  const kept = keptGaps(view, 2 * listed, whole);
  const cut = { ...view, gaps: kept.gaps, gapsLeftOut: kept.gapsLeftOut, roundsBefore, history };
  return { head: { ...cut, rounds: leavesGapsOut(cut) ? rounds.map(withoutLists) : rounds }, leftOut: kept.leftOut };
}

/*
 * The head checkpoint's text: the head, the index it names, and its summary
 * (what a fleet row shows), in front, so a reader of many sessions (the
 * fleet) parses a few hundred bytes of each, not its head.
 */

/** `encodeHead` (read-model.ts) for a head `cutHead` made, with its summary (`summaryOf`). */
export function encodeCutHead(head: SessionView, closed: IndexMark | null, summary: SessionSummary): string {
  return `{"roundsBefore":${head.roundsBefore},"closed":${JSON.stringify(closed)},"summary":${JSON.stringify(summary)},"view":${encodeView(head)}}`;
}

const PREFIX = /^\{"roundsBefore":(\d+),"closed":(null|\{"seq":(\d+),"sum":"([0-9A-Za-z_-]+)"\}),"summary":/;
/** Where the summary ends: JSON.stringify escapes every quote inside a string, so this is found nowhere in the summary. */
const VIEW_KEY = ',"view":';

/** The parts of a head's text: its prefix's figures and where the summary and the view lie; null when it is not a head this build wrote. */
function headParts(text: string): { prefix: RegExpExecArray; summaryEnd: number } | null {
  const prefix = PREFIX.exec(text);
  if (prefix === null || !text.endsWith('}')) return null;
  const summaryEnd = text.indexOf(VIEW_KEY, prefix[0].length);
  return summaryEnd === -1 ? null : { prefix, summaryEnd };
}

/**
 * The head a checkpoint's text holds, frozen (unless `frozen` is false: a
 * reader that only reads it and lets it go need not pay for the walk); null
 * when it is not one this build wrote.
 */
export function decodeHead(text: string, frozen = true): SessionView | null {
  return decodeMarkedHead(text, frozen)?.view ?? null;
}

/** The head a checkpoint's text holds, and the index it names; null when it is not one this build wrote. */
export function decodeMarkedHead(text: string, frozen = true): { view: SessionView; closed: IndexMark | null } | null {
  const parts = headParts(text);
  if (parts === null) return null;
  const view = readView(text.slice(parts.summaryEnd + VIEW_KEY.length, -1));
  if (view === null) return null;
  const { prefix } = parts;
  const closed = prefix[2] === 'null' ? null : { seq: Number(prefix[3]), sum: prefix[4]! };
  view.roundsBefore = Number(prefix[1]);
  return { view: frozen ? freezeNew(view) : view, closed };
}

/** The summary a head checkpoint's text holds, read without its view; null when it is not a head this build wrote, or the summary is not one. */
export function decodeHeadSummary(text: string): SessionSummary | null {
  const parts = headParts(text);
  if (parts === null) return null;
  let summary: unknown;
  try {
    summary = JSON.parse(text.slice(parts.prefix[0].length, parts.summaryEnd));
  } catch {
    return null;
  }
  return looksSummary(summary) ? summary : null;
}

/** The machine's states, written out here: the vocabulary's list comes with its schema library, which a head's reader does not load (test/core/view-head.test.ts holds the two lists equal). */
export const SUMMARY_STATES: readonly string[] = [
  'CONVERGING',
  'FLAT',
  'STALLED',
  'DIVERGENCE_WARNING',
  'PAUSED',
  'COMPLETE',
] satisfies readonly ConvergenceState[];
const FORECAST_REASONS: readonly string[] = ['declining', 'too_few_rounds', 'no_downward_trend', 'already_done'] satisfies readonly ForecastReason[];
const count = (value: unknown) => Number.isSafeInteger(value) && (value as number) >= 0;
/** The open counts: a gap in some states counts in part (CLASS_FACTOR). */
const amount = (value: unknown) => typeof value === 'number' && Number.isFinite(value) && value >= 0;
const textOrNull = (value: unknown) => value === null || typeof value === 'string';
const rangeOrNull = (value: unknown) => value === null || (isObject(value) && count(value.low) && count(value.high));
/** An event's `at`: an ISO 8601 time, as the event schema takes it. */
const ISO_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d(:?\d\d)?)$/;
const timeOrNull = (value: unknown) => value === null || (typeof value === 'string' && ISO_TIME.test(value));

/** A forecast as forecast() makes one (read-model.ts): a reason it gives, its ranges, window, slope and words. */
function looksForecast(value: unknown): boolean {
  return (
    value === null ||
    (isObject(value) &&
      FORECAST_REASONS.includes(value.reason as string) &&
      rangeOrNull(value.rounds) &&
      rangeOrNull(value.finish) &&
      count(value.window) &&
      (value.slope === null || (typeof value.slope === 'number' && Number.isFinite(value.slope))) &&
      typeof value.detail === 'string')
  );
}

/**
 * A summary's shape, checked as a view's is (looksStored): the store has
 * checked the text's checksum, so this guards against a head another build
 * wrote under the same format, and keeps what a dashboard shows to the
 * types it shows.
 */
function looksSummary(value: unknown): value is SessionSummary {
  if (typeof value !== 'object' || value === null) return false;
  const s = value as Record<string, unknown>;
  return (
    SUMMARY_STATES.includes(s.state as string) &&
    textOrNull(s.outcome) &&
    count(s.round) &&
    typeof s.roundOpen === 'boolean' &&
    amount(s.open) &&
    amount(s.weightedOpen) &&
    textOrNull(s.lastReason) &&
    looksForecast(s.forecast) &&
    count(s.warnings) &&
    count(s.eventCount) &&
    timeOrNull(s.lastEventAt)
  );
}

/**
 * The gaps a head keeps, and what it leaves out. The loop's questions look
 * at gaps still open or parked, never at closed ones. Of more than `kept`
 * of them, the first `kept` in the list's order, the first `kept` open
 * ones, and the ones reopened or disputed (ping-pong and claims name them
 * wherever they stand), in the view's order; the rest are counted, and
 * where the head's part of each list ends is noted. A view that already
 * leaves gaps out (a head written to) keeps all it has: it cannot see
 * what it left out, so it cannot cut again.
 */
function keptGaps(view: SessionView, kept: number, whole: number): { gaps: Map<string, Gap>; gapsLeftOut: GapsLeftOut; leftOut: Gap[] } {
  const unfinished = [...view.gaps.values()].filter((gap) => STATE_CLASS[gap.state] !== 'closed');
  const all = new Map(unfinished.map((gap) => [gap.id, gap]));
  if (leavesGapsOut(view)) {
    const still = (frontier: ListFrontier | null) => frontier && { ...frontier, before: frontier.before.filter((id) => all.has(id)) };
    const { unfinished: listed, openList } = view.gapsLeftOut;
    return { gaps: all, gapsLeftOut: { ...view.gapsLeftOut, unfinished: still(listed), openList: still(openList) }, leftOut: [] };
  }
  if (unfinished.length <= Math.max(kept, whole)) return { gaps: all, gapsLeftOut: NOTHING_LEFT_OUT, leftOut: [] };
  const ordered = SEVERITIES.flatMap((severity) => unfinished.filter((gap) => gap.severity === severity));
  const keep = new Set<string>();
  let open = 0;
  ordered.forEach((gap, at) => {
    const isOpen = STATE_CLASS[gap.state] === 'open';
    if (at < kept || (isOpen && open < kept) || namedByLoop(gap)) keep.add(gap.id);
    if (isOpen) open += 1;
  });
  const gaps = new Map<string, Gap>();
  const leftOut: Gap[] = [];
  for (const gap of unfinished) {
    if (keep.has(gap.id)) gaps.set(gap.id, gap);
    else leftOut.push(gap);
  }
  const parked = leftOut.filter((gap) => STATE_CLASS[gap.state] === 'parked').length;
  return {
    gaps,
    gapsLeftOut: {
      open: leftOut.length - parked,
      parked,
      unfinished: frontierOf(ordered, keep, () => true),
      openList: frontierOf(ordered, keep, (gap) => STATE_CLASS[gap.state] === 'open'),
    },
    leftOut,
  };
}

/** Whether the loop names `gap` wherever it stands in the list: reopened (ping-pong), or a claim a tool disputes. A head keeps every such gap. */
export function namedByLoop(gap: Gap): boolean {
  return (gap.reopens ?? 0) > 0 || gap.claimed === true;
}

/** Where the kept part of a list ends: the severity of its first gap left out, and the kept gaps of that severity before it (any state); null when the list leaves none out. */
function frontierOf(ordered: readonly Gap[], keep: ReadonlySet<string>, inList: (gap: Gap) => boolean): ListFrontier | null {
  const at = ordered.findIndex((gap) => inList(gap) && !keep.has(gap.id));
  if (at === -1) return null;
  const { severity } = ordered[at]!;
  const before = ordered.slice(0, at).filter((gap) => gap.severity === severity && keep.has(gap.id));
  return { severity, before: before.map((gap) => gap.id) };
}

/** A round's figures without their lists of gaps (a head that leaves gaps out keeps the counts only). */
function withoutLists(round: RoundFigures): RoundFigures {
  const { criticalBeforeR29: _before, withdrawalsTakenBack: _back, claimed: _claimed, ...figures } = round;
  return { ...figures, resolvedGaps: [], newGaps: [], withdrawnGaps: [], splits: [], severityChanges: [], criticalIntroduced: [], outsideFocus: [] };
}

// The closed gaps' index.

/*
 * The closed gaps' index: what the head leaves out of the inventory, kept
 * as one `ID SS` line per gap (its severity's letter and its state's: see
 * INDEX_SEVERITY and INDEX_STATE, as `G-12 Hr` for a HIGH gap RESOLVED), for
 * each gap in a closed state and each gap not closed the head leaves out. A write decided
 * on the head asks it two things only: is this id taken (a new gap's), and
 * is that gap known (a spawned-by or blocked-by gap). On a million-event log
 * the index runs to megabytes, so its lines are spread over CLOSED_BUCKETS
 * buckets by a hash of the id, and a lookup reads one bucket (a few
 * kilobytes) and searches its bytes as read, never decoding the whole.
 *
 * The index's body is one table line, then the buckets' bytes in order:
 *   <bytes>/<crc> <bytes>/<crc> … (one entry per bucket)\n
 *   <bucket 0's lines><bucket 1's lines>…
 * Each entry gives a bucket's length in bytes (decimal) and the crc32 of
 * those bytes (eight hex digits); a bucket starts where the one before it
 * ends. The table line is checked by the checkpoint's header (its sum is the
 * crc32 of that line), and each bucket by its own crc when it is read: a
 * damaged bucket is found by the lookup that reads it, whatever else is read.
 * Gap ids hold no space or newline (GAP_ID_PATTERN), so a line is found by
 * its id alone.
 */

/** How many buckets the index spreads its lines over. */
export const CLOSED_BUCKETS = 256;

/** A closed gap as the index knows it: enough to refuse a reused id or accept a reference, not to reopen it. */
export type ClosedGap = Pick<Gap, 'id' | 'severity' | 'state'>;

/** Where a bucket lies in the index's body (`offset` counts from the body's first byte) and its bytes' crc32. */
export interface ClosedBucket {
  offset: number;
  bytes: number;
  crc: number;
}

/** A bucket or the index read damaged (a crc that does not match, a file replaced under the reader): the index is not to be believed. */
export class DamagedIndex extends Error {}

/** The bucket `id` belongs in: the crc32 of its UTF-8 bytes, modulo CLOSED_BUCKETS (stable across processes and versions). */
export function closedBucketOf(id: string): number {
  return crc32(id) % CLOSED_BUCKETS;
}

/*
 * A gap's severity and state, a letter each, in its index line: the index
 * lists every gap a large head leaves out (100,000 of them at 100,000 gaps
 * not closed), and the words took 40% of its bytes. The letters are the
 * index format's own (a change to them is a new format), not the words'.
 */
const INDEX_SEVERITY: Readonly<Record<Severity, string>> = { CRITICAL: 'C', HIGH: 'H', MEDIUM: 'M', LOW: 'L', UNTRIAGED: 'U' };
const INDEX_STATE: Readonly<Record<GapState, string>> = {
  OPEN: 'o',
  IN_PROGRESS: 'i',
  BLOCKED: 'b',
  PROPOSED: 'p',
  NEEDS_REVISION: 'n',
  USER_DEFERRED: 'd',
  ACCEPTED: 'a',
  RESOLVED: 'r',
  WONT_FIX: 'w',
  DUPLICATE: 'u',
  SPLIT: 's',
};
const SEVERITY_OF_LETTER = new Map(Object.entries(INDEX_SEVERITY).map(([word, letter]) => [letter, word as Severity]));
const STATE_OF_LETTER = new Map(Object.entries(INDEX_STATE).map(([word, letter]) => [letter, word as GapState]));

/** `gap`'s index line. */
function indexLine(gap: Pick<Gap, 'id' | 'severity' | 'state'>): string {
  return `${gap.id} ${INDEX_SEVERITY[gap.severity]}${INDEX_STATE[gap.state]}\n`;
}

/** The index lines for `gaps`, keeping the closed ones. */
export function closedIndexLines(gaps: Iterable<Gap>): string {
  let text = '';
  for (const gap of gaps) if (STATE_CLASS[gap.state] === 'closed') text += indexLine(gap);
  return text;
}

/** The index lines for `gaps`, whatever their state (the gaps not closed a head leaves out). */
export function indexLines(gaps: Iterable<Gap>): string {
  let text = '';
  for (const gap of gaps) text += indexLine(gap);
  return text;
}

/** The whole index that goes with `cut` (cut from `view`): its body as stored (table line, then buckets). */
export function encodeClosedIndex(view: SessionView, cut: Pick<CutHead, 'leftOut'> = { leftOut: [] }): Buffer {
  return closedIndexOf(closedIndexLines(view.gaps.values()) + indexLines(cut.leftOut));
}

/** The index body that lists `lines` (`ID SS\n` lines), each in its bucket, in their order. */
export function closedIndexOf(lines: string): Buffer {
  return bucketed(splitLines(lines));
}

/** `lines` (whole `ID SS\n` lines) by the bucket each belongs in, in their order. */
function splitLines(lines: string): string[] {
  const buckets: string[] = new Array<string>(CLOSED_BUCKETS).fill('');
  for (const line of lines.split('\n')) if (line !== '') buckets[closedBucketOf(line.split(' ', 1)[0]!)] += `${line}\n`;
  return buckets;
}

/** The body for buckets given as text, or as bytes with their crc (a bucket carried as stored keeps the crc it was stored under). */
function bucketed(buckets: readonly (string | { bytes: Buffer; crc: number })[]): Buffer {
  const parts = buckets.map((bucket) => {
    if (typeof bucket !== 'string') return bucket;
    const bytes = Buffer.from(bucket, 'utf8');
    return { bytes, crc: crc32(bytes) };
  });
  const table = `${parts.map(({ bytes, crc }) => `${bytes.length}/${crc.toString(16).padStart(8, '0')}`).join(' ')}\n`;
  return Buffer.concat([Buffer.from(table, 'utf8'), ...parts.map((part) => part.bytes)]);
}

const TABLE_ENTRY = /^(0|[1-9][0-9]{0,15})\/([0-9a-f]{8})$/;

/**
 * The buckets the table line at the start of `start` (a body's first
 * bytes, the whole line at least) lists, for a body of `bodyBytes`; null
 * when the line is missing, malformed, or its buckets do not fill the body
 * exactly (a body cut short or grown).
 */
export function closedTableOf(start: Buffer, bodyBytes: number): { tableBytes: number; buckets: ClosedBucket[] } | null {
  const newline = start.indexOf(0x0a);
  if (newline === -1) return null;
  const entries = start.toString('latin1', 0, newline).split(' ');
  if (entries.length !== CLOSED_BUCKETS) return null;
  const tableBytes = newline + 1;
  const buckets: ClosedBucket[] = [];
  let offset = tableBytes;
  for (const entry of entries) {
    const match = TABLE_ENTRY.exec(entry);
    if (match === null) return null;
    const bytes = Number(match[1]);
    buckets.push({ offset, bytes, crc: Number.parseInt(match[2]!, 16) });
    offset += bytes;
  }
  return offset === bodyBytes ? { tableBytes, buckets } : null;
}

/** `bytes` when they are the bucket `entry` describes (its length and crc); null otherwise. */
export function checkedBucket(bytes: Buffer | null, entry: ClosedBucket): Buffer | null {
  return bytes !== null && bytes.length === entry.bytes && crc32(bytes) === entry.crc ? bytes : null;
}

/** What a reader of the index gives a lookup: the body's first bytes (the table line whole), its length, and its bytes by range (null when they cannot be read). */
export interface ClosedIndexParts {
  first: Buffer;
  bodyBytes: number;
  range(offset: number, length: number): Buffer | null;
}

/**
 * A lookup over the index `parts` give, reading each bucket once, when it
 * is first asked for, and checking it against its crc; null when the table
 * line is not sound. The lookup throws DamagedIndex when a bucket cannot be
 * read or does not match its crc: an id is never called absent on a
 * damaged bucket's word.
 */
export function closedIndexLookUp(parts: ClosedIndexParts): ((id: string) => ClosedGap | null) | null {
  const table = closedTableOf(parts.first, parts.bodyBytes);
  if (table === null) return null;
  const read = new Map<number, Buffer>();
  return (id) => {
    if (!isIndexId(id)) return null;
    const at = closedBucketOf(id);
    const entry = table.buckets[at]!;
    if (entry.bytes === 0) return null;
    let bucket = read.get(at);
    if (bucket === undefined) {
      bucket = checkedBucket(parts.range(entry.offset, entry.bytes), entry) ?? undefined;
      if (bucket === undefined) throw new DamagedIndex(`bucket ${at} of the closed gaps' index does not match its crc`);
      read.set(at, bucket);
    }
    return lookUpClosed(bucket, id);
  };
}

/**
 * `body` (a whole index, its table line already checked) with `lines`
 * added, each to the end of its bucket: the bytes an index write takes.
 * Only the buckets that change are checked against their crc (the others
 * are carried as they are, their crc with them); null when the table or a
 * changed bucket is not sound.
 */
export function extendClosedIndex(body: Buffer, lines: string): Buffer | null {
  const table = closedTableOf(body, body.length);
  if (table === null) return null;
  const added = splitLines(lines);
  const buckets: { bytes: Buffer; crc: number }[] = [];
  for (const [at, entry] of table.buckets.entries()) {
    const stored = body.subarray(entry.offset, entry.offset + entry.bytes);
    if (added[at] === '') {
      buckets.push({ bytes: stored, crc: entry.crc });
      continue;
    }
    if (checkedBucket(stored, entry) === null) return null;
    const bytes = Buffer.concat([stored, Buffer.from(added[at]!, 'utf8')]);
    buckets.push({ bytes, crc: crc32(bytes) });
  }
  return bucketed(buckets);
}

/** An id with a space or a newline is no gap id (the schema refuses it): it must not match part of a line. */
function isIndexId(id: string): boolean {
  return id !== '' && !/\s/.test(id);
}

/** The gap `id` as `lines` (index lines' UTF-8 bytes: one bucket's, or any run of whole lines) lists it; null when it is not there. */
export function lookUpClosed(lines: Buffer, id: string): ClosedGap | null {
  if (!isIndexId(id)) return null;
  const first = Buffer.from(`${id} `, 'utf8');
  let at = 0;
  if (!lines.subarray(0, first.length).equals(first)) {
    const newline = lines.indexOf(`\n${id} `, 0, 'utf8');
    if (newline === -1) return null;
    at = newline + 1;
  }
  const end = lines.indexOf(0x0a, at);
  const letters = lines.toString('utf8', at + first.length, end === -1 ? undefined : end);
  const severity = SEVERITY_OF_LETTER.get(letters.charAt(0));
  const state = STATE_OF_LETTER.get(letters.charAt(1));
  // A line whose crc matched but whose letters name no severity or state was not written by this format's writer.
  if (letters.length !== 2 || severity === undefined || state === undefined)
    throw new DamagedIndex(`the closed gaps' index gives gap ${id} the letters ${JSON.stringify(letters)}`);
  return { id, severity, state };
}

/*
 * CRC-32 (the IEEE polynomial, as zlib computes it), for the closed gaps'
 * index: which bucket an id goes in, and each bucket's check. Written here
 * rather than taken from node:zlib because importing zlib costs a gap write
 * 1.7 ms (a fiftieth of the whole call) to sum a few kilobytes; the big
 * stored state (tens of MiB) is still summed by zlib's (src/log/checkpoint.ts).
 */

const TABLE = new Int32Array(256);
for (let n = 0; n < 256; n++) {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  TABLE[n] = c;
}

/** The CRC-32 of `data` (a string is taken as its UTF-8 bytes), an unsigned 32-bit number, as zlib.crc32 gives it. */
export function crc32(data: string | Uint8Array): number {
  const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  let crc = -1;
  for (let i = 0; i < bytes.length; i++) crc = TABLE[(crc ^ bytes[i]!) & 0xff]! ^ (crc >>> 8);
  return (crc ^ -1) >>> 0;
}

/*
 * Deep freezing, for the views the core hands out: replay's, a
 * checkpoint's, the head's. Written here rather than taken from immer
 * (whose `freeze(value, true)` the fold used): immer's walk visits every key
 * through its generic `each`, and on a 100k-event view took 60 ms where
 * this loop takes 15; and the head's reader loads no immer at all.
 */

/** Stands in for a frozen Map's `set`, `delete` and `clear`, as immer's frozen Maps have it. */
function refuseWrite(): never {
  throw new Error('this Map belongs to a frozen view and cannot be changed');
}

/**
 * Freezes `value` and everything in it (objects, arrays, Maps and their
 * values); a part already frozen is taken as frozen through, as immer
 * takes it (views share their unchanged parts). A frozen Map's writers
 * throw, so a view's Map cannot be changed by mistake either.
 */
export function deepFreeze<T>(value: T): T {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return value;
  if (value instanceof Map) {
    for (const entry of value.values() as Iterable<unknown>) deepFreeze(entry);
    Object.assign(value, { set: refuseWrite, delete: refuseWrite, clear: refuseWrite });
  } else if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) deepFreeze(value[i]);
  } else {
    for (const key in value) deepFreeze((value as Record<string, unknown>)[key]);
  }
  return Object.freeze(value);
}

/**
 * Freezes a tree built just now (a fold's working copy, a decoded
 * checkpoint) as `deepFreeze` does, without asking each part whether it is
 * frozen already: nothing in a fresh tree is, and on a long log's view the
 * asking was a third of the freezing. A part that is frozen after all is
 * only frozen again (a no-op), save a Map, whose writers are replaced once.
 */
export function freezeNew<T>(value: T): T {
  if (typeof value === 'object' && value !== null) freezeTree(value);
  return value;
}

function freezeTree(value: object): void {
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      if (typeof item === 'object' && item !== null) freezeTree(item);
    }
  } else if (value instanceof Map) {
    if (Object.isFrozen(value)) return;
    for (const item of value.values() as Iterable<unknown>) if (typeof item === 'object' && item !== null) freezeTree(item);
    Object.assign(value, { set: refuseWrite, delete: refuseWrite, clear: refuseWrite });
  } else {
    for (const key in value) {
      const item = (value as Record<string, unknown>)[key];
      if (typeof item === 'object' && item !== null) freezeTree(item);
    }
  }
  Object.freeze(value);
}

// A round as it opens.

/**
 * A round as it opens: numbered, starting from the given open counts, every
 * tally at `zero` (NaN for closedRounds' stand-in of a round a head leaves out).
 */
export function openingFigures(round: number, openStart: number, weightedOpenStart: number, zero = 0): RoundFigures {
  const bySeverity = {} as Record<Severity, RoundFigures['bySeverity'][Severity]>;
  // A loop, not `Object.fromEntries` over mapped pairs: a replay opens a round every twenty-odd events.
  for (const s of SEVERITIES) bySeverity[s] = { resolved: zero, new: zero, weightedResolved: zero, weightedNew: zero };
  return {
    round,
    kind: 'work',
    openStart,
    weightedOpenStart,
    openEnd: null,
    weightedOpenEnd: null,
    resolved: zero,
    new: zero,
    weightedResolved: zero,
    weightedNew: zero,
    withdrawn: zero,
    weightedWithdrawn: zero,
    unweightedNet: zero,
    weightedNet: zero,
    bySeverity,
    resolvedGaps: [],
    newGaps: [],
    withdrawnGaps: [],
    splits: [],
    severityChanges: [],
    criticalIntroduced: [],
    outsideFocus: [],
    state: null,
    flatCount: null,
    verdicts: [],
    combined: null,
  };
}
