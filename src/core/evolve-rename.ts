import type { EventOf } from '../../events/index.js';
import { closedRoundCount } from './read-model.js';
import type { RoundFigures, SessionView } from './view.js';

/*
 * Folding a rename (R22): the gap keeps everything but its id, which
 * changes everywhere the view names it, the words it keeps included.
 * Called on a working copy of the view (evolve.ts).
 */

/**
 * R22: the gap keeps everything but its id, which changes everywhere the
 * view names it (other gaps' links, the focus, decisions, the rounds' lists
 * and the words written from them); nothing is counted, and the old id is
 * retired for good.
 */
export function renameGap(view: SessionView, event: EventOf<'gap.renamed'>): void {
  const { id: from, newId: to } = event.data;
  const gap = view.gaps.get(from);
  if (!gap || view.gaps.has(to)) return;
  const swap = (id: string): string => (id === from ? to : id);
  // Rebuilt, not deleted and set again: the inventory lists gaps in the order they were recorded.
  view.gaps = new Map([...view.gaps].map(([id, g]) => [swap(id), g]));
  gap.id = to;
  for (const g of view.gaps.values()) {
    if (g.spawnedBy === from) g.spawnedBy = to;
    if (g.blockedBy === from) g.blockedBy = to;
    if (g.duplicateOf === from) g.duplicateOf = to;
    if (g.splitFrom === from) g.splitFrom = to;
    if (g.splitInto?.includes(from)) g.splitInto = g.splitInto.map(swap);
  }
  if (view.focus.includes(from)) view.focus = view.focus.map(swap);
  for (const decision of view.decisions) if (decision.gaps.includes(from)) renameInDecision(view, decision, decision.gaps.map(swap));
  for (const round of view.rounds) {
    if (round.criticalIntroduced.includes(from)) renameInRoundWords(view, round, round.criticalIntroduced.map(swap));
    renameInRound(round, from, to);
    renameInPingPong(view, round, from, to);
  }
  // A snapshot's claims name the gap by its id now.
  for (const record of view.sources) if (record.claimed.includes(from)) record.claimed = record.claimed.map(swap);
  view.renames.push({ from, to, afterRound: closedRoundCount(view) });
}

/** The round's lists with `from` named `to`; a list that does not name it is left as it is (a head's stand-in rounds are frozen). */
function renameInRound(round: RoundFigures, from: string, to: string): void {
  const swap = (id: string): string => (id === from ? to : id);
  const named = (entry: { id: string }) => entry.id === from;
  if (round.newGaps.some((e) => e.id === from || e.spawnedBy === from))
    round.newGaps = round.newGaps.map((e) => ({ ...e, id: swap(e.id), spawnedBy: e.spawnedBy === null ? null : swap(e.spawnedBy) }));
  if (round.resolvedGaps.some(named)) round.resolvedGaps = round.resolvedGaps.map((e) => ({ ...e, id: swap(e.id) }));
  if (round.withdrawnGaps.some((e) => e.id === from || e.of === from))
    round.withdrawnGaps = round.withdrawnGaps.map((e) => ({ ...e, id: swap(e.id), of: swap(e.of) }));
  if (round.severityChanges.some(named)) round.severityChanges = round.severityChanges.map((e) => ({ ...e, id: swap(e.id) }));
  if (round.splits.some((e) => e.id === from || e.into.includes(from)))
    round.splits = round.splits.map((e) => ({ ...e, id: swap(e.id), into: e.into.map(swap) }));
  if (round.criticalIntroduced.includes(from)) round.criticalIntroduced = round.criticalIntroduced.map(swap);
  if (round.criticalBeforeR29?.includes(from)) round.criticalBeforeR29 = round.criticalBeforeR29.map(swap);
  if (round.claimed?.includes(from)) round.claimed = round.claimed.map(swap);
  const takenBack = round.withdrawalsTakenBack;
  if (takenBack?.some(({ entry }) => entry.id === from || entry.of === from)) {
    round.withdrawalsTakenBack = takenBack.map(({ entry, gap }) => ({
      entry: { ...entry, id: swap(entry.id), of: swap(entry.of) },
      gap: { ...gap, id: swap(gap.id) },
    }));
  }
  // R26's flags name the gap by its id now, as every other list of the round does.
  if (round.outsideFocus.includes(from)) round.outsideFocus = round.outsideFocus.map(swap);
}

/**
 * A decision's words (decisions.md's Effect, and the State History's reason,
 * which is the effect and then the rationale) name its gaps as one list,
 * after a space and before a `;` or the end (explain.ts, decisionEffect):
 * that list is told again with the ids now. The rationale is the user's own
 * text and is left as written.
 */
function renameInDecision(view: SessionView, decision: SessionView['decisions'][number], renamed: string[]): void {
  const before = decision.effect;
  const after = swapList(before, decision.gaps, renamed, ' ', /^(;|$)/);
  decision.gaps = renamed;
  if (after === before) return;
  decision.effect = after;
  for (const entry of view.history) {
    if (entry.cause !== 'decision' || !entry.reason.startsWith(before)) continue;
    const rest = entry.reason.slice(before.length);
    if (rest === '' || rest.startsWith(';')) entry.reason = after + rest;
  }
}

/**
 * A closed round's words that name its CRITICAL introductions, as one list
 * in parentheses (the gap policy's verdict detail, the combined verdict's,
 * and the State History's reason for the round's steps), and a verdict
 * figure that is that list: told again with the ids now.
 */
function renameInRoundWords(view: SessionView, round: RoundFigures, renamed: string[]): void {
  const list = round.criticalIntroduced;
  const inParentheses = (text: string) => swapList(text, list, renamed, '(', /^\)/);
  for (const entry of view.history) if (entry.cause === 'round' && entry.round === round.round) entry.reason = inParentheses(entry.reason);
  if (round.verdicts.some((v) => inParentheses(v.detail) !== v.detail || Object.values(v.figures).includes(list.join(', ')))) {
    round.verdicts = round.verdicts.map((v) => ({
      ...v,
      detail: inParentheses(v.detail),
      figures: Object.fromEntries(Object.entries(v.figures).map(([name, value]) => [name, value === list.join(', ') ? renamed.join(', ') : value])),
    }));
  }
  const combined = round.combined;
  const detail = combined ? inParentheses(combined.detail) : null;
  if (combined && detail !== null && detail !== combined.detail) round.combined = { ...combined, detail };
}

/**
 * A closed round's words that name a gap for ping-pong (`A (resolved 2×,
 * reopened 2×)`, in the gap policy's detail and `pingPong` figure, the
 * combined detail, and the history told from it): told with the id now.
 */
function renameInPingPong(view: SessionView, round: RoundFigures, from: string, to: string): void {
  const told = new RegExp(`(^|: |, )${from.replace(/[.-]/g, '\\$&')} \\(resolved `, 'g');
  const swap = (text: string): string => text.replace(told, `$1${to} (resolved `);
  if (!round.verdicts.some((v) => typeof v.figures.pingPong === 'string' && swap(v.figures.pingPong) !== v.figures.pingPong)) return;
  round.verdicts = round.verdicts.map((v) =>
    typeof v.figures.pingPong === 'string' ? { ...v, detail: swap(v.detail), figures: { ...v.figures, pingPong: swap(v.figures.pingPong) } } : v,
  );
  if (round.combined) round.combined = { ...round.combined, detail: swap(round.combined.detail) };
  for (const entry of view.history) if (entry.cause === 'round' && entry.round === round.round) entry.reason = swap(entry.reason);
}

/**
 * `text` with the first whole telling of the list `ids` (joined by `, `,
 * right after `lead` and followed by what `end` matches) told as `renamed`;
 * unchanged when the list is not there. Gap ids hold no space, comma,
 * semicolon or parenthesis, so a whole list cannot be mistaken for part of
 * another word.
 */
function swapList(text: string, ids: readonly string[], renamed: readonly string[], lead: string, end: RegExp): string {
  const told = lead + ids.join(', ');
  for (let at = text.indexOf(told); at !== -1; at = text.indexOf(told, at + 1)) {
    const rest = text.slice(at + told.length);
    if (end.test(rest)) return text.slice(0, at) + lead + renamed.join(', ') + rest;
  }
  return text;
}
