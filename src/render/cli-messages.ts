import type { GapflowEvent } from '../../events/index.js';
import type { Remedy, SessionView, LoopStep } from '../core/lean.js';
import { formatCount } from '../policies/lean.js';

/**
 * The CLI's words for what the core leaves as codes (a refusal's remedy), its
 * one-line errors, and the lines of the log and loop commands.
 */

/** What to type to get past a refusal. */
export const REMEDY_HINT: Readonly<Record<Remedy, string>> = {
  resume: 'run: gapflow decide resume',
  decide: 'run: gapflow prompt, for the options',
  start_round: 'run: gapflow round start',
  close_round: 'run: gapflow round close',
  acknowledge_risk: 'add --accept-critical',
  give_rationale: 'add --rationale TEXT',
  name_gaps: 'add --gaps ID[,ID...]',
  record_metrics: 'run: gapflow record POLICY ...',
  record_gap_events: 'run: gapflow gap open|move|severity ...',
  choose_policies_at_init: '--policy',
  enable_gap_policy: 'add gaps to --policy, or leave it out',
};

/**
 * An error stays one line whatever a caller typed into it: control and
 * line-breaking characters are shown escaped (`\n`, `\u2028`).
 */
function oneLine(message: string): string {
  // eslint-disable-next-line no-control-regex -- control characters are exactly what this escapes
  return message.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, (c) => {
    const json = JSON.stringify(c).slice(1, -1);
    // JSON leaves DEL, the C1 controls and the Unicode line separators as they are: spell those out.
    return json === c ? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}` : json;
  });
}

/** A call whose words are off (exit 2). */
export function usageErrorLine(message: string): string {
  return `gapflow: ${oneLine(message)} (gapflow --help lists the commands)\n`;
}

/** A refused request, with what would let it through. */
export function refusalLine(message: string, remedy: Remedy | undefined): string {
  return `gapflow: refused: ${oneLine(message)}${remedy ? ` (${REMEDY_HINT[remedy]})` : ''}\n`;
}

/** A failure that is not the caller's mistake (a damaged log). */
export function errorLine(message: string): string {
  return `gapflow: ${oneLine(message)}\n`;
}

/** An environment failure (permissions, a full disk): its first line, never a stack trace. */
export function environmentErrorLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return errorLine(message.split('\n')[0]!);
}

/** `record` without a policy that records metrics (`remedy`: what to do instead, as the core says). */
export function recordPolicyProblem(name: string | undefined, known: readonly string[], remedy: Remedy | undefined): string {
  if (name === undefined) return `record needs a policy: ${known.join(', ')}`;
  const why = remedy === 'record_gap_events' ? 'gaps are recorded with gapflow gap …' : `unknown policy "${name}"`;
  return `${why}; record takes ${known.join(', ')}`;
}

export function unknownStateFormat(format: string, known: readonly string[]): string {
  return `state --format takes ${known.join(' or ')}, not "${format}"`;
}

export function stateFormatNotEnabled(format: string, policy: string, view: SessionView): string {
  return `state --format ${format}: the ${policy} policy is not enabled (enabled: ${view.policies.enabled.join(', ')})`;
}

/** One line of a batch, with its own event: the round it started on the way, or the original of a retried id. */
export interface AppendedLine {
  line: number;
  own: GapflowEvent;
  started: number | null;
  already: boolean;
}

/** `append`: a line per batch line, the reports written, and where the session stands. */
export function appendLines(lines: readonly AppendedLine[], appended: number, reports: readonly string[], view: SessionView): string {
  const out = lines.map(({ line, own, started, already }) => {
    const auto = started !== null ? ` (after round.started, seq ${started})` : '';
    return `line ${line}: seq ${own.seq} ${describe(own)}${auto}${already ? ' (already recorded; nothing appended)' : ''}\n`;
  });
  for (const report of reports) out.push(`Wrote ${report}\n`);
  out.push(`Appended ${appended} events; ${view.machine.state}, open count ${formatCount(view.open.count)}\n`);
  return out.join('');
}

function describe(event: GapflowEvent): string {
  if ('id' in event.data) return `${event.type} ${event.data.id}`;
  if ('kind' in event.data) return `${event.type} ${event.data.kind}`;
  if ('round' in event.data) return `${event.type} ${event.data.round}`;
  return event.type;
}

export { claudeHookAnswer, hookWarningLine } from './hook-answer.js';

/** `verify` on a whole log: its extent and chain, then the audit's findings. */
export function verifiedLines(result: { location: string; events: readonly unknown[]; lastSeq: number; lastSum: string; findings: readonly { line: number; type: string; message: string }[] }): string {
  const lines = [`OK: ${result.location}: ${result.events.length} events, seq 1 to ${result.lastSeq}, checksum chain intact (last ${result.lastSum || 'none'})\n`];
  const { findings } = result;
  if (findings.length > 0) {
    lines.push(`Audit under today's rules: ${findings.length} finding${findings.length === 1 ? '' : 's'} (the history stands as recorded):\n`);
    for (const f of findings) lines.push(`  line ${f.line}: ${f.type}: ${f.message}\n`);
  }
  return lines.join('');
}

/** `repair`: what was cut, and where its bytes were kept. */
export function repairedLine(report: { location: string; events: number; cut: { line: number; bytes: number; reason: string; backup: string | null } | null }): string {
  const { cut } = report;
  if (cut === null) return `Nothing to repair: ${report.location} has no torn last line (${report.events} events).\n`;
  if (cut.backup === null) return `Removed ${report.location}: ${cut.reason}. \`gapflow init\` starts a session there.\n`;
  return `Cut line ${cut.line} (${cut.bytes} bytes: ${cut.reason}); ${report.events} events remain. The cut bytes are in ${cut.backup}\n`;
}

export function unmarkedChartLine(dir: string): string {
  return `gapflow: no session in ${dir}; the chart is unmarked\n`;
}

/** `inspect` is up: what it replayed, and where to watch it. */
export function inspectingLines(dir: string, view: SessionView, page: string, inspector: string, relay: string): string {
  return [
    `Inspecting ${dir}: ${view.lastSeq} events replayed into a live actor (now ${view.machine.state}).`,
    `Open ${page} in a browser to watch it in the Stately inspector (the page loads ${inspector}).`,
    `Inspection events: ${relay}. Press Ctrl-C to stop.`,
    '',
  ].join('\n');
}

/** `gapflow next`'s line: the action and why. */
export function nextLine(step: Pick<LoopStep, 'action' | 'reason'>): string {
  return `${step.action}: ${step.reason}\n`;
}
