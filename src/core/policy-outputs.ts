import type { GapflowEvent } from '../../events/index.js';
import { metricPolicies, policyNamed, type PolicyReport } from '../policies/index.js';
import type { SessionView } from './view.js';

/**
 * The reports (files beside the log) that the metrics among `events` leave,
 * in their order: each recorded iteration's, as its policy writes them,
 * however the metrics arrived (one record, a batch).
 */
export function policyReports(view: Pick<SessionView, 'policies'>, events: readonly GapflowEvent[]): PolicyReport[] {
  const reports: PolicyReport[] = [];
  for (const event of events) {
    if (event.type !== 'metrics.recorded' || event.data.round === undefined) continue;
    const policy = policyNamed(event.data.policy);
    if (!policy?.reports) continue;
    const records = view.policies.records.get(policy.name) ?? [];
    const n = records.findIndex((r) => r.round === event.data.round) + 1;
    if (n === 0) continue;
    reports.push(
      ...policy.reports(
        view.policies.settings.get(policy.name),
        records.map((r) => r.metrics),
        n,
      ),
    );
  }
  return reports;
}

/** Every `state --format` a policy offers, in the registry's order. */
export function stateFormatNames(): string[] {
  return metricPolicies().flatMap((p) => Object.keys(p.stateFormats ?? {}));
}

/**
 * `format`'s text for this session, from the policy that offers it: `text`
 * is null when the session does not enable that policy; null when no policy
 * offers `format`.
 */
export function policyStateFormat(view: Pick<SessionView, 'policies'>, format: string): { policy: string; text: string | null } | null {
  for (const policy of metricPolicies()) {
    const formats = policy.stateFormats ?? {};
    if (!Object.hasOwn(formats, format)) continue;
    if (!view.policies.enabled.includes(policy.name)) return { policy: policy.name, text: null };
    const history = (view.policies.records.get(policy.name) ?? []).map((r) => r.metrics);
    return { policy: policy.name, text: formats[format]!(view.policies.settings.get(policy.name), history) };
  }
  return null;
}
