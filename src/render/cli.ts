import type { GapflowEvent } from '../../events/index.js';
import { formatCount, tracksGaps, metricPoliciesOf, policyStates, roundCount, roundLimit, toStateJson, type SessionView } from '../core/index.js';
import { renderRoundReport } from './round.js';
import { counted } from './counted.js';

/**
 * The CLI's human lines for the session's commands: each takes the view
 * (and, for a change, the view before it) and says what happened. The CLI
 * prints them; `--json` prints the data instead.
 */

/** `init`: where the session lives, what it runs under, and how to go on. */
export function initLines(dir: string, view: SessionView, writeStatus = false): string {
  const c = view.config;
  const preset = view.settings?.preset ? `, preset ${view.settings.preset}` : '';
  const gaps = tracksGaps(view);
  return [
    `Created a session in ${dir}`,
    gaps
      ? `  stall_threshold ${c.stallThreshold}, divergence_threshold ${c.divergenceThreshold}, max_rounds ${c.maxRounds}, critical_override ${c.criticalOverride}${preset}`
      : `  stall_threshold ${c.stallThreshold}, max_rounds ${roundLimit(view) ?? "none (each policy's own maximum)"}${preset}`,
    // R13: auto picks its preset from the baseline, which is known only when round 1 starts.
    ...(gaps && view.settings?.preset === 'auto'
      ? ['  These thresholds are provisional: preset auto sets them from the baseline gap count when round 1 starts (settings given here are kept).']
      : []),
    ...(view.settings?.policies ? [`  policies ${view.policies.enabled.join(', ')} (complete when ${view.policies.completeWhen} converged)`] : []),
    ...(writeStatus ? [`  status.md is rewritten after every command that records an event`] : []),
    gaps ? '  Record the baseline gaps, then `gapflow round start`.' : '  Record each iteration with `gapflow record POLICY …`.',
  ].join('\n');
}

export function roundStartedLine(view: SessionView): string {
  const r = view.rounds.at(-1)!;
  return `Round ${r.round}${r.kind === 'work' ? '' : ` (${r.kind})`} started: open count ${formatCount(r.openStart)} (weighted ${formatCount(r.weightedOpenStart)})`;
}

export function roundClosedLines(view: SessionView): string {
  return renderRoundReport(view).trimEnd();
}

/** A decision (`word` as it was typed): where it took the session, and why. */
export function decidedLine(word: string, before: SessionView, after: SessionView): string {
  // A decision that moves no state (an extension of the limit, a focus set mid-loop) adds no history entry: its effect says it.
  const moved = after.history.length > before.history.length;
  const why = moved ? (after.history.at(-1)?.reason ?? '') : (after.decisions.at(-1)?.effect ?? '');
  return `${word}: ${before.machine.state} -> ${after.machine.state} (${why})`;
}

/** One policy's iteration: its verdict now, the reports written for it, and the round report when it closed the round. */
export function recordedLines(view: SessionView, policy: string, events: readonly GapflowEvent[], written: readonly string[]): string {
  const own = events.find((e) => e.type === 'metrics.recorded');
  const round = own?.type === 'metrics.recorded' ? own.data.round : roundCount(view);
  const state = policyStates(view).find((p) => p.name === policy);
  const lines = [`Recorded ${policy} for round ${round}: ${state?.verdict} (${state?.reason}): ${state?.detail}`];
  for (const path of written) lines.push(`Wrote ${path}`);
  if (events.some((e) => e.type === 'round.closed')) lines.push(roundClosedLines(view));
  return lines.join('\n');
}

/** `state`: where the session stands, each metric policy's verdict, and the next move. */
export function stateLines(view: SessionView): string {
  const s = toStateJson(view);
  const metric = new Set(metricPoliciesOf(view.policies.enabled).map((p) => p.name));
  return [
    `State: ${s.state}${s.outcome ? ` (${s.outcome})` : ''}`,
    `Rounds closed: ${s.round}${roundLimit(view) === null ? '' : ` of max ${s.config.maxRounds}`}${s.roundOpen ? ` (round ${s.round + 1} open)` : ''}`,
    tracksGaps(view)
      ? `Open count: ${formatCount(s.openGapCount)} (weighted ${formatCount(s.weightedOpen)}); flat_count ${s.flatCount}/${s.config.stallThreshold}`
      : `flat_count ${s.flatCount}/${s.config.stallThreshold}`,
    ...s.policies
      .filter((p) => metric.has(p.name))
      .map((p) => `Policy ${p.name}: ${p.verdict ? `${p.verdict} (${p.reason}): ${p.detail}` : 'no iteration recorded yet'}`),
    `Next: ${s.decision.action}: ${s.decision.reason}`,
    '',
  ].join('\n');
}

export function replayLine(view: SessionView): string {
  const s = toStateJson(view);
  return `Replayed ${counted(view.lastSeq, 'event')}: ${s.state}${s.outcome ? ` (${s.outcome})` : ''}, ${counted(s.round, 'round')} closed, open count ${formatCount(s.openGapCount)}\n`;
}

export function nothingToDecideLine(view: SessionView): string {
  return `Nothing to decide: the session is ${view.machine.state}.\n`;
}

/** Why `summary` has nothing to print yet. */
export function summaryNotDue(view: SessionView): string {
  return `summary: the session is ${view.machine.state}, not COMPLETE; the summary comes when it completes`;
}

export function wroteLine(path: string): string {
  return `Wrote ${path}\n`;
}
