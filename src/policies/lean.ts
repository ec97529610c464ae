/*
 * The policies folder's second door: their rules and figures without their
 * schemas, so nothing imported through it loads zod. The core judges a
 * session's view through it, and the bin's short path for `next` and a stop
 * hook (src/cli/head-answers.ts) reaches no further. Everything here is in
 * index.ts too.
 */
export { combine, withSessionRules, type CombinedVerdict, type CompleteWhen, type NamedVerdict, type RoundBounds } from './combine.js';
export { belowDivergence } from './gaps/verdict.js';
export { formatCount, signed } from './numbers.js';
export { DEFAULT_POLICIES, POLICY_NAMES, policyRulesNamed } from './rules.js';
export type { AgentRequest, AnyPolicyRules, PolicyVerdict, RoundInput } from './types.js';
