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
import { formatIssue, respelled, type BodyOf, type Command, type CommandOf, type EventBody } from '../../events/index.js';

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

// A request's policy part, read by its policy's own schema where the request enters.

/**
 * A typed body as `decide` takes it (events' `Command`): its policy's part
 * put in the spelling that policy's schema has (its own words, a preset
 * say, from the schema's lists) and read by that schema. This is where a
 * policy's schema judges a request; the core trusts what it finds. A policy
 * this build lacks, or the gap policy (it records gap events), is read no
 * further: `decide` refuses it by name, before any objection.
 */
export function readCommand(body: EventBody): Command {
  if (body.type === 'metrics.recorded') return readMetrics(body);
  if (body.type === 'session.started') return readPolicySettings(body);
  return body;
}

/** The metrics as their policy's schema reads them (defaults filled in), or in its spelling with its objection. */
function readMetrics(body: BodyOf<'metrics.recorded'>): CommandOf<'metrics.recorded'> {
  const policy = policyNamed(body.data.policy);
  if (!policy || policy.readsGapEvents) return { ...body, objection: null };
  const metrics = respelled(policy.metrics, body.data.metrics) as Record<string, unknown>;
  const parsed = policy.metrics.safeParse(metrics, { reportInput: true });
  if (parsed.success) return { ...body, data: { ...body.data, metrics: parsed.data as Record<string, unknown> }, objection: null };
  const where = parsed.error.issues[0]?.path.length ? 'metrics.' : 'metrics: ';
  return { ...body, data: { ...body.data, metrics }, objection: `${where}${formatIssue(parsed.error)}` };
}

/**
 * Each known policy's settings in its schema's spelling, as the log keeps
 * them (the fold fills their defaults in), and each metric policy's
 * objection to its own.
 */
function readPolicySettings(body: BodyOf<'session.started'>): CommandOf<'session.started'> {
  const asked = body.data.policySettings;
  if (asked === undefined) return { ...body, objections: {} };
  const objections: Record<string, string> = {};
  const policySettings = Object.fromEntries(
    Object.entries(asked).map(([name, raw]) => {
      const policy = policyNamed(name);
      if (!policy) return [name, raw];
      const settings = respelled(policy.settings, raw) as Record<string, unknown>;
      const parsed = policy.readsGapEvents ? null : policy.settings.safeParse(settings, { reportInput: true });
      if (parsed?.success === false) objections[name] = formatIssue(parsed.error);
      return [name, settings];
    }),
  );
  return { ...body, data: { ...body.data, policySettings }, objections };
}

// A stored line's policy part, as the fold reads it.

/**
 * A policy's part of a stored line (the settings a session's start named
 * for it, or metrics it recorded) as that policy's schema reads it today,
 * defaults filled in; null when today's schema cannot read it (an old line:
 * `verify` names it). The log keeps what the edge read (`readCommand`), so a
 * line this build wrote reads back as it was decided.
 */
export function readStored(policy: AnyPolicy, part: 'settings' | 'metrics', raw: unknown): { value: unknown } | null {
  const parsed = policy[part].safeParse(raw);
  return parsed.success ? { value: parsed.data } : null;
}

/** A policy's settings when a session names none for it (or its stored ones cannot be read). */
export function defaultSettings(policy: AnyPolicy): unknown {
  return policy.settings.parse({});
}
