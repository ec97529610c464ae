import { deepFreeze } from './freeze.js';
import { encodeView, readView } from './view-json.js';
import { openingFigures } from './round-figures.js';
import { STATE_CLASS } from './rules.js';
import type { RoundFigures, SessionView } from './view.js';

/*
 * The head of a view: what the loop's questions read (`next`, a stop hook:
 * loopStep, hookStep, the decision prompt), cut from the whole view so a
 * hook reads kilobytes, not the session's history. It keeps the settings,
 * thresholds, counts, machine, focus, baseline, binding and policies whole;
 * the decisions; the last rounds whole (the ones before are stood in for by
 * a placeholder, so round numbers still count right); the history from the
 * round before the last closed one on; and every gap not closed. It answers those questions as the
 * whole view does (test/core/view-head.test.ts holds it to that on random
 * sessions); it is never rendered whole, never written to, never folded.
 *
 * Nothing here loads immer, a schema or the statechart: `next` and a stop
 * hook read the head on every turn of an agent's loop, and their start-up
 * is most of their time.
 */

/** How many of the last rounds the head keeps whole: the open one, the last closed one and the one before. */
export const HEAD_ROUNDS = 3;

/** The head of `view`, keeping its last `keep` rounds whole (at least 2: the open round and the last closed one). */
export function headOf(view: SessionView, keep = HEAD_ROUNDS): SessionView {
  const { before, head } = cut(view, keep);
  return { ...head, rounds: [...placeholders(before), ...head.rounds] };
}

/** Names the closed gaps' index a head goes with (the seq and checksum of the event it was written at). */
export interface IndexMark {
  seq: number;
  sum: string;
}

/**
 * The head as a checkpoint stores it: the view's JSON, with the rounds
 * before the kept ones counted, not written, and the closed gaps' index it
 * goes with (null: none; a write cannot then be decided on this head).
 */
export function encodeHead(view: SessionView, keep = HEAD_ROUNDS, closed: IndexMark | null = null): string {
  const { before, head } = cut(view, keep);
  return `{"roundsBefore":${before},"closed":${JSON.stringify(closed)},"view":${encodeView(head)}}`;
}

/**
 * The head a checkpoint's text holds, frozen; null when it is
 * not one this build wrote.
 */
export function decodeHead(text: string): SessionView | null {
  return decodeMarkedHead(text)?.view ?? null;
}

/** The head a checkpoint's text holds, and the closed gaps' index it names; null when it is not one this build wrote. */
export function decodeMarkedHead(text: string): { view: SessionView; closed: IndexMark | null } | null {
  const prefix = /^\{"roundsBefore":(\d+),"closed":(null|\{"seq":(\d+),"sum":"([0-9A-Za-z_-]+)"\}),"view":/.exec(text);
  if (prefix === null || !text.endsWith('}')) return null;
  const view = readView(text.slice(prefix[0].length, -1));
  if (view === null) return null;
  const closed = prefix[2] === 'null' ? null : { seq: Number(prefix[3]), sum: prefix[4]! };
  // The placeholders are frozen already: freezing the view before they join it keeps them out of the walk.
  const kept = deepFreeze(view);
  const rounds = [...placeholders(Number(prefix[1])), ...kept.rounds];
  Object.freeze(rounds);
  return { view: Object.freeze({ ...kept, rounds }), closed };
}

/** The head's parts: how many rounds it stands in for, and the view with only the kept rounds. */
function cut(view: SessionView, keep: number): { before: number; head: SessionView } {
  const rounds = view.rounds.slice(-Math.max(2, keep));
  const firstKept = rounds[0]?.round ?? 0;
  // The round whose close the prompt and the stop request speak of, and the one before it.
  const lastClosed = view.rounds.findLast((r) => r.openEnd !== null)?.round ?? 0;
  const since = Math.min(firstKept, lastClosed - 1);
  // The loop's questions look at gaps still open or parked (the inventory, the focus, the options), never at closed ones.
  const gaps = new Map([...view.gaps].filter(([, gap]) => STATE_CLASS[gap.state] !== 'closed'));
  // History: from its first entry of round `since` or later, to the end (a hand-made log may number a later entry
  // lower; keeping everything after that first one keeps a superset). Decisions are few: all kept (whether a
  // standing stop request was answered is asked of every decision made after its round).
  const first = view.history.findIndex((entry) => entry.round >= since);
  const head = { ...view, gaps, rounds, history: first === -1 ? [] : view.history.slice(first) };
  return { before: view.rounds.length - rounds.length, head };
}

/**
 * The stand-in for a round the head does not keep: closed (so `closedRounds`
 * counts it), one object shared by all, and NaN in every figure and in its
 * number, so any code that read one as a real round would show it at once.
 */
const PLACEHOLDER: RoundFigures = deepFreeze({ ...openingFigures(NaN, NaN, NaN, NaN), openEnd: NaN, weightedOpenEnd: NaN });

function placeholders(count: number): RoundFigures[] {
  return new Array<RoundFigures>(count).fill(PLACEHOLDER);
}
