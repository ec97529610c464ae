import type { SessionView } from '../core/index.js';
import { policyRulesNamed, type AnyPolicyRules } from '../policies/index.js';

/** What a policy says is still in dispute after its latest metrics (forge: the concerns of the votes that did not agree); [] for most. */
export function remainingIssuesOf(view: SessionView, policy: AnyPolicyRules): string[] {
  const history = (view.policies.records.get(policy.name) ?? []).map((r) => r.metrics);
  return policy.remainingIssues && history.length > 0 ? policy.remainingIssues(view.policies.settings.get(policy.name), history) : [];
}

/** Each enabled policy's remaining issues, as `policy: issue`. */
export function sessionRemainingIssues(view: SessionView): string[] {
  return view.policies.enabled.flatMap((name) => {
    const rules = policyRulesNamed(name);
    return rules ? remainingIssuesOf(view, rules).map((issue) => `${name}: ${issue}`) : [];
  });
}
