import type { ConvergenceState } from '../../machines/index.js';
import { closedRoundCount, viewForecast, type Forecast } from './read-model.js';
import { cutHead, freezeNew, HEAD_ROUNDS, HEAD_WHOLE_GAPS, encodeView, readView, type IndexMark } from './view-codec.js';
import { LISTED_GAPS } from './rules.js';
import type { SessionView } from './view.js';

/*
 * The head checkpoint's text: the head (view-codec.ts cuts it), the index it
 * names, and its summary, in front, so a reader of many sessions (the
 * fleet) parses a few hundred bytes of each, not its head.
 */

/** What a session's row in a fleet shows of it, whatever the clock: read off its whole view or its head alike. */
export interface SessionSummary {
  state: ConvergenceState;
  /** How a COMPLETE session ended (CONVERGED, APPROVED, …); null otherwise. */
  outcome: string | null;
  /** Rounds closed, as `state --json` counts them. */
  round: number;
  roundOpen: boolean;
  open: number;
  weightedOpen: number;
  /** Why the session took its last step (the last state history entry); null before any. */
  lastReason: string | null;
  /** The forecast `state --json` gives (null once COMPLETE, or when no policy reads gaps). */
  forecast: Forecast | null;
  /** Round closes that raised a DIVERGENCE_WARNING (`warningsRaised`). */
  warnings: number;
  /** Events in the log. */
  eventCount: number;
  /** When the last event was recorded (its `at`); null before any. */
  lastEventAt: string | null;
}

/** The summary of a session read as `view`: its whole view or its head, the same (test/core/view-head.test.ts). */
export function summaryOf(view: SessionView): SessionSummary {
  return {
    state: view.machine.state,
    outcome: view.machine.outcome ?? null,
    round: closedRoundCount(view),
    roundOpen: view.roundOpen,
    open: view.open.count,
    weightedOpen: view.open.weighted,
    lastReason: view.history.at(-1)?.reason ?? null,
    forecast: viewForecast(view),
    warnings: view.warningsRaised,
    eventCount: view.lastSeq,
    lastEventAt: view.lastAt,
  };
}

/**
 * The head as a checkpoint stores it: the rounds before the kept ones
 * counted, not written; the index it goes with (null: none; a write cannot
 * then be decided on this head); its summary; and the view's JSON (with what
 * it leaves out of the gaps). `view` is cut first (`cutHead`).
 */
export function encodeHead(view: SessionView, keep = HEAD_ROUNDS, closed: IndexMark | null = null, listed = LISTED_GAPS, whole = HEAD_WHOLE_GAPS): string {
  return encodeCutHead(cutHead(view, keep, listed, whole).head, closed);
}

/** `encodeHead` for a head `cutHead` made. */
export function encodeCutHead(head: SessionView, closed: IndexMark | null): string {
  return `{"roundsBefore":${head.roundsBefore},"closed":${JSON.stringify(closed)},"summary":${JSON.stringify(summaryOf(head))},"view":${encodeView(head)}}`;
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

const STATES: readonly string[] = ['CONVERGING', 'FLAT', 'STALLED', 'DIVERGENCE_WARNING', 'PAUSED', 'COMPLETE'] satisfies readonly ConvergenceState[];
const count = (value: unknown) => Number.isSafeInteger(value) && (value as number) >= 0;
/** The open counts: a gap in some states counts in part (CLASS_FACTOR). */
const amount = (value: unknown) => typeof value === 'number' && Number.isFinite(value) && value >= 0;
const textOrNull = (value: unknown) => value === null || typeof value === 'string';

/**
 * A summary's shape, checked as a view's is (looksStored): the store has
 * checked the text's checksum, so this guards against a head another build
 * wrote under the same format, and keeps what a dashboard shows to the
 * types it shows.
 */
function looksSummary(value: unknown): value is SessionSummary {
  if (typeof value !== 'object' || value === null) return false;
  const s = value as Record<string, unknown>;
  const forecast = s.forecast as Record<string, unknown> | null;
  return (
    STATES.includes(s.state as string) &&
    textOrNull(s.outcome) &&
    count(s.round) &&
    typeof s.roundOpen === 'boolean' &&
    amount(s.open) &&
    amount(s.weightedOpen) &&
    textOrNull(s.lastReason) &&
    (forecast === null || (typeof forecast === 'object' && typeof forecast.reason === 'string' && typeof forecast.detail === 'string')) &&
    count(s.warnings) &&
    count(s.eventCount) &&
    textOrNull(s.lastEventAt)
  );
}
