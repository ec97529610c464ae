import { closedRoundNumbered, roundCount, tracksGaps, nextStep, signed, type RoundFigures, type SessionView } from '../core/index.js';
import { disagreementNote, netsDisagree, untriagedCount } from './sections.js';

/** R26, for the terminal: the gaps moved outside the focus, flagged. */
function outsideFocusLine(ids: readonly string[]): string {
  return `Outside the focus: ${ids.join(', ')} moved though the focus did not name ${ids.length === 1 ? 'it' : 'them'}`;
}

/** What `gapflow round close` prints: the round's figures, both nets, where it led and why. */
export function renderRoundReport(view: SessionView, roundNumber?: number): string {
  const round = closedRoundNumbered(view, roundNumber ?? roundCount(view));
  if (!round) return `Round ${roundNumber ?? roundCount(view)} has not closed.\n`;
  const steps = view.history.filter((h) => h.cause === 'round' && h.round === round.round);
  const path = steps.length > 0 ? [steps[0]!.from, ...steps.map((s) => s.to)] : [];
  const moved = path.length > 1 && path[0] !== path.at(-1) ? path.join(' -> ') : (path.at(-1) ?? '');
  const next = nextStep(view);
  const kind = round.kind === 'work' ? '' : ` (${round.kind} round)`;
  const lines = [`Round ${round.round}${kind} closed: ${moved}${round.state === 'COMPLETE' ? ` (${view.machine.outcome})` : ''}`];
  if (tracksGaps(view)) {
    lines.push(
      `  Resolved: ${round.resolved} (weighted ${round.weightedResolved})   New: ${round.new} (weighted ${round.weightedNew})`,
      `  Unweighted net: ${signed(round.unweightedNet)}   Weighted net: ${signed(round.weightedNet)}`,
    );
    // R20: withdrawn duplicates are neither resolved nor new; shown so the open counts add up.
    if (round.withdrawn > 0)
      lines.push(
        `  Withdrawn as duplicates: ${round.withdrawn} (weighted ${round.weightedWithdrawn}): ${round.withdrawnGaps.map((g) => `${g.id} of ${g.of}`).join(', ')}`,
      );
    // R23: the round that has just closed ends with these untriaged (the view is as the close left it).
    const untriaged = round.round === roundCount(view) ? untriagedCount(view) : 0;
    if (untriaged > 0)
      lines.push(`  Untriaged: ${untriaged} ${untriaged === 1 ? 'gap' : 'gaps'} still without a severity (each weighs as MEDIUM until triaged)`);
    if (netsDisagree(round)) lines.push(`  ${disagreementNote(round)}`);
    if (round.outsideFocus.length > 0) lines.push(`  ${outsideFocusLine(round.outsideFocus)}`);
  }
  if (round.combined) {
    for (const v of round.verdicts) lines.push(`  ${v.policy}: ${v.verdict} (${v.reason})`);
    lines.push(...causeLines(round));
  }
  for (const step of steps) lines.push(`  Why: ${step.reason}`);
  lines.push(`  Next: ${next.action}: ${next.reason}`);
  return `${lines.join('\n')}\n`;
}

/** The fix-break cycles the round's close named (the gap policy's figures say which): one line each. */
function causeLines(round: RoundFigures): string[] {
  const named = ['pingPong', 'openCountAlternating', 'claimedStillReported'];
  const figures = round.verdicts.find((v) => named.some((key) => typeof v.figures[key] === 'string'))?.figures;
  if (figures === undefined) return [];
  return [
    ...(typeof figures.pingPong === 'string' ? [`  Ping-pong: ${figures.pingPong} reopened after being resolved`] : []),
    ...(typeof figures.openCountAlternating === 'string' ? [`  Open count alternating: ${figures.openCountAlternating}`] : []),
    ...(typeof figures.claimedStillReported === 'string'
      ? [`  Claimed but still reported: ${figures.claimedStillReported} (closed by hand, reopened: the tool still reports them)`]
      : []),
  ];
}
