import { atomsRules } from './atoms/index.js';
import { budgetRules } from './budget/index.js';
import { forgeRules } from './forge/index.js';
import { gapsRules } from './gaps/index.js';
import { qualityRules } from './quality/index.js';
import { questionsRules } from './questions/index.js';
import { atomsPolicy } from './atoms/policy.js';
import { budgetPolicy } from './budget/policy.js';
import { forgePolicy } from './forge/policy.js';
import { gapsPolicy } from './gaps/policy.js';
import { questionsPolicy } from './questions/policy.js';
import { qualityPolicy } from './quality/policy.js';
import { eraseRules, type AnyPolicy, type AnyPolicyRules } from './types.js';

/*
 * The policies, by name: each one's rules without its schemas (what a
 * session's view is judged and worded by), and each one whole. The rules
 * load no zod, so `next` and a stop hook answering from the head checkpoint
 * never evaluate a schema library: the whole policies' table is made on
 * first use, and a bundle that looks up rules only leaves it out.
 */

/** Every policy a session may enable, gaps first. Adding one: its folder, and a line here and in POLICIES below. */
const RULES: readonly AnyPolicyRules[] = [
  eraseRules(gapsRules),
  eraseRules(questionsRules),
  eraseRules(atomsRules),
  eraseRules(forgeRules),
  eraseRules(qualityRules),
  eraseRules(budgetRules),
];

// A loop rather than `map` with a callback: loading the rules (every command does) calls no function of this module.
const BY_NAME = new Map<string, AnyPolicyRules>();
const NAMES: string[] = [];
for (const rules of RULES) {
  BY_NAME.set(rules.name, rules);
  NAMES.push(rules.name);
}

export const POLICY_NAMES: readonly string[] = NAMES;

/** What a session runs when it names no policy: the gap policy. */
export const DEFAULT_POLICIES: readonly string[] = [gapsRules.name];

/** The rules of the policy named `name`, or undefined. */
export function policyRulesNamed(name: string): AnyPolicyRules | undefined {
  return BY_NAME.get(name);
}

/** Every policy a session may enable, whole (schemas included), in the order of RULES. */
const POLICIES: readonly AnyPolicy[] = [gapsPolicy, questionsPolicy, atomsPolicy, forgePolicy, qualityPolicy, budgetPolicy];

/** The whole policies by name, made on first use (see above). */
let policiesByName: Map<string, AnyPolicy> | undefined;

export function allPolicies(): readonly AnyPolicy[] {
  return POLICIES;
}

/** The policies that record metrics (`record <policy>`), in the registry's order. */
export function metricPolicies(): readonly AnyPolicy[] {
  return POLICIES.filter((p) => !p.readsGapEvents);
}

/** The policy named `name`, or undefined. */
export function policyNamed(name: string): AnyPolicy | undefined {
  if (policiesByName === undefined) {
    policiesByName = new Map();
    for (const policy of POLICIES) policiesByName.set(policy.name, policy);
  }
  return policiesByName.get(name);
}
