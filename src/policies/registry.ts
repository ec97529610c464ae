import { atomsPolicy } from './atoms/index.js';
import { forgePolicy } from './forge/index.js';
import { gapsPolicy } from './gaps/index.js';
import { questionsPolicy } from './questions/index.js';
import { qualityPolicy } from './quality/index.js';
import type { AnyPolicy } from './types.js';

/** Every policy a session may enable, gaps first. Adding one: its folder, and a line here. */
const POLICIES: readonly AnyPolicy[] = [gapsPolicy, questionsPolicy, atomsPolicy, forgePolicy, qualityPolicy];

const BY_NAME = new Map(POLICIES.map((p) => [p.name, p]));

export const POLICY_NAMES: readonly string[] = POLICIES.map((p) => p.name);

/** What a session runs when it names no policy: seed 003's gap policy. */
export const DEFAULT_POLICIES: readonly string[] = [gapsPolicy.name];

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
