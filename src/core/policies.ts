import {
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
import { forecast, FORECAST_WINDOW } from './forecast.js';
import { lastClosedRound } from './inventory.js';
import type { RoundFigures, SessionView } from './view.js';

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
      const iterations = view.rounds.filter((r) => r.openEnd !== null).length;
      return stateOf(policy.name, verdict, { openCount: view.open.count, weightedOpen: view.open.weighted }, iterations);
    }
    const records = view.policies.records.get(policy.name) ?? [];
    return stateOf(policy.name, verdict, records.at(-1)?.metrics ?? null, records.length);
  });
}
