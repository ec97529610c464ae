import { closedRoundCount, formatSeconds, runWords, type SessionView } from '../core/index.js';

/*
 * The verification gate in status.md: the check, its time limit, and how
 * its last run went (with the end of what it printed when it failed), so a
 * session that did not complete says why.
 */

/** The Verification section's lines; empty for a session without a check. */
export function verificationSection(view: SessionView): string[] {
  const gate = view.settings?.verify;
  if (gate === undefined) return [];
  const lines = [
    `Check: ${codeSpan(gate.command)} (time limit ${formatSeconds(gate.timeoutSeconds * 1000)}); it must pass before the session completes as converged or approved.`,
  ];
  const run = view.verification;
  if (run === null) lines.push('', 'Not run yet: it runs when a round close or an approval would complete the session.');
  else {
    const when = run.gates === 'approve' ? `for an approval after round ${run.afterRound}` : `for the close of round ${run.afterRound + 1}`;
    if (run.passed) lines.push('', `Last run ${when}: passed (${runWords(run)}).`);
    else {
      const standing = view.machine.state !== 'COMPLETE' && run.afterRound === closedRoundCount(view);
      lines.push(
        '',
        `Last run ${when}: **failed** (${runWords(run)})${standing ? `, so the session did not complete; it stays ${view.machine.state} until the check passes` : ''}.`,
      );
      if (run.output !== '') lines.push('', 'Last output:', '', fenced(run.output));
    }
  }
  return ['### Verification', lines.join('\n')];
}

/** Text in a code fence longer than any run of backticks in it. */
function fenced(text: string): string {
  const longest = Math.max(0, ...(text.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(Math.max(3, longest + 1));
  return `${fence}text\n${text}\n${fence}`;
}

/**
 * `text` as a Markdown code span, shown exactly as written whatever
 * backticks it holds: delimited by a run of backticks longer than any in
 * it, and padded with a space on each side when it starts or ends with a
 * backtick, or starts and ends with a space (CommonMark takes one space off
 * each side of such a span, so the padding is all it takes off).
 */
export function codeSpan(text: string): string {
  const longest = Math.max(0, ...(text.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(longest + 1);
  const pad = text.startsWith('`') || text.endsWith('`') || (text.startsWith(' ') && text.endsWith(' ')) ? ' ' : '';
  return `${fence}${pad}${text}${pad}${fence}`;
}
