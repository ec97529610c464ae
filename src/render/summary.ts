import { closedRounds, lastClosedRound, formatCount, soleNarrator, tracksGaps, unfinishedGaps, type SessionView } from '../core/index.js';
import { escapeMarkdown as md } from './markdown.js';
import { policySections, verdictTable } from './policies.js';
import { historyList, ofMax, roundTable } from './sections.js';

const OUTCOME_TEXT = {
  CONVERGED: 'every gap is closed',
  MAX_ROUNDS: 'the round limit was reached',
  STOPPED: 'the loop asked to stop (a manual stop request)',
  GOOD_ENOUGH: 'the user approved with no CRITICAL or HIGH gap open',
  USER_APPROVED: 'the user approved over open CRITICAL or HIGH gaps',
  STALL_EXIT: 'the user forced completion at a divergence warning',
  ABANDONED: 'the user abandoned the session',
} as const;

/**
 * How the session ended, in words: a session that runs one policy with words
 * of its own (the gap policy) says it plainly; otherwise the last round's
 * verdict names what its policies said.
 */
function outcomeText(view: SessionView, outcome: keyof typeof OUTCOME_TEXT): string {
  const combined = lastClosedRound(view)?.combined;
  if (combined && !soleNarrator(view) && (outcome === 'CONVERGED' || outcome === 'MAX_ROUNDS' || outcome === 'STOPPED')) return md(combined.detail);
  return OUTCOME_TEXT[outcome];
}

/** The final summary once COMPLETE; null before. Gaps left open are its Known Limitations, CRITICAL first (R11). */
export function renderSummary(view: SessionView): string | null {
  const { outcome } = view.machine;
  if (view.machine.state !== 'COMPLETE' || !outcome) return null;
  const rounds = closedRounds(view);
  const gaps = [...view.gaps.values()];
  const resolved = rounds.reduce((sum, r) => sum + r.resolved, 0);
  const opened = rounds.reduce((sum, r) => sum + r.new, 0);
  const approval = view.decisions.find((d) => d.kind === 'approve');
  const atBaseline = gaps.filter((g) => g.openedInRound === 0).length;
  const gapLines = [
    `**Rounds:** ${rounds.length}${ofMax(view)}.`,
    `**Over the session:** ${resolved} gaps resolved, ${opened} new; ${gaps.length} recorded in all (${atBaseline} at baseline).`,
    `**Left open:** ${formatCount(view.open.count)} (weighted ${formatCount(view.open.weighted)}).`,
  ];
  const parts = [
    '# Final Summary',
    [`**Outcome:** ${outcome}: ${outcomeText(view, outcome)}.`, ...(tracksGaps(view) ? gapLines : [`**Rounds:** ${rounds.length}.`])].join('  \n'),
  ];
  if (approval) {
    const accepted = approval.gaps.map((id) => view.gaps.get(id)).filter((g) => g !== undefined);
    const critical = accepted.filter((g) => g.severity === 'CRITICAL').map((g) => md(g.id));
    const high = accepted.filter((g) => g.severity === 'HIGH').map((g) => md(g.id));
    const when = approval.afterRound === 0 ? 'before round 1' : `after round ${approval.afterRound}`;
    const lines = [`**Approval:** ${when}.`];
    if (critical.length > 0) lines.push(`The risk of CRITICAL gaps left open (${critical.join(', ')}) was acknowledged.`);
    if (high.length > 0) lines.push(`HIGH gaps left open: ${high.join(', ')}.`);
    if (approval.rationale) lines.push(`Rationale: ${md(approval.rationale)}`);
    parts.push(lines.join(' '));
  }
  if (!tracksGaps(view)) {
    if (rounds.length > 0) parts.push('## Round Progress', verdictTable(view));
    parts.push('## State History', historyList(view), ...policySections(view));
    return `${parts.join('\n\n')}\n`;
  }
  if (rounds.length > 0) parts.push('## Round Progress', roundTable(view));
  parts.push('## State History', historyList(view), ...policySections(view), '## Known Limitations');
  const left = unfinishedGaps(gaps);
  parts.push(
    left.length === 0
      ? 'None: every gap is closed.'
      : left.map((g) => `- ${md(g.id)} (${g.severity}, ${g.state})${g.title ? `: ${md(g.title)}` : ''}`).join('\n'),
  );
  return `${parts.join('\n\n')}\n`;
}
