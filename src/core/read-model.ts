import { CLASS_FACTOR, LISTED_GAPS, SEVERITIES, STATE_CLASS } from './rules.js';
import type { Gap, RoundFigures, SessionSummary, SessionView } from './view.js';
import {
  formatCount,
  combine,
  withSessionRules,
  type CombinedVerdict,
  type NamedVerdict,
  policyRulesNamed,
  type AnyPolicyRules,
  type PolicyVerdict,
  type RoundInput,
} from '../policies/index.js';
import type { ConvergenceConfig } from '../../machines/index.js';
import { runWords } from './gate.js';
import { cutHead, deepFreeze, encodeCutHead, HEAD_ROUNDS, HEAD_WHOLE_GAPS, openingFigures, type IndexMark } from './view-codec.js';

/*
 * The rounds as the loop's questions ask for them. A head keeps only its
 * last rounds and counts the ones before (`roundsBefore`, view-codec.ts),
 * so these read the kept rounds and the count, never `rounds.length` or an
 * index into `rounds`: a write on the head and a stop hook cost the same
 * after forty thousand rounds as after four.
 */

/** What the round counts read: the rounds a view keeps, and how many came before them. */
type Counted = Pick<SessionView, 'rounds' | 'roundsBefore'>;

/** How many rounds have started, the open one included: the number the last round started has (save in a hand-made log). */
export function roundCount(view: Counted): number {
  return view.roundsBefore + view.rounds.length;
}

/** The open round, or null for a baseline event (before round 1). */
export function currentRound(view: Pick<SessionView, 'roundOpen' | 'rounds'>): RoundFigures | null {
  return view.roundOpen ? (view.rounds.at(-1) ?? null) : null;
}

/**
 * The stand-in `closedRounds` gives for a round a head leaves out: closed,
 * one object shared by all, and NaN in every figure and in its number, so
 * any code that read one as a real round would show it at once.
 */
const LEFT_OUT: RoundFigures = deepFreeze({ ...openingFigures(NaN, NaN, NaN, NaN), openEnd: NaN, weightedOpenEnd: NaN });

/**
 * The rounds that have closed, oldest first (the last one may still be
 * open). On a head, the rounds it leaves out come first as stand-ins
 * numbered NaN, made on the call: a whole table is read from the whole
 * view, and what a head is asked (a count, the last closed round, the
 * round numbered N) has its own function below, which makes none.
 */
export function closedRounds(view: Counted): RoundFigures[] {
  const kept = view.rounds.filter((r) => r.openEnd !== null);
  return view.roundsBefore === 0 ? kept : [...new Array<RoundFigures>(view.roundsBefore).fill(LEFT_OUT), ...kept];
}

/**
 * How many rounds have closed: `closedRounds(view).length`, without copying
 * them. The rounds a head leaves out count as closed (only the last round
 * is open, save in a hand-made log).
 */
export function closedRoundCount(view: Counted): number {
  let count = view.roundsBefore;
  for (const round of view.rounds) if (round.openEnd !== null) count += 1;
  return count;
}

/** The last round that closed: `closedRounds(view).at(-1)`, looking back from the end. */
export function lastClosedRound(view: Pick<SessionView, 'rounds'>): RoundFigures | undefined {
  return view.rounds.findLast((r) => r.openEnd !== null);
}

/** The closed round numbered `round` (the first, in a hand-made log that numbers two alike); undefined when none the view keeps is. */
export function closedRoundNumbered(view: Pick<SessionView, 'rounds'>, round: number): RoundFigures | undefined {
  return view.rounds.find((r) => r.openEnd !== null && r.round === round);
}

/**
 * R9: OPEN + IN_PROGRESS + BLOCKED + PROPOSED + NEEDS_REVISION + 0.5 × USER_DEFERRED.
 * The view keeps the session's total as it folds (`view.open`); this sums any subset.
 */
export function openCount(gaps: Iterable<Gap>): number {
  let total = 0;
  for (const gap of gaps) total += CLASS_FACTOR[STATE_CLASS[gap.state]];
  return total;
}

export function isOpen(gap: Gap): boolean {
  return STATE_CLASS[gap.state] === 'open';
}

/** Open and parked gaps, most severe first, in the order they were recorded. */
export function unfinishedGaps(gaps: Iterable<Gap>): Gap[] {
  const unfinished = [...gaps].filter((gap) => STATE_CLASS[gap.state] !== 'closed');
  return unfinished.sort((a, b) => SEVERITIES.indexOf(a.severity) - SEVERITIES.indexOf(b.severity));
}

/** R11: CRITICAL and HIGH gaps not closed (deferral does not make them safe to approve over). */
export function severeUnfinished(view: Pick<SessionView, 'gaps'>): string[] {
  return unfinishedGaps(view.gaps.values())
    .filter((g) => g.severity === 'CRITICAL' || g.severity === 'HIGH')
    .map((g) => g.id);
}

/*
 * Fix-break cycles, named as causes (they change no state: the machine's
 * transitions are the gap rules', and a cycle shows in its figures already; what
 * the figures cannot say is *which* gap keeps coming back). Two signs:
 * a gap resolved and reopened again and again (ping-pong), and an open
 * count that goes back and forth between two values round after round
 * (the questions policy's oscillation check, applied to the gaps).
 *
 * Everything here reads what the head keeps (gaps not closed, the open
 * counts of the last closes), so `next` answers it from the head checkpoint; no zod, no
 * statechart.
 */

/** How many reopens after a resolve name a gap when the session set none. */
export const DEFAULT_PING_PONG = 2;

/** How many closed rounds an alternating open count must span to be named. */
export const ALTERNATING_ROUNDS = 4;

/** A gap named for ping-pong: how often it was resolved and reopened. */
export interface PingPongGap {
  id: string;
  resolves: number;
  reopens: number;
}

/** An open count alternating between two values over the last closed rounds, oldest first. */
export interface AlternatingOpenCount {
  fromRound: number;
  toRound: number;
  openCounts: number[];
}

/** The reopens that name a gap in this session. */
export function pingPongThreshold(view: Pick<SessionView, 'settings'>): number {
  return view.settings?.pingPong ?? DEFAULT_PING_PONG;
}

function named(gap: Gap): PingPongGap {
  return { id: gap.id, resolves: gap.resolves ?? 0, reopens: gap.reopens ?? 0 };
}

/**
 * The gaps still to work on (open or parked) that were reopened the
 * session's threshold of times or more, in inventory order. A gap resolved
 * again drops out: the cycle it was in is over, or will show again.
 */
export function pingPongGaps(view: Pick<SessionView, 'settings' | 'gaps'>): PingPongGap[] {
  const threshold = pingPongThreshold(view);
  return [...view.gaps.values()].filter((gap) => STATE_CLASS[gap.state] !== 'closed' && (gap.reopens ?? 0) >= threshold).map(named);
}

/** The gaps a closing round reopened whose reopens reached the threshold with it: what its verdict names. */
function pingPongIn(view: Pick<SessionView, 'settings' | 'gaps'>, round: Pick<RoundFigures, 'newGaps'>): PingPongGap[] {
  const threshold = pingPongThreshold(view);
  const reopened = new Set(round.newGaps.filter((entry) => entry.reopened).map((entry) => entry.id));
  return [...reopened].flatMap((id) => {
    const gap = view.gaps.get(id);
    return gap !== undefined && STATE_CLASS[gap.state] !== 'closed' && (gap.reopens ?? 0) >= threshold ? [named(gap)] : [];
  });
}

/**
 * The open count at the end of the last ALTERNATING_ROUNDS closed rounds
 * (`closing`: the open count of a round closing now, counted as the last),
 * when it alternates between two values (5, 3, 5, 3); null otherwise.
 */
export function alternatingOpenCount(view: Pick<SessionView, 'openEnds'>, closing?: { round: number; openEnd: number }): AlternatingOpenCount | null {
  const last = [...view.openEnds, ...(closing ? [closing] : [])].slice(-ALTERNATING_ROUNDS);
  if (last.length < ALTERNATING_ROUNDS) return null;
  const counts = last.map((r) => r.openEnd);
  const alternates = counts.every((count, i) => i < 2 || count === counts[i - 2]) && counts[0] !== counts[1];
  return alternates ? { fromRound: last[0]!.round, toRound: last.at(-1)!.round, openCounts: counts } : null;
}

/** `GAP-3 (resolved 2×, reopened 2×)` for each gap, joined. */
export function pingPongWords(gaps: readonly PingPongGap[]): string {
  return gaps.map((gap) => `${gap.id} (resolved ${gap.resolves}×, reopened ${gap.reopens}×)`).join(', ');
}

/** The open counts, as people read them: `5, 3, 5, 3 over rounds 2-5`. */
export function alternatingWords(alternating: AlternatingOpenCount): string {
  return `${alternating.openCounts.join(', ')} over rounds ${alternating.fromRound}-${alternating.toRound}`;
}

/** What a round close names: the gaps that ping-ponged in it, an open count alternating up to it, and the claims its snapshots disputed. */
export interface ClosingCauses {
  pingPong: PingPongGap[];
  alternating: AlternatingOpenCount | null;
  /** Gaps closed by hand as fixed that a snapshot in the round still reported, still not closed. */
  claimed: string[];
}

export function closingCauses(view: SessionView, round: RoundFigures, openEnd: number): ClosingCauses {
  return {
    pingPong: pingPongIn(view, round),
    alternating: alternatingOpenCount(view, { round: round.round, openEnd }),
    claimed: stillOpen(view, round.claimed ?? []),
  };
}

/** The causes in words, one each (empty: none). */
export function causeWords({ pingPong, alternating, claimed }: ClosingCauses): string[] {
  return [
    ...(pingPong.length > 0 ? [`ping-pong: ${pingPongWords(pingPong)} reopened after being resolved`] : []),
    ...(alternating ? [`open count alternating: ${alternatingWords(alternating)}`] : []),
    ...(claimed.length > 0 ? [`claimed but still reported: ${idList(claimed)} (closed by hand, reopened: the tool still reports them)`] : []),
  ];
}

/** The causes as they stand (the prompt's cause analysis): the gaps still in a cycle, an open count alternating, claims a tool disputes. */
export function standingCauses(view: SessionView): string[] {
  const gaps = pingPongGaps(view);
  const alternating = alternatingOpenCount(view);
  const claimed = claimedGaps(view);
  return [
    ...(gaps.length > 0 ? [`Ping-pong: ${pingPongWords(gaps)}: fixed and broken again; look at why the fix does not hold`] : []),
    ...(alternating ? [`Open count alternating (${alternatingWords(alternating)}): work undone as fast as it is done`] : []),
    ...(claimed.length > 0 ? [`Claimed but still reported: ${idList(claimed)}: closed by hand as fixed, but the tool still reports them; check the fix`] : []),
  ];
}

/**
 * Claims a tool disputes: gaps closed by hand (RESOLVED, ACCEPTED) that a
 * source's snapshot still reported, so it reopened them, and that have not
 * closed since; in the inventory's order.
 */
export function claimedGaps(view: Pick<SessionView, 'gaps'>): string[] {
  const claimed: string[] = [];
  for (const gap of view.gaps.values()) if (gap.claimed && STATE_CLASS[gap.state] !== 'closed') claimed.push(gap.id);
  return claimed;
}

function stillOpen(view: Pick<SessionView, 'gaps'>, ids: readonly string[]): string[] {
  return ids.filter((id) => {
    const gap = view.gaps.get(id);
    return gap !== undefined && STATE_CLASS[gap.state] !== 'closed';
  });
}

/** How many ids a sentence names before it counts the rest. */
const IDS_NAMED = 10;

/** `A, B, C` or, past IDS_NAMED, the first ones and `and N more`. */
export function idList(ids: readonly string[]): string {
  return ids.length <= IDS_NAMED ? ids.join(', ') : `${ids.slice(0, IDS_NAMED).join(', ')} and ${ids.length - IDS_NAMED} more`;
}

/** Whether a verification run passed: it exited 0 within its time limit. */
export function verificationPassed(run: { exitCode: number | null; timedOut: boolean }): boolean {
  return run.exitCode === 0 && !run.timedOut;
}

/*
 * How many more rounds the gaps need, read off the weighted open count at
 * the end of each closed round: a straight line fitted by least squares
 * through the last rounds, and where it reaches zero. Pure arithmetic on a
 * list of numbers, so `next` answers it from the head checkpoint.
 */

/** How many of the last closed rounds the main fit reads. */
export const FORECAST_WINDOW = 4;

/** How many of the last closed rounds' counts a forecast reads at most: the widest fit's (the window and one more). */
export const FORECAST_ROUNDS = FORECAST_WINDOW + 1;

/** Why there is an estimate (`declining`), or why there is none. */
export type ForecastReason = 'declining' | 'too_few_rounds' | 'no_downward_trend' | 'already_done';

export interface Forecast {
  reason: ForecastReason;
  /**
   * More rounds after the last closed one until the weighted open count
   * reaches zero, as a range; null when the reason is not `declining`.
   */
  rounds: { low: number; high: number } | null;
  /** The rounds the range ends in (the last closed round plus `rounds`); null with `rounds`. */
  finish: { low: number; high: number } | null;
  /** The main fit's window (closed rounds read) and its slope (weighted open per round, two decimals); slope null with too few rounds. */
  window: number;
  slope: number | null;
  /** One line for people: the estimate and its basis, or why there is none. */
  detail: string;
}

interface Line {
  slope: number;
  intercept: number;
}

/** The least-squares line through (x, y) points (at least two, with distinct x). */
function fit(points: readonly (readonly [number, number])[]): Line {
  const n = points.length;
  const meanX = points.reduce((sum, [x]) => sum + x, 0) / n;
  const meanY = points.reduce((sum, [, y]) => sum + y, 0) / n;
  let sxy = 0;
  let sxx = 0;
  for (const [x, y] of points) {
    sxy += (x - meanX) * (y - meanY);
    sxx += (x - meanX) ** 2;
  }
  const slope = sxy / sxx;
  return { slope, intercept: meanY - slope * meanX };
}

/** The line fitted through the last `window` points of `series`, whose last point is round `last`'s. */
function fitLast(series: readonly number[], window: number, last: number): Line {
  const points = series.slice(-window).map((y, i) => [last - window + i + 1, y] as const);
  return fit(points);
}

/** Rounds after round `last` until `line` reaches zero (0 or less when it already has). */
function roundsToZero(line: Line, last: number): number {
  return -(line.intercept + line.slope * last) / line.slope;
}

const twoDecimals = (value: number) => Math.round(value * 100) / 100;

/**
 * The forecast from `series`, the weighted open count at the end of the
 * closed rounds, oldest first, the last of them round `last` (the series may
 * start after round 1: only its last FORECAST_ROUNDS are read). The main fit reads the last
 * `window` rounds; it must slope down. The range spans where that line and
 * the lines through one round fewer and one round more (where there are
 * that many, and at least two) reach zero, over those that slope down:
 * rounded outward to whole rounds, and at least one round, since a count
 * above zero needs another round to reach it.
 */
export function forecast(series: readonly number[], window = FORECAST_WINDOW, last = series.length): Forecast {
  const unknown = (reason: ForecastReason, slope: number | null, detail: string): Forecast => ({ reason, rounds: null, finish: null, window, slope, detail });
  if (series.length > 0 && series.at(-1) === 0) return unknown('already_done', null, 'nothing weighted is left open');
  if (last < window || series.length < window) {
    return unknown('too_few_rounds', null, `unknown: a trend needs ${window} closed rounds, and ${last} ${last === 1 ? 'has' : 'have'} closed`);
  }
  const main = fitLast(series, window, last);
  const slope = twoDecimals(main.slope);
  if (!(main.slope < 0)) {
    return unknown(
      'no_downward_trend',
      slope,
      `unknown: the weighted open count is not falling (slope ${formatSlope(slope)} per round over the last ${window} rounds)`,
    );
  }
  const estimates = [window - 1, window, window + 1]
    .filter((w) => w >= 2 && w <= series.length)
    .map((w) => (w === window ? main : fitLast(series, w, last)))
    .filter((line) => line.slope < 0)
    .map((line) => roundsToZero(line, last));
  const low = Math.max(1, Math.floor(Math.min(...estimates)));
  const high = Math.max(low, Math.ceil(Math.max(...estimates)));
  const range = low === high ? `${low} more round${low === 1 ? '' : 's'}` : `${low}–${high} more rounds`;
  const by = low === high ? `round ${last + low}` : `rounds ${last + low}–${last + high}`;
  return {
    reason: 'declining',
    rounds: { low, high },
    finish: { low: last + low, high: last + high },
    window,
    slope,
    detail: `done in ${range} (${by}): a least-squares line through the weighted open count of the last ${window} rounds falls ${-slope} a round from ${formatCount(series.at(-1)!)} now`,
  };
}

function formatSlope(slope: number): string {
  return slope > 0 ? `+${slope}` : String(slope);
}

/**
 * The main fit's value at each round from 0 (the start) to the first round
 * it reaches zero in (at least the round after the last closed one), none
 * below zero: the trend a chart draws beside the counts. Null when the
 * forecast has no estimate.
 */
export function trendLine(series: readonly number[], window = FORECAST_WINDOW): number[] | null {
  if (forecast(series, window).reason !== 'declining') return null;
  const line = fitLast(series, window, series.length);
  const through = Math.max(series.length + 1, Math.ceil(-line.intercept / line.slope));
  return Array.from({ length: through + 1 }, (_, x) => Math.max(0, line.intercept + line.slope * x));
}

/*
 * The forecast of a session's view: from the weighted open count at the
 * last few closes, which the view keeps (the head checkpoint too), so `next`
 * reads it without the session's history.
 */

/**
 * The session's forecast: null once it is COMPLETE (no round is left to
 * forecast), and when no policy it runs reads gap events (there is no
 * weighted open count to read).
 */
export function viewForecast(view: Pick<SessionView, 'policies' | 'weightedOpenEnds' | 'machine' | 'rounds'>): Forecast | null {
  return view.machine.state !== 'COMPLETE' && tracksGaps(view) ? forecast(view.weightedOpenEnds, FORECAST_WINDOW, lastClosedRound(view)?.round ?? 0) : null;
}

/**
 * The warning `next` gives while the forecast's earliest finish lies past
 * the round limit, naming the decisions that answer it; empty otherwise.
 */
export function forecastPastLimit(view: Pick<SessionView, 'policies' | 'weightedOpenEnds' | 'machine' | 'settings' | 'config' | 'rounds'>): string {
  const limit = roundLimit(view);
  const finish = viewForecast(view)?.finish;
  if (limit === null || !finish || finish.low <= limit) return '';
  const by = finish.low === finish.high ? `round ${finish.low}` : `rounds ${finish.low}–${finish.high}`;
  return `; the forecast finishes in ${by}, past max_rounds (${limit}): narrow the scope or extend the limit (decide extend-rounds N) before round ${limit} closes`;
}

/*
 * What a session's policies say of its view: which run, which record
 * metrics, their verdicts, how a round is judged. From the policies' rules
 * alone (no schema is parsed here, so no zod is loaded: `next` and a stop
 * hook read these); what settings make of them is the fold's (evolve.ts).
 */

function policiesOf(enabled: readonly string[]): AnyPolicyRules[] {
  return enabled.map(policyRulesNamed).filter((p): p is AnyPolicyRules => p !== undefined);
}

/** The enabled policies that record metrics (every one that does not read gap events), in the session's order. */
export function metricPoliciesOf(enabled: readonly string[]): AnyPolicyRules[] {
  return policiesOf(enabled).filter((p) => !p.readsGapEvents);
}

/**
 * The policy a session runs alone, when it has words of its own for the
 * session's story (the gap policy: status.md's State History and the decision
 * prompt); null when several policies run, or the one has none.
 */
export function soleNarrator(view: Pick<SessionView, 'policies'>): AnyPolicyRules | null {
  const [only, ...others] = policiesOf(view.policies.enabled);
  return only?.narrate && others.length === 0 ? only : null;
}

/** Whether a policy this session runs reads gap events: then gaps drive its rounds, and status.md shows them. */
export function tracksGaps(view: Pick<SessionView, 'policies'>): boolean {
  return readsGapEvents(view.policies.enabled);
}

/** Whether any of the `enabled` policies reads gap events. */
export function readsGapEvents(enabled: readonly string[]): boolean {
  return policiesOf(enabled).some((p) => p.readsGapEvents);
}

/**
 * A policy's verdict as it stands: a metric policy's over its metrics so far
 * (null before its first iteration), judging `round` when one is being
 * judged, else the last closed one with the forecast as it stands; a
 * gap-reading policy's as the last closed round recorded it (null before
 * round 1 closes).
 */
export function currentVerdict(view: StandingView, policy: AnyPolicyRules): PolicyVerdict | null {
  if (policy.readsGapEvents) return lastClosedRound(view)?.verdicts.find((v) => v.policy === policy.name) ?? null;
  return metricVerdict(view, policy, standingInput(view));
}

/** A metric policy's verdict over its metrics so far, judging `round`; null before its first iteration. */
function metricVerdict(view: Pick<SessionView, 'policies'>, policy: AnyPolicyRules, round: RoundInput | undefined): PolicyVerdict | null {
  const history = (view.policies.records.get(policy.name) ?? []).map((r) => r.metrics);
  return history.length === 0 ? null : policy.verdict(view.policies.settings.get(policy.name), history, round);
}

/** What a standing verdict is read against. */
type StandingView = Pick<SessionView, 'policies' | 'rounds' | 'weightedOpenEnds' | 'config' | 'machine'>;

/** The last closed round as a metric policy's standing verdict reads it, with the forecast so far; undefined before round 1 closes. */
export function standingInput(view: StandingView): RoundInput | undefined {
  const last = lastClosedRound(view);
  return last && roundInput(last, view.config, view.machine.flatCount, tracksGaps(view) ? { series: view.weightedOpenEnds, last: last.round } : undefined);
}

/**
 * What a round hands its policies: its gap figures (open count at its
 * close), the thresholds, the flat count after it, and, given the weighted
 * open count at each closed round's end through this one, the rounds the
 * forecast says the gaps still need.
 */
export function roundInput(
  round: RoundFigures,
  config: ConvergenceConfig,
  flatCount: number,
  weighted?: { series: readonly number[]; last: number },
): RoundInput {
  const input = { gaps: { ...round, openCount: round.openEnd ?? 0 }, config, flatCount };
  return weighted === undefined ? input : { ...input, forecast: forecast(weighted.series, FORECAST_WINDOW, weighted.last).rounds };
}

/**
 * A guard's limit (a spent budget) ends the session as the round limit does
 * (R12), over any policy's warning: once the money is gone, asking the user
 * whether to go on would only spend more.
 */
function guardLimitOverWarning(combined: CombinedVerdict, verdicts: readonly NamedVerdict[]): CombinedVerdict {
  const spent = verdicts.filter((v) => v.verdict === 'limit' && policyRulesNamed(v.policy)?.guard === true);
  if (combined.verdict !== 'diverging' || spent.length === 0) return combined;
  return { verdict: 'limit', reason: spent[0]!.reason, policies: spent.map((v) => v.policy), detail: spent.map((v) => `${v.policy}: ${v.detail}`).join('; ') };
}

/** Whether a verdict speaks in the combination: every one but a guard's that neither stops nor warns. */
function speaks(verdict: NamedVerdict): boolean {
  return !policyRulesNamed(verdict.policy)?.guard || verdict.verdict === 'limit' || verdict.verdict === 'diverging';
}

/**
 * Which session rules a round close is judged by: today's, or those of the
 * versions that wrote no outcome (event versions 1 and 2), under which R12
 * bound only a session without the gap policy (whose own verdict carried
 * it). An old line's missing outcome is computed by the rules that wrote it.
 */
export type SessionRules = 'current' | 'before-v4';

/**
 * The one judge of a closing round: every enabled policy's verdict, combined
 * by the session's rule (R15), then R12 (an empty inventory, the round limit)
 * for whatever combination runs. The machine reads the combined verdict alone.
 */
export function judgeRound(
  view: Pick<SessionView, 'policies' | 'settings' | 'rounds' | 'weightedOpenEnds'>,
  round: RoundFigures,
  config: ConvergenceConfig,
  rules: SessionRules = 'current',
): { verdicts: NamedVerdict[]; combined: CombinedVerdict } {
  const verdicts: NamedVerdict[] = [];
  // The forecast reads the weighted open count through this round's close (none without an inventory).
  // The closing round's own number ends the series: counting the closed rounds would walk them all, on the draft a write decides on.
  const series = tracksGaps(view) ? { series: [...view.weightedOpenEnds, round.weightedOpenEnd ?? round.weightedOpenStart], last: round.round } : undefined;
  for (const policy of policiesOf(view.policies.enabled)) {
    const verdict = policy.readsGapEvents
      ? policy.verdict(undefined, [], roundInput(round, config, 0))
      : metricVerdict(view, policy, roundInput(round, config, 0, series));
    if (verdict) verdicts.push({ policy: policy.name, ...verdict });
  }
  const combined = guardLimitOverWarning(combine(verdicts.filter(speaks), view.policies.completeWhen), verdicts);
  const gaps = tracksGaps(view);
  // Before version 4, R12 bound only a session without the gap policy, and a stop request stood at the limit.
  if (rules === 'before-v4' && (gaps || combined.verdict === 'stopped')) return { verdicts, combined };
  const bounds = { round: round.round, maxRounds: roundLimit({ ...view, config }), openCount: gaps ? (round.openEnd ?? 0) : null };
  return { verdicts, combined: withSessionRules(combined, bounds) };
}

/**
 * The round limit that applies: `max_rounds` when a policy that reads gap
 * events runs (its rounds are the session's, R12), and otherwise only when
 * the session set one; null: each policy's own maximum, so the session
 * default does not cut atoms' 20 iterations to 10.
 */
export function roundLimit(view: Pick<SessionView, 'policies' | 'settings' | 'config'>): number | null {
  return tracksGaps(view) || view.settings?.maxRounds !== undefined ? view.config.maxRounds : null;
}

/** The enabled metric policies with no metrics for `round` yet. */
export function missingMetrics(view: Pick<SessionView, 'policies'>, round: number): string[] {
  return metricPoliciesOf(view.policies.enabled)
    .filter((p) => !(view.policies.records.get(p.name) ?? []).some((r) => r.round === round))
    .map((p) => p.name);
}

/** One enabled policy as `state --json` shows it: its current verdict, the figures behind it, and its latest metrics. */
export interface PolicyState {
  name: string;
  verdict: PolicyVerdict['verdict'] | null;
  reason: string | null;
  detail: string | null;
  figures: PolicyVerdict['figures'];
  /** The latest metrics recorded (for gaps: the open counts now); null before the first. */
  metrics: unknown;
  iterations: number;
}

function stateOf(name: string, verdict: PolicyVerdict | null, metrics: unknown, iterations: number): PolicyState {
  return {
    name,
    verdict: verdict?.verdict ?? null,
    reason: verdict?.reason ?? null,
    detail: verdict?.detail ?? null,
    figures: verdict?.figures ?? {},
    metrics,
    iterations,
  };
}

export function policyStates(view: SessionView): PolicyState[] {
  return policiesOf(view.policies.enabled).map((policy) => {
    const verdict = currentVerdict(view, policy);
    if (policy.readsGapEvents) {
      const iterations = closedRoundCount(view);
      return stateOf(policy.name, verdict, { openCount: view.open.count, weightedOpen: view.open.weighted }, iterations);
    }
    const records = view.policies.records.get(policy.name) ?? [];
    return stateOf(policy.name, verdict, records.at(-1)?.metrics ?? null, records.length);
  });
}

export type NextAction = 'continue' | 'ask_user' | 'stop';

/** What the loop should do now: go on, put a decision to the user, or stop. */
export function nextStep(view: SessionView): { action: NextAction; reason: string } {
  const { state, outcome, flatCount } = view.machine;
  const closed = closedRoundCount(view);
  const lastReason = view.history.at(-1)?.reason;
  const lastRoundReason = view.history.findLast((h) => h.cause === 'round')?.reason;
  switch (state) {
    case 'COMPLETE':
      return { action: 'stop', reason: `the session is COMPLETE (${outcome})${lastReason ? `: ${lastReason}` : ''}` };
    case 'PAUSED':
      return { action: 'stop', reason: 'the session is PAUSED; resuming picks it up where it was' };
    case 'DIVERGENCE_WARNING':
      return {
        action: 'ask_user',
        reason: `DIVERGENCE_WARNING${lastRoundReason ? ` (${lastRoundReason})` : ''}: the user must decide before the next round; the decision prompt shows the options`,
      };
    default: {
      const flat = `${state === 'FLAT' ? `; no net progress (${flatCount}/${view.config.stallThreshold} toward stall)` : ''}${lastRoundWarning(view)}${failedCheck(view)}`;
      if (!tracksGaps(view)) {
        const due = view.roundOpen ? missingMetrics(view, closed + 1) : metricPoliciesOf(view.policies.enabled).map((p) => p.name);
        // Every policy recorded but the round still open (its automatic close was lost to a crash): close it.
        const work = due.length > 0 ? `record ${due.join(', ')} for round ${closed + 1}` : `close round ${closed + 1}`;
        return { action: 'continue', reason: `${state}: ${work}${flat}` };
      }
      const missing = view.roundOpen ? missingMetrics(view, closed + 1) : [];
      const record = missing.length > 0 ? `record ${missing.join(', ')}, ` : '';
      const work = view.roundOpen ? `round ${closed + 1} is open: work on the open gaps, ${record}then close it` : `start round ${closed + 1}`;
      const open = `; ${formatCount(view.open.count)} open`;
      const claimed = claimedGaps(view);
      const claims = claimed.length > 0 ? `; claimed but still reported: ${idList(claimed)}` : '';
      return { action: 'continue', reason: `${state}: ${work}${flat}${open}${claims}${forecastPastLimit(view)}` };
    }
  }
}

/**
 * R24: whether the next round to close (the open one, or the next to
 * start) is the last the round limit allows; false where no limit applies.
 */
export function nextRoundIsLast(view: SessionView): boolean {
  const limit = roundLimit(view);
  return limit !== null && closedRoundCount(view) + 1 >= limit;
}

/** The warning `next` gives before the last round, naming the decision that allows more; empty otherwise. */
function lastRoundWarning(view: SessionView): string {
  if (!nextRoundIsLast(view)) return '';
  const last = closedRoundCount(view) + 1;
  return `; round ${last} is the last: closing it ends the session at max_rounds (${view.config.maxRounds}) unless the user extends the limit (decide extend-rounds N)`;
}

/**
 * The verification gate's failing run, while nothing has moved past it (no
 * round closed since): why the session did not complete; empty otherwise.
 */
function failedCheck(view: SessionView): string {
  const run = view.verification;
  if (run === null || run.passed || run.afterRound !== closedRoundCount(view)) return '';
  const retry = run.gates === 'approve' ? 'approve again' : view.roundOpen ? 'close the round again' : 'close the next round';
  return `; the verification check failed (${runWords(run)}), so the session did not complete: fix what it reports, then ${retry} (the check runs again)`;
}

/**
 * The `gapflow state --json` contract: plain data a script in any language
 * can read. The CLI stores what it prints, keyed by STATE_JSON_SHAPE
 * (src/session/state-format.ts): a change here within a version bumps it.
 */
export function toStateJson(view: SessionView) {
  const closed = closedRounds(view);
  const decision: { action: NextAction; reason: string } = nextStep(view);
  const claimed = claimedGaps(view);
  return {
    state: view.machine.state,
    outcome: view.machine.outcome,
    round: closed.length,
    roundOpen: view.roundOpen,
    flatCount: view.machine.flatCount,
    openGapCount: view.open.count,
    weightedOpen: view.open.weighted,
    config: { ...view.config },
    preset: view.settings?.preset ?? null,
    baselineGapCount: view.baselineGapCount,
    decision,
    forecast: viewForecast(view),
    focus: [...view.focus],
    baseline: view.baseline ? { ...view.baseline } : null,
    pausedFrom: view.machine.pausedFrom,
    agentSession: view.agentSession,
    // R22, R23: shown once a session has any (every key below that is conditional keeps older sessions' output as it was).
    ...(view.renames.length > 0 ? { renames: view.renames.map(({ from, to, afterRound }) => ({ from, to, afterRound })) } : {}),
    ...untriaged(view),
    // Shown once they say something: a gap in a fix-break cycle, an open count going back and forth, a verification check.
    ...(pingPongGaps(view).length > 0 ? { pingPong: pingPongGaps(view) } : {}),
    ...(alternatingOpenCount(view) ? { openCountAlternating: alternatingOpenCount(view) } : {}),
    ...(view.settings?.verify ? { verification: { ...view.settings.verify, lastRun: lastRun(view) } } : {}),
    // Findings from tools: each source's last snapshot, and the claims they dispute (once a tool's snapshot came).
    ...(view.sources.length > 0 ? { sources: view.sources.map((record) => ({ ...record, claimed: [...record.claimed] })) } : {}),
    ...(claimed.length > 0 ? { claimedStillReported: claimed } : {}),
    rounds: closed.map((r) => ({
      round: r.round,
      // R25, R26: only where they say something, so a session of work rounds without a focus reads as it always did.
      ...(r.kind === 'work' ? {} : { kind: r.kind }),
      openStart: r.openStart,
      resolved: r.resolved,
      new: r.new,
      openEnd: r.openEnd,
      unweightedNet: r.unweightedNet,
      weightedNet: r.weightedNet,
      weightedResolved: r.weightedResolved,
      weightedNew: r.weightedNew,
      ...(r.withdrawn > 0
        ? { withdrawn: r.withdrawn, weightedWithdrawn: r.weightedWithdrawn, withdrawnGaps: r.withdrawnGaps.map(({ id, of }) => ({ id, of })) }
        : {}),
      ...(r.splits.length > 0 ? { splits: r.splits.map(({ id, into, delta }) => ({ id, into: [...into], weightDelta: delta })) } : {}),
      state: r.state,
      flatCount: r.flatCount,
      ...(r.outsideFocus.length === 0 ? {} : { outsideFocus: [...r.outsideFocus] }),
      verdicts: r.verdicts.map(({ policy, verdict, reason }) => ({ policy, verdict, reason })),
      ...(r.combined ? { verdict: { verdict: r.combined.verdict, reason: r.combined.reason, policies: [...r.combined.policies] } } : {}),
    })),
    history: view.history.map(({ round, from, to, reason }) => ({ round, from, to, reason })),
    gaps: [...view.gaps.values()].map((g) => ({
      id: g.id,
      severity: g.severity,
      state: g.state,
      title: g.title,
      spawnedBy: g.spawnedBy,
      blocking: g.blocking,
      openedInRound: g.openedInRound,
      ...(g.blockedBy ? { blockedBy: g.blockedBy } : {}),
      ...(g.duplicateOf ? { duplicateOf: g.duplicateOf } : {}),
      ...(g.splitInto ? { splitInto: [...g.splitInto] } : {}),
      ...(g.splitFrom ? { splitFrom: g.splitFrom } : {}),
      ...(g.source ? { source: g.source } : {}),
    })),
    completeWhen: view.policies.completeWhen,
    policies: policyStates(view),
    eventCount: view.lastSeq,
  };
}

/** R23: how many gaps not closed are untriaged, when any is. */
function untriaged(view: SessionView): { untriagedGapCount?: number } {
  let count = 0;
  for (const gap of view.gaps.values()) if (gap.severity === 'UNTRIAGED' && STATE_CLASS[gap.state] !== 'closed') count += 1;
  return count > 0 ? { untriagedGapCount: count } : {};
}

export type StateJson = ReturnType<typeof toStateJson>;

/** The verification gate's last run, as `state --json` shows it. */
function lastRun(view: SessionView) {
  const run = view.verification;
  if (run === null) return null;
  const { seq: _seq, ...shown } = run;
  return shown;
}

/*
 * The head checkpoint's text of a view: its summary (what a fleet row shows) in front of the cut head.
 */

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
  const { head } = cutHead(view, keep, listed, whole);
  return encodeCutHead(head, closed, summaryOf(head));
}
