import {
  COMBINED_TEXT_MAX,
  VERDICT_TEXT_MAX,
  type DecisionData,
  type DecisionKind,
  type DecisionOutcome,
  type RoundKind,
  type RoundOutcome,
  type SettledEvent,
} from '../../events/index.js';
import type { ConvergenceEvent, RoundClosedEvent } from '../../machines/index.js';
import { policyRulesNamed, type CombinedVerdict, type NamedVerdict } from '../policies/index.js';
import {
  severeUnfinished,
  alternatingWords,
  causeWords,
  closingCauses,
  pingPongWords,
  type ClosingCauses,
  judgeRound,
  type SessionRules,
} from './read-model.js';
import { roundLimitProvisional } from './rules.js';
import { stepMachine } from './step.js';
import type { RoundFigures, SessionView } from './view.js';

/*
 * Where the statechart judges: a round close and a user decision are run
 * through the machine here, once, when they are decided (or, for a line
 * written before outcomes were recorded, when it is first read). What it
 * decided goes into the event; folding the event applies it (R19).
 */

const DECISION_EVENT: Record<DecisionKind, ConvergenceEvent['type']> = {
  narrow_scope: 'NARROW_SCOPE',
  accept_complexity: 'ACCEPT_COMPLEXITY',
  prioritize_critical: 'PRIORITIZE_CRITICAL',
  prioritize: 'PRIORITIZE',
  extend_rounds: 'EXTEND_ROUNDS',
  pause: 'PAUSE',
  resume: 'RESUME',
  force_complete: 'FORCE_COMPLETE',
  abandon: 'ABANDON',
  approve: 'APPROVE',
};

/** The statechart event a decision sends, with what the view knows that its guards need. */
export function decisionEvent(view: SessionView, kind: DecisionKind): ConvergenceEvent {
  const type = DECISION_EVENT[kind];
  if (type === 'APPROVE') return { type, openCriticalOrHigh: severeUnfinished(view).length };
  return { type } as ConvergenceEvent;
}

/**
 * The open round's figures as they stand at its close: the open counts now,
 * the tallies so far. A close from before outcomes were recorded counts its
 * CRITICAL introductions as the rule then did (R19: before R29).
 */
function closingFigures(view: SessionView, round: RoundFigures, rules: SessionRules): RoundOutcome['figures'] {
  return {
    openEnd: view.open.count,
    weightedOpenEnd: view.open.weighted,
    resolved: round.resolved,
    new: round.new,
    weightedResolved: round.weightedResolved,
    weightedNew: round.weightedNew,
    ...(round.withdrawn > 0 ? { withdrawn: round.withdrawn, weightedWithdrawn: round.weightedWithdrawn } : {}),
    criticalIntroduced: [...(rules === 'before-v4' ? (round.criticalBeforeR29 ?? round.criticalIntroduced) : round.criticalIntroduced)],
  };
}

/** What the statechart hears when a round closes: the one verdict the round's policies and its limit reached. */
export function roundClosedEvent(round: number, combined: Pick<CombinedVerdict, 'verdict' | 'reason'>, kind: RoundKind = 'work'): RoundClosedEvent {
  const event: RoundClosedEvent = { type: 'ROUND_CLOSED', round, verdict: { verdict: combined.verdict, reason: combined.reason } };
  return kind === 'work' ? event : { ...event, kind };
}

/** What closing the open round decides: its figures, every policy's verdict, and the machine's steps. Null with no round open. */
export function judgeRoundClose(view: SessionView, rules: SessionRules = 'current'): RoundOutcome | null {
  const round = view.rounds.at(-1);
  if (!round || !view.roundOpen) return null;
  const figures = closingFigures(view, round, rules);
  const closing = { ...round, ...figures, unweightedNet: figures.resolved - figures.new, weightedNet: figures.weightedResolved - figures.weightedNew };
  const judged = judgeRound(view, closing, view.config, rules);
  // Fix-break cycles are named, never acted on: the verdicts and the machine's steps are the policies' (rules of today only).
  const causes = rules === 'current' ? closingCauses(view, round, figures.openEnd) : null;
  const { verdicts, combined } = causes === null ? judged : withCauses(judged, causes);
  const { machine, steps } = stepMachine(view.machine, view.config, roundClosedEvent(round.round, combined, round.kind));
  const outcome = { figures, verdicts: verdicts.map(recordable), combined: { ...combined, detail: cut(combined.detail, COMBINED_TEXT_MAX) }, machine, steps };
  return round.kind === 'work' ? outcome : { ...outcome, kind: round.kind };
}

/**
 * The round's verdicts naming the fix-break cycles it showed: the gap
 * policy's detail and figures (`pingPong`, `openCountAlternating`), and the
 * combined detail; unchanged when it showed none.
 */
function withCauses(
  judged: { verdicts: NamedVerdict[]; combined: CombinedVerdict },
  causes: ClosingCauses,
): { verdicts: NamedVerdict[]; combined: CombinedVerdict } {
  const words = causeWords(causes);
  if (words.length === 0) return judged;
  const figures = {
    ...(causes.pingPong.length > 0 ? { pingPong: pingPongWords(causes.pingPong) } : {}),
    ...(causes.alternating ? { openCountAlternating: alternatingWords(causes.alternating) } : {}),
    ...(causes.claimed.length > 0 ? { claimedStillReported: causes.claimed.join(', ') } : {}),
  };
  const verdicts = judged.verdicts.map((v) =>
    policyRulesNamed(v.policy)?.readsGapEvents ? { ...v, detail: [v.detail, ...words].join('; '), figures: { ...v.figures, ...figures } } : v,
  );
  return { verdicts, combined: { ...judged.combined, detail: [judged.combined.detail, ...words].join('; ') } };
}

/** Text longer than a stored line may carry (80 CRITICAL gaps named in one detail) is cut, so the line reads back. */
function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

function recordable(verdict: NamedVerdict): NamedVerdict {
  const figures = Object.fromEntries(
    Object.entries(verdict.figures).map(([key, value]) => [key, typeof value === 'string' ? cut(value, VERDICT_TEXT_MAX) : value]),
  );
  return { ...verdict, detail: cut(verdict.detail, VERDICT_TEXT_MAX), figures };
}

/**
 * What a decision decides: the machine's steps from the state it was made
 * in, and for an extension of the round limit (R24) the limit it leaves,
 * when there is one yet (under preset auto round 1 settles it, and the
 * extension is added to that).
 */
export function judgeDecision(view: SessionView, data: Pick<DecisionData, 'kind' | 'rounds'>): DecisionOutcome {
  const { machine, steps } = stepMachine(view.machine, view.config, decisionEvent(view, data.kind));
  if (data.kind !== 'extend_rounds' || roundLimitProvisional(view)) return { machine, steps };
  return { machine, steps, maxRounds: view.config.maxRounds + (data.rounds ?? 0) };
}

/**
 * The statechart event a settled event sent, from the event alone (its
 * recorded verdict; an approval records the severe gaps it
 * accepted); null for the events the view folds on its own (gap events,
 * metrics, round starts). A live actor fed these replays the log.
 */
export function machineEventOf(event: SettledEvent): ConvergenceEvent | null {
  if (event.type === 'decision.made') {
    if (event.data.kind === 'approve') return { type: 'APPROVE', openCriticalOrHigh: event.data.gaps?.length ?? 0 };
    return { type: DECISION_EVENT[event.data.kind] } as ConvergenceEvent;
  }
  if (event.type !== 'round.closed') return null;
  return roundClosedEvent(event.data.round, event.data.outcome.combined, event.data.outcome.kind);
}
