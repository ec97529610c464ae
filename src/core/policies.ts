import { formatIssue, type SessionSettings } from '../../events/index.js';
import {
  combine,
  GAPS,
  gapVerdict,
  POLICY_NAMES,
  policyNamed,
  type AnyPolicy,
  type CombinedVerdict,
  type NamedVerdict,
  type PolicyVerdict,
} from '../policies/index.js';
import type { ConvergenceConfig } from '../../machines/index.js';
import type { PolicyView, RoundFigures, SessionView } from './view.js';

/** The policies a session runs: the ones it named, else the gap policy alone. */
export function enabledPolicies(settings: SessionSettings | null): string[] {
  return settings?.policies ? [...settings.policies] : [GAPS];
}

export function initialPolicies(): PolicyView {
  return { enabled: [GAPS], completeWhen: 'all', settings: new Map(), records: new Map() };
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

/** The enabled policies that record metrics (every one but gaps), in the session's order. */
export function metricPoliciesOf(enabled: readonly string[]): AnyPolicy[] {
  return enabled.map(policyNamed).filter((p): p is AnyPolicy => p !== undefined);
}

export function gapsEnabled(view: Pick<SessionView, 'policies'>): boolean {
  return view.policies.enabled.includes(GAPS);
}

/** Why session.started's policy settings cannot be taken, or null when they can. */
export function policySettingsProblem(settings: SessionSettings): string | null {
  const enabled = enabledPolicies(settings);
  for (const name of enabled) {
    if (!POLICY_NAMES.includes(name)) return `unknown policy "${name}" (known: ${POLICY_NAMES.join(', ')})`;
  }
  if (new Set(enabled).size !== enabled.length) return 'a policy is named twice';
  if (!enabled.includes(GAPS)) {
    // Settings only the gap policy reads would be taken and silently ignored.
    // (A preset stays: its stall threshold applies to any policy's flat verdicts.)
    const gapOnly = (['divergenceThreshold', 'criticalOverride'] as const).filter((key) => settings[key] !== undefined);
    if (gapOnly.length > 0) return `${gapOnly.join(', ')}: a setting of the gap policy, which this session does not enable (add gaps to --policy, or leave it out)`;
  }
  for (const [name, raw] of Object.entries(settings.policySettings ?? {})) {
    const policy = policyNamed(name);
    if (!policy) return name === GAPS ? 'the gap policy takes the session\'s own settings (--stall-threshold …), not policy settings' : `settings for unknown policy "${name}"`;
    if (!enabled.includes(name)) return `settings for ${name}, which is not enabled (enabled: ${enabled.join(', ')})`;
    const parsed = policy.settings.safeParse(raw);
    if (!parsed.success) return `${name} settings: ${formatIssue(parsed.error)}`;
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

/** A metric policy's verdict over its metrics so far; null before its first iteration. */
export function currentVerdict(view: Pick<SessionView, 'policies'>, policy: AnyPolicy): PolicyVerdict | null {
  const history = (view.policies.records.get(policy.name) ?? []).map((r) => r.metrics);
  return history.length === 0 ? null : policy.verdict(view.policies.settings.get(policy.name), history);
}

/**
 * Every enabled policy's verdict on a closing round, and, when any policy
 * besides gaps runs, the combined verdict that drives the machine.
 */
export function roundVerdicts(
  view: Pick<SessionView, 'policies' | 'settings'>,
  round: RoundFigures,
  config: ConvergenceConfig,
): { verdicts: NamedVerdict[]; combined: CombinedVerdict | null } {
  const verdicts: NamedVerdict[] = [];
  for (const name of view.policies.enabled) {
    if (name === GAPS) {
      verdicts.push({ policy: GAPS, ...gapVerdict({ ...round, openCount: round.openEnd ?? 0 }, config) });
      continue;
    }
    const policy = policyNamed(name);
    const verdict = policy ? currentVerdict(view, policy) : null;
    if (verdict) verdicts.push({ policy: name, ...verdict });
  }
  const onlyGaps = view.policies.enabled.length === 1 && view.policies.enabled[0] === GAPS;
  if (onlyGaps) return { verdicts, combined: null };
  return { verdicts, combined: withRoundLimit(view, round, config, combine(verdicts, view.policies.completeWhen)) };
}

/**
 * The round limit that applies: `max_rounds` with the gap policy (R12), and
 * without it only when the session set one; null: each policy's own maximum.
 */
export function roundLimit(view: Pick<SessionView, 'policies' | 'settings' | 'config'>): number | null {
  return gapsEnabled(view) || view.settings?.maxRounds !== undefined ? view.config.maxRounds : null;
}

/**
 * R12's round limit for a session without the gap policy (whose own verdict
 * carries it otherwise): an explicit `max_rounds` ends the session at that
 * round unless it converged there. Without one, each policy's own maximum
 * rules, so the session default does not cut atoms' 20 iterations to 10.
 */
function withRoundLimit(view: Pick<SessionView, 'policies' | 'settings'>, round: RoundFigures, config: ConvergenceConfig, combined: CombinedVerdict): CombinedVerdict {
  if (gapsEnabled(view) || roundLimit({ ...view, config }) === null || round.round < config.maxRounds) return combined;
  if (combined.verdict === 'converged' || combined.verdict === 'limit') return combined;
  return { verdict: 'limit', reason: 'max_rounds', policies: [], detail: `round ${round.round}: max_rounds (${config.maxRounds}) reached` };
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
  return view.policies.enabled.map((name) => {
    if (name === GAPS) {
      const closed = view.rounds.filter((r) => r.openEnd !== null);
      const verdict = closed.at(-1)?.verdicts.find((v) => v.policy === GAPS) ?? null;
      return stateOf(name, verdict, { openCount: view.open.count, weightedOpen: view.open.weighted }, closed.length);
    }
    const records = view.policies.records.get(name) ?? [];
    return stateOf(name, currentVerdict(view, policyNamed(name)!), records.at(-1)?.metrics ?? null, records.length);
  });
}

