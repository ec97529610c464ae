import { shownValue } from '../../events/index.js';
import { oneLine } from './one-line.js';
import { terminalSafe, terminalSafeJson } from './terminal.js';
import type { BadValue, GapflowEvent, SyncFormat } from '../../events/index.js';
import { idList, roundCount, type Remedy, type SessionView, type LoopStep } from '../core/index.js';
import { formatCount } from '../policies/index.js';
import { counted } from './counted.js';
import { renderRoundReport } from './round.js';

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
  run_verification: 'fix what the check reports, then run the same command again: the check runs again',
  approve_check:
    'ask the user: they read it with `gapflow trust` and approve it with `gapflow trust --allow`, which an agent must not do for them; then run the same command again',
};

/** Where to look after a usage error. */
export const USAGE_HINT = 'gapflow --help lists the commands';

/** A call whose words are off (exit 2). */
export function usageErrorLine(message: string): string {
  return `gapflow: ${oneLine(message)} (${USAGE_HINT})\n`;
}

/** A refused request, with what would let it through. */
export function refusalLine(message: string, remedy: Remedy | undefined): string {
  return `gapflow: refused: ${oneLine(message)}${remedy ? ` (${REMEDY_HINT[remedy]})` : ''}\n`;
}

/** The call recorded its event, but the status.md the session asks for could not follow. */
export function statusNotRewrittenLine(message: string): string {
  return `gapflow: recorded, but status.md was not rewritten: ${oneLine(message.split('\n')[0]!)}\n`;
}

/** The call recorded its event, but a file that goes with it (`what`: a report, the session's config.json) could not be written. */
export function recordedButNotWrittenLine(what: string, message: string): string {
  return `gapflow: recorded, but ${oneLine(what)} was not written: ${oneLine(message.split('\n')[0]!)}\n`;
}

/** `status --format github` with no room for even the summary without its round table (`path`: the step summary file, when it goes there). */
export function jobSummaryTooBig(path: string | null, size: number, cap: number): string {
  const already = path === null ? '' : `$GITHUB_STEP_SUMMARY (${path}) already holds ${Math.ceil(size / 1024)} KiB; `;
  return `${already}the job summary would pass GitHub's ${cap / 1024 / 1024} MiB cap for a step, which drops the step's whole summary; nothing was written`;
}

/** `status --format github` appended the job summary. */
export function appendedSummaryLine(path: string): string {
  return `Appended the job summary to ${path}\n`;
}

/**
 * What a failed call reports, whatever failed: `usage` (exit 2: an unknown
 * command or option, a missing argument), `invalid_value` (exit 1: a value
 * that is not what its field takes), `refused` (exit 1: a request the
 * session's rules refuse), `log_error` (exit 1: a log that cannot be read
 * or written as it is), `error` (exit 1: anything else, such as a full disk).
 */
export interface FailureReport {
  code: 'usage' | 'invalid_value' | 'refused' | 'log_error' | 'outcome_unknown' | 'error';
  message: string;
  /** What would get past it, in words (a command to run, a flag to add); null when nothing gapflow knows of would. */
  remedy: string | null;
  bad?: BadValue | undefined;
  /** For `outcome_unknown`: the --event-id a retry of the same command must carry (null for a batch). */
  retryId?: string | null | undefined;
}

/** What a refusal's JSON says to get past an invalid value. */
export function valueRemedy(bad: BadValue): string | null {
  if (bad.suggestion !== null) return `did you mean ${bad.suggestion}?`;
  return bad.valid !== null && bad.valid.length > 0 ? `use one of ${bad.valid.join(', ')}` : null;
}

/** The longest text of a bad value a JSON failure echoes. */
const ECHOED_MAX = 200;

/** A bad value as a JSON failure echoes it: a short string, number, boolean or null as it is, anything else as an error shows it. */
function echoed(value: unknown): unknown {
  if (typeof value === 'string') return [...value].length > ECHOED_MAX ? `${[...value].slice(0, ECHOED_MAX - 1).join('')}…` : value;
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) return value;
  return value === undefined ? null : shownValue(value, ECHOED_MAX);
}

/**
 * A failure as `--json` reports it: one line of JSON on stderr,
 * `{"code","message","remedy"}` and, for an invalid value, `field`, `value`
 * (cut short), `valid` and `suggestion`. JSON escapes control characters;
 * the line and paragraph separators, the direction controls and the
 * invisible characters it would leave raw are escaped too (the value read
 * back is the same).
 */
export function failureJson(report: FailureReport): string {
  const { code, message, remedy, bad, retryId } = report;
  const value = bad ? { field: bad.field, value: echoed(bad.value), valid: bad.valid, suggestion: bad.suggestion } : {};
  const retry = retryId === undefined ? {} : { retryId };
  const text = JSON.stringify({ code, message: oneLine(message), remedy, ...value, ...retry });
  return `${terminalSafeJson(text)}\n`;
}

/** A failure that is not the caller's mistake (a damaged log). */
export function errorLine(message: string): string {
  return `gapflow: ${oneLine(message)}\n`;
}

/**
 * A write whose outcome is not known (exit 4): the message and what makes a
 * retry safe. With the id its one request's event was given, the same
 * command again with `--event-id` records it once, whichever way it went.
 */
export function unknownOutcome(message: string, retryId: string | null): { message: string; remedy: string } {
  return {
    message: `outcome unknown: ${message}; the write may or may not be recorded`,
    remedy:
      retryId === null
        ? 'read the session (gapflow state) to see what is there before sending the rest again; lines that carry an "id" are never recorded twice'
        : `it is recorded once, whichever way this went, when the same command runs again with --event-id ${retryId}`,
  };
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

export function stateFormatNotEnabled(format: string, policy: string, view: SessionView): string {
  return `state --format ${format}: the ${policy} policy is not enabled (enabled: ${view.policies.enabled.join(', ')})`;
}

/** One line of a batch, with its own event: the round it started on the way, or the original of a retried id. */
export interface AppendedLine {
  line: number;
  /** Null for a line that recorded nothing (a snapshot that changes nothing). */
  own: GapflowEvent | null;
  type: string;
  started: number | null;
  already: boolean;
}

/** `append`: a line per batch line, the reports written, and where the session stands. */
export function appendLines(lines: readonly AppendedLine[], appended: number, reports: readonly string[], view: SessionView): string {
  const out = lines.map(({ line, own, type, started, already }) => {
    if (own === null) return `line ${line}: ${type}: nothing changed; nothing appended\n`;
    const auto = started !== null ? ` (after round.started, seq ${started})` : '';
    return `line ${line}: seq ${own.seq} ${describe(own)}${auto}${already ? ' (already recorded; nothing appended)' : ''}\n`;
  });
  for (const report of reports) out.push(`Wrote ${report}\n`);
  out.push(`Appended ${counted(appended, 'event')}; ${view.machine.state}, open count ${formatCount(view.open.count)}\n`);
  return out.join('');
}

/** What a sync did, by gap: what `sync --json` prints and `syncLines` words. */
export interface SyncSummary {
  source: string;
  format: SyncFormat;
  reported: number;
  opened: string[];
  resolved: string[];
  reopened: string[];
  /** Of the reopened: gaps closed by hand that the snapshot still reported. */
  claimed: string[];
  /** The round it went into (0: the baseline), and whether this call closed it. */
  round: number;
  closed: boolean;
}

/** `sync`: what the snapshot changed, the claims it disputed, and where the session stands (a close reported as `round close` reports it). */
export function syncLines(summary: SyncSummary, view: SessionView): string {
  const { source, format, reported, opened, resolved, reopened, claimed } = summary;
  const head = `${source} (${format}): ${counted(reported, 'finding')}`;
  const changes = [
    ['opened', opened],
    ['resolved', resolved],
    ['reopened', reopened],
  ] as const;
  const changed = changes.filter(([, ids]) => ids.length > 0).map(([word, ids]) => `${word} ${ids.length} (${idList(ids)})`);
  const out = [changed.length === 0 ? `${head}; nothing changed since its last snapshot\n` : `${head}; ${changed.join(', ')}\n`];
  if (claimed.length > 0) out.push(`Claimed but still reported (closed by hand, reopened): ${idList(claimed)}\n`);
  if (summary.closed) return `${out.join('')}${renderRoundReport(view).trimEnd()}\n`;
  const where = view.roundOpen ? `round ${roundCount(view)} open` : roundCount(view) === 0 ? 'the baseline' : 'between rounds';
  out.push(`${changed.length === 0 ? 'Nothing written' : 'Recorded'}; ${where}; ${view.machine.state}, open count ${formatCount(view.open.count)}\n`);
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
export function verifiedLines(result: {
  location: string;
  events: readonly unknown[];
  lastSeq: number;
  lastSum: string;
  findings: readonly { line: number; type: string; message: string }[];
}): string {
  const lines = [
    `OK: ${result.location}: ${counted(result.events.length, 'event')}, seq 1 to ${result.lastSeq}, checksum chain intact (last ${result.lastSum || 'none'})\n`,
  ];
  const { findings } = result;
  if (findings.length > 0) {
    lines.push(`Audit under today's rules: ${findings.length} finding${findings.length === 1 ? '' : 's'} (the history stands as recorded):\n`);
    for (const f of findings) lines.push(`  line ${f.line}: ${f.type}: ${f.message}\n`);
  }
  return lines.join('');
}

/** `repair`: what was cut, and where its bytes were kept. */
export function repairedLine(report: {
  location: string;
  events: number;
  cut: { line: number; bytes: number; reason: string; backup: string | null } | null;
}): string {
  const { cut } = report;
  if (cut === null) return `Nothing to repair: ${report.location} has no torn last line (${counted(report.events, 'event')}).\n`;
  if (cut.backup === null) return `Removed ${report.location}: ${cut.reason}. \`gapflow init\` starts a session there.\n`;
  return `Cut line ${cut.line} (${counted(cut.bytes, 'byte')}: ${cut.reason}); ${counted(report.events, 'event')} ${report.events === 1 ? 'remains' : 'remain'}. The cut bytes are in ${cut.backup}\n`;
}

export function unmarkedChartLine(dir: string): string {
  return `gapflow: no session in ${dir}; the chart is unmarked\n`;
}

/** `inspect` is up: what it replayed, and where to watch it. */
export function inspectingLines(dir: string, view: SessionView, page: string, inspector: string, relay: string): string {
  return [
    `Inspecting ${dir}: ${counted(view.lastSeq, 'event')} replayed into a live actor (now ${view.machine.state}); events appended from now on follow as they are written.`,
    `Open ${page} in a browser to watch it in the Stately inspector (the page loads ${inspector}).`,
    `Inspection events: ${relay}. Press Ctrl-C to stop.`,
    '',
  ].join('\n');
}

/** `gapflow next`'s line: the action and why. */
export function nextLine(step: Pick<LoopStep, 'action' | 'reason'>): string {
  return `${step.action}: ${step.reason}\n`;
}

/** What `next` and the hook add while a session's check is not approved on this machine: the write that would complete will be refused. */
export function unapprovedCheckNote(command: string): string {
  return `this session's check ${terminalSafe(JSON.stringify(command.slice(0, 200)))} is not approved on this machine, so it will not run and the session cannot complete: ask the user to read and approve it (gapflow trust)`;
}
