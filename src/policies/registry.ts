import { atomsPolicy } from './atoms/index.js';
import { forgePolicy } from './forge/index.js';
import { questionsPolicy } from './questions/index.js';
import { qualityPolicy } from './quality/index.js';
import type { AnyPolicy } from './types.js';

/** The gap policy (seed 003) lives in the core and the statechart; it is named here so sessions can enable it. */
export const GAPS = 'gaps';

/** Every policy that records metrics. Adding one: its folder, and a line here. */
const POLICIES: readonly AnyPolicy[] = [questionsPolicy, atomsPolicy, forgePolicy, qualityPolicy];

const BY_NAME = new Map(POLICIES.map((p) => [p.name, p]));

/** Every policy a session may enable, gaps first. */
export const POLICY_NAMES: readonly string[] = [GAPS, ...POLICIES.map((p) => p.name)];

export function metricPolicies(): readonly AnyPolicy[] {
  return POLICIES;
}

/** The policy that records metrics under `name`, or undefined (gaps, or unknown). */
export function policyNamed(name: string): AnyPolicy | undefined {
  return BY_NAME.get(name);
}
