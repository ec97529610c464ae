import {
  closedRounds,
  currentVerdict,
  lastClosedRound,
  metricPoliciesOf,
  roundInput,
  soleNarrator,
  standingInput,
  type RoundFigures,
  type SessionView,
} from '../core/index.js';
import { policyNamed, renderCheckTree, type AnyPolicy, type Figure } from '../policies/index.js';
import { escapeMarkdown as md, table } from './markdown.js';
import { remainingIssuesOf } from './remaining.js';
import { someRoundNotWork } from './sections.js';

/** One line per enabled policy: its current verdict and why; `verbose` adds its CONVERGENCE CHECK tree. */
export function renderPolicyCheck(view: SessionView, verbose: boolean): string {
  const parts: string[] = [];
  const round = lastClosedRound(view);
  for (const name of view.policies.enabled) {
    const policy = policyNamed(name)!;
    const verdict = currentVerdict(view, policy);
    if (!verdict) {
      parts.push(`${name}: ${policy.readsGapEvents ? 'no round has closed yet' : 'no iteration recorded yet'}\n`);
      continue;
    }
    parts.push(`${name}: ${verdict.verdict} (${verdict.reason}): ${verdict.detail}\n`);
    if (!verbose) parts.push(...remainingIssuesOf(view, policy).map((issue) => `  remaining issue: ${issue}\n`));
    if (verbose) parts.push(renderCheckTree(completedTree(view, checkTreeOf(view, policy, round))));
  }
  // A session told in one policy's own words has no combination to show.
  if (round?.combined && !soleNarrator(view))
    parts.push(`combined (${view.policies.completeWhen}): ${round.combined.verdict} (${round.combined.policies.join(', ')})\n`);
  return parts.join(verbose ? '\n' : '');
}

/** A COMPLETE session's tree ends in the session's own answer (a decision may have ended it while the last round's check said CONTINUE). */
function completedTree<T extends { decision: string }>(view: SessionView, tree: T): T {
  if (view.machine.state !== 'COMPLETE') return tree;
  return { ...tree, decision: `COMPLETE (${view.machine.outcome}): the session is complete; the last round's check alone said ${tree.decision}` };
}

function checkTreeOf(view: SessionView, policy: AnyPolicy, round: SessionView['rounds'][number] | undefined) {
  const history = (view.policies.records.get(policy.name) ?? []).map((r) => r.metrics);
  // A metric policy's tree reads the round as its standing verdict does (with the forecast); a gap-reading one, the last closed round.
  return policy.check(
    view.policies.settings.get(policy.name),
    history,
    policy.readsGapEvents ? round && roundInput(round, view.config, view.machine.flatCount) : standingInput(view),
  );
}

function cell(value: Figure | undefined): string {
  if (value === undefined || value === null) return '-';
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  if (typeof value === 'number') return String(Math.round(value * 1000) / 1000);
  return md(value);
}

/** What the sentence on completion leaves out: the guards, whose verdicts only stop or warn. */
function guardsNote(enabled: readonly string[]): string {
  const guards = enabled.filter((name) => policyNamed(name)?.guard);
  if (guards.length === 0) return '';
  return ` ${guards.join(', ')} ${guards.length === 1 ? 'is a guard' : 'are guards'}: ${guards.length === 1 ? 'its verdict counts' : 'their verdicts count'} only to stop the session (limit) or warn (diverging).`;
}

/** status.md: a section per enabled metric policy with its figures per round (gap-reading policies have the round table). */
export function policySections(view: SessionView): string[] {
  const metricPolicies = metricPoliciesOf(view.policies.enabled).map((p) => p.name);
  if (metricPolicies.length === 0) return [];
  const parts = [
    '## Policies',
    `Enabled: ${view.policies.enabled.join(', ')}. A round completes the session when ${view.policies.completeWhen === 'all' ? 'every policy has' : 'any policy has'} converged.${guardsNote(view.policies.enabled)}`,
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
    const issues = remainingIssuesOf(view, policy);
    if (issues.length > 0)
      parts.push(`Remaining issues (the concerns of the votes that did not agree):\n\n${issues.map((issue) => `- ${md(issue)}`).join('\n')}`);
  }
  return parts;
}

/** The round table of a session whose policies read no gap events: the combined verdict and where it led. */
export function verdictTable(view: SessionView, rounds: readonly RoundFigures[] = closedRounds(view)): string {
  // R25's Kind column as the gap round table has it: only once a round was not a work round, so other sessions read as before.
  const kinds = someRoundNotWork(rounds);
  const rows = rounds.map((r) => [
    String(r.round),
    ...(kinds ? [r.kind] : []),
    r.combined?.verdict ?? '-',
    md(r.combined?.policies.join(', ') ?? ''),
    r.state === 'COMPLETE' ? `COMPLETE (${view.machine.outcome})` : (r.state ?? ''),
    r.flatCount === null ? '-' : String(r.flatCount),
  ]);
  return table(['Round', ...(kinds ? ['Kind'] : []), 'Verdict', 'Decided By', 'State', 'Flat Count'], rows);
}
