import { atomsPolicy } from './atoms/policy.js';
import { budgetPolicy } from './budget/policy.js';
import { forgePolicy } from './forge/policy.js';
import { gapsPolicy } from './gaps/policy.js';
import { questionsPolicy } from './questions/policy.js';
import { qualityPolicy } from './quality/policy.js';
import type { AnyPolicy } from './types.js';

export { DEFAULT_POLICIES, POLICY_NAMES } from './rules.js';

/** Every policy a session may enable, whole (schemas included), in the order of rules.ts. */
const POLICIES: readonly AnyPolicy[] = [gapsPolicy, questionsPolicy, atomsPolicy, forgePolicy, qualityPolicy, budgetPolicy];

// A loop rather than `map` with a callback: loading the registry (every command does) calls no function of this module.
const BY_NAME = new Map<string, AnyPolicy>();
for (const policy of POLICIES) BY_NAME.set(policy.name, policy);

export function allPolicies(): readonly AnyPolicy[] {
  return POLICIES;
}

/** The policies that record metrics (`record <policy>`), in the registry's order. */
export function metricPolicies(): readonly AnyPolicy[] {
  return POLICIES.filter((p) => !p.readsGapEvents);
}

/** The policy named `name`, or undefined. */
export function policyNamed(name: string): AnyPolicy | undefined {
  return BY_NAME.get(name);
}
