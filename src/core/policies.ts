import { formatIssue, type SessionSettings } from '../../events/index.js';
import {
  combine,
  DEFAULT_POLICIES,
  POLICY_NAMES,
  policyNamed,
  withSessionRules,
  type AnyPolicy,
  type CombinedVerdict,
  type NamedVerdict,
  type PolicyVerdict,
  type RoundInput,
} from '../policies/index.js';
import type { ConvergenceConfig } from '../../machines/index.js';
import type { Remedy } from './refusal.js';
import type { PolicyView, RoundFigures, SessionView } from './view.js';

/** The policies a session runs: the ones it named, else the default (the gap policy alone). */
export function enabledPolicies(settings: SessionSettings | null): string[] {
  return [...(settings?.policies ?? DEFAULT_POLICIES)];
}

export function initialPolicies(): PolicyView {
  return { enabled: [...DEFAULT_POLICIES], completeWhen: 'all', settings: new Map(), records: new Map() };
}

/**
 * The view's policies once session.started is known. Settings were judged
 * when the session was decided; an old line's settings that today's schema
 * cannot read fall back to the policy's defaults (and `verify` names them).
 */
export function policiesFor(settings: SessionSettings): PolicyView {
  const enabled = enabledPolicies(settings);
  const view: PolicyView = { enabled, completeWhen: settings.completeWhen ?? 'all', settings: new Map(), records: new Map() };
  for (const policy of metricPoliciesOf(enabled)) {
    const parsed = policy.settings.safeParse(settings.policySettings?.[policy.name] ?? {});
    view.settings.set(policy.name, parsed.success ? parsed.data : policy.settings.parse({}));
    view.records.set(policy.name, []);
  }
  return view;
}

function policiesOf(enabled: readonly string[]): AnyPolicy[] {
  return enabled.map(policyNamed).filter((p): p is AnyPolicy => p !== undefined);
}

/** The enabled policies that record metrics (every one that does not read gap events), in the session's order. */
export function metricPoliciesOf(enabled: readonly string[]): AnyPolicy[] {
  return policiesOf(enabled).filter((p) => !p.readsGapEvents);
}

/**
 * The policy a session runs alone, when it has words of its own for the
 * session's story (the gap policy: seed 003's State History and decision
 * prompt); null when several policies run, or the one has none.
 */
export function soleNarrator(view: Pick<SessionView, 'policies'>): AnyPolicy | null {
  const [only, ...others] = policiesOf(view.policies.enabled);
  return only?.narrate && others.length === 0 ? only : null;
}

/** Whether a policy this session runs reads gap events: then gaps drive its rounds, and status.md shows them. */
export function tracksGaps(view: Pick<SessionView, 'policies'>): boolean {
  return readsGapEvents(view.policies.enabled);
}

function readsGapEvents(enabled: readonly string[]): boolean {
  return policiesOf(enabled).some((p) => p.readsGapEvents);
}

/** Why session.started's policy settings cannot be taken (with what would make them possible), or null when they can. */
export function policySettingsProblem(settings: SessionSettings): [why: string, remedy?: Remedy] | null {
  const enabled = enabledPolicies(settings);
  for (const name of enabled) {
    if (!POLICY_NAMES.includes(name)) return [`unknown policy "${name}" (known: ${POLICY_NAMES.join(', ')})`];
  }
  if (new Set(enabled).size !== enabled.length) return ['a policy is named twice'];
  if (!readsGapEvents(enabled)) {
    // Settings only the gap policy reads would be taken and silently ignored.
    // (A preset stays: its stall threshold applies to any policy's flat verdicts.)
    const gapOnly = (['divergenceThreshold', 'criticalOverride'] as const).filter((key) => settings[key] !== undefined);
    if (gapOnly.length > 0) return [`${gapOnly.join(', ')}: a setting of the gap policy, which this session does not enable`, 'enable_gap_policy'];
  }
  for (const [name, raw] of Object.entries(settings.policySettings ?? {})) {
    const policy = policyNamed(name);
    if (!policy) return [`settings for unknown policy "${name}"`];
    if (policy.readsGapEvents) return [`the ${name} policy takes the session's own settings (stall threshold, divergence threshold, critical override), not policy settings`];
    if (!enabled.includes(name)) return [`settings for ${name}, which is not enabled (enabled: ${enabled.join(', ')})`];
    const parsed = policy.settings.safeParse(raw);
    if (!parsed.success) return [`${name} settings: ${formatIssue(parsed.error)}`];
  }
  return null;
}

/** The session's stall threshold when one metric policy runs alone and names one (seed 001's max_stall_count). */
export function soloStallThreshold(settings: SessionSettings): number | undefined {
  const enabled = enabledPolicies(settings);
  const only = enabled.length === 1 ? policyNamed(enabled[0]!) : undefined;
  if (!only?.soloStallThreshold) return undefined;
  const parsed = only.settings.safeParse(settings.policySettings?.[only.name] ?? {});
  return parsed.success ? only.soloStallThreshold(parsed.data) : undefined;
}

/**
 * A policy's verdict as it stands: a metric policy's over its metrics so far
 * (null before its first iteration); a gap-reading policy's as the last
 * closed round recorded it (null before round 1 closes).
 */
export function currentVerdict(view: Pick<SessionView, 'policies' | 'rounds'>, policy: AnyPolicy): PolicyVerdict | null {
  if (policy.readsGapEvents) return lastClosed(view)?.verdicts.find((v) => v.policy === policy.name) ?? null;
  const history = (view.policies.records.get(policy.name) ?? []).map((r) => r.metrics);
  return history.length === 0 ? null : policy.verdict(view.policies.settings.get(policy.name), history);
}

function lastClosed(view: Pick<SessionView, 'rounds'>): RoundFigures | undefined {
  return view.rounds.findLast((r) => r.openEnd !== null);
}

/** What a round hands its policies: its gap figures (open count at its close), the thresholds, the flat count after it. */
export function roundInput(round: RoundFigures, config: ConvergenceConfig, flatCount: number): RoundInput {
  return { gaps: { ...round, openCount: round.openEnd ?? 0 }, config, flatCount };
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
  view: Pick<SessionView, 'policies' | 'settings' | 'rounds'>,
  round: RoundFigures,
  config: ConvergenceConfig,
  rules: SessionRules = 'current',
): { verdicts: NamedVerdict[]; combined: CombinedVerdict } {
  const verdicts: NamedVerdict[] = [];
  for (const policy of policiesOf(view.policies.enabled)) {
    const verdict = policy.readsGapEvents
      ? policy.verdict(undefined, [], roundInput(round, config, 0))
      : currentVerdict(view, policy);
    if (verdict) verdicts.push({ policy: policy.name, ...verdict });
  }
  const combined = combine(verdicts, view.policies.completeWhen);
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
