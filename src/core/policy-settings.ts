import { formatIssue, oneOf, respelled, shownValue, type SessionSettings } from '../../events/index.js';
import type { ConvergenceConfig } from '../../machines/index.js';
import { DEFAULT_POLICIES, POLICY_NAMES, policyNamed, policyRulesNamed } from '../policies/index.js';
import { metricPoliciesOf, readsGapEvents } from './policies.js';
import type { Remedy } from './refusal.js';
import { DEFAULT_CONFIG, PRESETS, presetForBaseline } from './rules.js';
import type { PolicyView } from './view.js';

/*
 * What a session's settings make of its policies and thresholds: each
 * policy's settings parsed by its schema, and the thresholds the session
 * runs under. The one part of the policy rules that parses (and so loads
 * zod): the session reads it when it starts or replays, never a reader of
 * the head checkpoint.
 */

/** The policies a session runs: the ones it named, else the default (the gap policy alone). */
export function enabledPolicies(settings: SessionSettings | null): string[] {
  return [...(settings?.policies ?? DEFAULT_POLICIES)];
}

/**
 * The view's policies once session.started is known. Settings were judged
 * when the session was decided; an old line's settings that today's schema
 * cannot read fall back to the policy's defaults (and `verify` names them).
 */
export function policiesFor(settings: SessionSettings): PolicyView {
  const enabled = enabledPolicies(settings);
  const view: PolicyView = { enabled, completeWhen: settings.completeWhen ?? 'all', settings: new Map(), records: new Map() };
  for (const { name } of metricPoliciesOf(enabled)) {
    const policy = policyNamed(name)!;
    const parsed = policy.settings.safeParse(settings.policySettings?.[policy.name] ?? {});
    view.settings.set(policy.name, parsed.success ? parsed.data : policy.settings.parse({}));
    view.records.set(policy.name, []);
  }
  return view;
}

/** The settings with each known policy's own words (a preset, say) in the spelling its schema has, as the log keeps them. */
export function respelledPolicySettings(settings: SessionSettings): SessionSettings {
  if (settings.policySettings === undefined) return settings;
  const policySettings = Object.fromEntries(
    Object.entries(settings.policySettings).map(([name, raw]) => {
      const policy = policyNamed(name);
      return [name, policy ? (respelled(policy.settings, raw) as Record<string, unknown>) : raw];
    }),
  );
  return { ...settings, policySettings };
}

/** Why session.started's policy settings cannot be taken (with what would make them possible), or null when they can. */
export function policySettingsProblem(settings: SessionSettings): [why: string, remedy?: Remedy] | null {
  const enabled = enabledPolicies(settings);
  for (const name of enabled) {
    if (!POLICY_NAMES.includes(name)) return [unknownPolicy(name)];
  }
  if (new Set(enabled).size !== enabled.length) return ['a policy is named twice'];
  // A guard only stops or warns: alone, no round could make progress or converge.
  if (enabled.every((name) => policyNamed(name)?.guard)) {
    const goals = POLICY_NAMES.filter((name) => !policyNamed(name)?.guard);
    return [
      `${enabled.join(', ')} only ${enabled.length === 1 ? 'guards' : 'guard'} a loop (stops it at a limit, or warns); enable it beside a policy that judges progress (${goals.join(', ')})`,
    ];
  }
  if (!readsGapEvents(enabled)) {
    // Settings only the gap policy reads would be taken and silently ignored.
    // (A preset stays: its stall threshold applies to any policy's flat verdicts.)
    const gapOnly = (['divergenceThreshold', 'criticalOverride', 'pingPong'] as const).filter((key) => settings[key] !== undefined);
    if (gapOnly.length > 0) return [`${gapOnly.join(', ')}: a setting of the gap policy, which this session does not enable`, 'enable_gap_policy'];
  }
  for (const [name, raw] of Object.entries(settings.policySettings ?? {})) {
    const policy = policyNamed(name);
    if (!policy) return [`settings for unknown policy "${name}"`];
    if (policy.readsGapEvents)
      return [`the ${name} policy takes the session's own settings (stall threshold, divergence threshold, critical override), not policy settings`];
    if (!enabled.includes(name)) return [`settings for ${name}, which is not enabled (enabled: ${enabled.join(', ')})`];
    const parsed = policy.settings.safeParse(raw, { reportInput: true });
    if (!parsed.success) return [`${name} settings: ${formatIssue(parsed.error)}`];
  }
  return null;
}

/** A name that is no policy's, with the ones that are and the nearest: `unknown policy "atom" (one of gaps, …, atoms (did you mean atoms?))`. */
export function unknownPolicy(name: string): string {
  return `unknown policy ${shownValue(name)} (${oneOf(name, POLICY_NAMES).text})`;
}

/** The session's stall threshold when one metric policy runs alone and names one (atoms' max_stall_count). */
export function soloStallThreshold(settings: SessionSettings): number | undefined {
  const enabled = enabledPolicies(settings);
  // The rules say whether the one policy names a threshold; only then are its settings (and so its schema) read.
  const only = enabled.length === 1 ? policyRulesNamed(enabled[0]!) : undefined;
  if (!only?.soloStallThreshold) return undefined;
  const parsed = policyNamed(only.name)!.settings.safeParse(settings.policySettings?.[only.name] ?? {});
  return parsed.success ? only.soloStallThreshold(parsed.data) : undefined;
}

/**
 * The thresholds a session runs under. `auto` is resolved from the baseline
 * gap count (known once the first round starts); a metric policy running
 * alone may name the stall threshold (atoms' max_stall_count); explicit
 * settings always win.
 */
export function resolveConfig(settings: SessionSettings, baselineGaps: number): ConvergenceConfig {
  const preset = settings.preset === 'auto' ? presetForBaseline(baselineGaps) : settings.preset;
  const fromPreset = preset ? PRESETS[preset] : {};
  const autoMaxRounds = settings.preset === 'auto' ? { maxRounds: Math.max(10, Math.ceil(0.6 * baselineGaps)) } : {};
  const keys = Object.keys(DEFAULT_CONFIG) as (keyof ConvergenceConfig)[];
  const explicit = Object.fromEntries(keys.filter((key) => settings[key] !== undefined).map((key) => [key, settings[key]]));
  const solo = soloStallThreshold(settings);
  return { ...DEFAULT_CONFIG, ...fromPreset, ...autoMaxRounds, ...(solo === undefined ? {} : { stallThreshold: solo }), ...explicit };
}

/**
 * The round limit is not known yet: preset `auto` sets it from the baseline
 * when round 1 starts, unless the session gave max_rounds itself. Until then
 * an extension (R24) can only say how many rounds it adds to that limit.
 */
export function roundLimitProvisional(view: { settings: SessionSettings | null; rounds: readonly unknown[] }): boolean {
  return view.rounds.length === 0 && view.settings?.preset === 'auto' && view.settings.maxRounds === undefined;
}
