import { oneOf, shownValue, type SessionSettings } from '../../events/index.js';
import { POLICY_NAMES, policyNamed } from '../policies/index.js';
import { enabledPolicies } from './evolve.js';
import { readsGapEvents } from './read-model.js';
import type { Remedy } from './refusal.js';

/*
 * A session's policy settings as its start asks for them, judged when
 * session.started is decided. Each policy's schema read its own settings at
 * the edge (the policies' `readCommand`); its objection is refused here in
 * its turn. What the fold makes of them is evolve.ts's.
 */

/**
 * Why session.started's policy settings cannot be taken (with what would make
 * them possible), or null when they can; `objections`: each policy's schema's
 * objection to its settings, by policy.
 */
export function policySettingsProblem(settings: SessionSettings, objections: Readonly<Record<string, string>>): [why: string, remedy?: Remedy] | null {
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
  for (const name of Object.keys(settings.policySettings ?? {})) {
    const policy = policyNamed(name);
    if (!policy) return [`settings for unknown policy "${name}"`];
    if (policy.readsGapEvents)
      return [`the ${name} policy takes the session's own settings (stall threshold, divergence threshold, critical override), not policy settings`];
    if (!enabled.includes(name)) return [`settings for ${name}, which is not enabled (enabled: ${enabled.join(', ')})`];
    const objection = objections[name];
    if (objection !== undefined) return [`${name} settings: ${objection}`];
  }
  return null;
}

/** A name that is no policy's, with the ones that are and the nearest: `unknown policy "atom" (one of gaps, …, atoms (did you mean atoms?))`. */
export function unknownPolicy(name: string): string {
  return `unknown policy ${shownValue(name)} (${oneOf(name, POLICY_NAMES).text})`;
}
