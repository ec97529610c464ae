import { closedRounds, currentVerdict, type SessionView } from '../core/index.js';
import { GAPS, gapCheckTree, policyNamed, renderCheckTree, type Figure } from '../policies/index.js';
import { escapeMarkdown as md, table } from './markdown.js';

/** One line per enabled policy: its current verdict and why. */
export function renderPolicyCheck(view: SessionView, verbose: boolean): string {
  const parts: string[] = [];
  for (const name of view.policies.enabled) {
    if (name === GAPS) {
      const round = closedRounds(view).at(-1);
      const verdict = round?.verdicts.find((v) => v.policy === GAPS);
      if (!round || !verdict) {
        parts.push(`${GAPS}: no round has closed yet\n`);
        continue;
      }
      parts.push(`${GAPS}: ${verdict.verdict} (${verdict.reason}): ${verdict.detail}\n`);
      if (verbose) {
        const figures = { ...round, openCount: round.openEnd ?? 0 };
        parts.push(renderCheckTree(gapCheckTree(figures, view.config, view.machine.flatCount)));
      }
      continue;
    }
    const policy = policyNamed(name)!;
    const verdict = currentVerdict(view, policy);
    if (!verdict) {
      parts.push(`${name}: no iteration recorded yet\n`);
      continue;
    }
    parts.push(`${name}: ${verdict.verdict} (${verdict.reason}): ${verdict.detail}\n`);
    if (verbose) {
      const history = (view.policies.records.get(name) ?? []).map((r) => r.metrics);
      parts.push(renderCheckTree(policy.check(view.policies.settings.get(name), history)));
    }
  }
  const last = closedRounds(view).at(-1)?.combined;
  if (last) parts.push(`combined (${view.policies.completeWhen}): ${last.verdict} (${last.policies.join(', ')})\n`);
  return parts.join(verbose ? '\n' : '');
}

function cell(value: Figure | undefined): string {
  if (value === undefined || value === null) return '-';
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  if (typeof value === 'number') return String(Math.round(value * 1000) / 1000);
  return md(value);
}

/** status.md: a section per enabled metric policy with its figures per round (gaps have the round table). */
export function policySections(view: SessionView): string[] {
  const metricPolicies = view.policies.enabled.filter((name) => name !== GAPS);
  if (metricPolicies.length === 0) return [];
  const parts = [
    '## Policies',
    `Enabled: ${view.policies.enabled.join(', ')}. A round completes the session when ${view.policies.completeWhen === 'all' ? 'every policy has' : 'any policy has'} converged.`,
  ];
  for (const name of metricPolicies) {
    const policy = policyNamed(name)!;
    const rows = closedRounds(view).flatMap((round) => {
      const v = round.verdicts.find((x) => x.policy === name);
      if (!v) return [];
      return [[String(round.round), ...policy.columns.map(([, key]) => cell(v.figures[key])), v.verdict, md(v.reason)]];
    });
    const headers = ['Round', ...policy.columns.map(([header]) => header), 'Verdict', 'Reason'];
    parts.push(`### Policy: ${name}`, rows.length > 0 ? table(headers, rows) : '_No round has closed yet._');
    const latest = currentVerdict(view, policy);
    if (latest) parts.push(`Latest: ${latest.verdict} (${md(latest.reason)}): ${md(latest.detail)}`);
  }
  return parts;
}

/** The round table of a session without the gap policy: the combined verdict and where it led. */
export function verdictTable(view: SessionView): string {
  const rows = closedRounds(view).map((r) => [
    String(r.round),
    r.combined?.verdict ?? '-',
    md(r.combined?.policies.join(', ') ?? ''),
    r.state === 'COMPLETE' ? `COMPLETE (${view.machine.outcome})` : (r.state ?? ''),
    r.flatCount === null ? '-' : String(r.flatCount),
  ]);
  return table(['Round', 'Verdict', 'Decided By', 'State', 'Flat Count'], rows);
}
