import { atomsRules } from './atoms/index.js';
import { budgetRules } from './budget/index.js';
import { forgeRules } from './forge/index.js';
import { gapsRules } from './gaps/index.js';
import { qualityRules } from './quality/index.js';
import { questionsRules } from './questions/index.js';
import { eraseRules, type AnyPolicyRules } from './types.js';

/*
 * Every policy's rules without its schemas, by name: what a session's view
 * is judged and worded by. Loads no zod, so `next` and a stop hook answering
 * from the head checkpoint never evaluate a schema library; the whole
 * policies, schemas included, are in registry.ts, in the same order.
 */

/** Every policy a session may enable, gaps first. Adding one: its folder, and a line here and in registry.ts. */
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
