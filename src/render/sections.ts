import type { Severity } from '../../events/index.js';
import {
  closedRoundCount,
  closedRounds,
  openCount,
  nextStep,
  tracksGaps,
  roundLimit,
  presetForBaseline,
  SEVERITIES,
  STATE_CLASS,
  type HistoryEntry,
  type RoundFigures,
  type SessionView,
} from '../core/index.js';
import { formatCount, signed } from '../policies/index.js';
import { focusIsChosen } from './focus.js';
import { escapeMarkdown as md, table } from './markdown.js';
import { counted } from './counted.js';

export function configTable(view: SessionView): string {
  const { config } = view;
  const limit = roundLimit(view);
  // Without the gap policy, its divergence threshold and CRITICAL override do not apply.
  const gaps = tracksGaps(view);
  const rows = [
    ['stall_threshold', String(config.stallThreshold)],
    ...(gaps ? [['divergence_threshold', String(config.divergenceThreshold)]] : []),
    ['max_rounds', limit === null ? "none (each policy's own maximum)" : String(limit)],
    ...(gaps ? [['critical_override', String(config.criticalOverride)]] : []),
  ];
  if (view.settings?.preset) rows.push(['preset', presetLabel(view)]);
  // Shown only when set, so a session that sets neither reads as it always did.
  if (view.settings?.pingPong !== undefined) rows.push(['ping_pong', `${view.settings.pingPong} reopens`]);
  if (view.settings?.verify !== undefined) rows.push(['verify', 'see Verification']);
  return table(['Parameter', 'Value'], rows);
}

function presetLabel(view: SessionView): string {
  const preset = view.settings?.preset;
  if (preset !== 'auto') return preset ?? '';
  if (view.baselineGapCount === null) return 'auto (chosen when round 1 starts)';
  return `auto: ${presetForBaseline(view.baselineGapCount)} (${formatCount(view.baselineGapCount)} baseline gaps)`;
}

/** The round table of `rounds` (default: every closed round). */
export function roundTable(view: SessionView, rounds: readonly RoundFigures[] = closedRounds(view)): string {
  // Columns shown only when some round needs them, so a session without either reads as before: R25's Kind once a
  // round was not a work round, R20's Withdrawn once a round withdrew a duplicate (Open End = Open Start - Resolved + New - Withdrawn).
  const columns: RoundColumns = { kinds: someRoundNotWork(rounds), withdrawals: rounds.some((r) => r.withdrawn > 0) };
  const headers = [
    'Round',
    ...(columns.kinds ? ['Kind'] : []),
    'Open Start',
    'Resolved',
    'New',
    ...(columns.withdrawals ? ['Withdrawn'] : []),
    'Open End',
    'Unweighted Net',
    'Weighted Net',
    'State',
    'Flat Count',
  ];
  return table(
    headers,
    rounds.map((r) => roundCells(view, r, columns)),
  );
}

/** R25: every table of rounds shows a Kind column once one of its rounds was not a work round. */
export function someRoundNotWork(rounds: readonly RoundFigures[]): boolean {
  return rounds.some((r) => r.kind !== 'work');
}

/** The round table's optional columns. */
export interface RoundColumns {
  kinds: boolean;
  withdrawals: boolean;
}

/** One round's cells in the round table: round, its kind, open start, resolved, new, withdrawn, open end, the two nets, state, flat count (kind and withdrawn as `columns` says). */
export function roundCells(view: SessionView, r: RoundFigures, columns: RoundColumns = { kinds: false, withdrawals: false }): string[] {
  return [
    String(r.round),
    ...(columns.kinds ? [r.kind] : []),
    formatCount(r.openStart),
    String(r.resolved),
    String(r.new),
    ...(columns.withdrawals ? [String(r.withdrawn)] : []),
    formatCount(r.openEnd ?? 0),
    signed(r.unweightedNet),
    signed(r.weightedNet),
    r.state === 'COMPLETE' ? `COMPLETE (${view.machine.outcome})` : (r.state ?? ''),
    r.flatCount === null ? '-' : String(r.flatCount),
  ];
}

export function severityTable(round: RoundFigures): string {
  // UNTRIAGED has a row only in a round that counted one (R23), so a session without any reads as before.
  const counted = SEVERITIES.filter((s) => s !== 'UNTRIAGED' || Object.values(round.bySeverity[s]).some((n) => n !== 0));
  const rows = counted.map((s) => {
    const f = round.bySeverity[s];
    return [s, String(f.resolved), String(f.new), signed(f.weightedResolved - f.weightedNew)];
  });
  rows.push([
    '**Total**',
    `**${round.resolved}** (weight: ${round.weightedResolved})`,
    `**${round.new}** (weight: ${round.weightedNew})`,
    `**${signed(round.weightedNet)}**`,
  ]);
  return table(['Severity', 'Resolved', 'New', 'Net'], rows);
}

/** R7: the severity changes behind a breakdown's weighted figures. */
export function severityChangeNote(round: RoundFigures): string {
  const changes = round.severityChanges.map((c) => {
    const effect = c.delta > 0 ? `+${c.delta} weighted new` : `+${-c.delta} weighted resolved`;
    return `${md(c.id)} ${c.from} -> ${c.to} (${effect})`;
  });
  return `Severity changes: ${changes.join('; ')}.`;
}

/**
 * R14: both nets are shown; when their signs disagree the weighted one
 * decides. They disagree when one shows progress (above 0) and the other does
 * not, since that is the line between CONVERGING and FLAT.
 */
export function netsDisagree(round: Pick<RoundFigures, 'unweightedNet' | 'weightedNet'>): boolean {
  return round.unweightedNet > 0 !== round.weightedNet > 0;
}

export function disagreementNote(round: RoundFigures): string {
  return `The nets disagree (unweighted ${signed(round.unweightedNet)}, weighted ${signed(round.weightedNet)}): the weighted net decides.`;
}

export function historyLine(entry: HistoryEntry): string {
  const step = entry.from === entry.to ? entry.to : `${entry.from} -> ${entry.to}`;
  const when =
    entry.cause === 'round'
      ? `Round ${entry.round}`
      : entry.duringRound
        ? `During round ${entry.round + 1}`
        : entry.round === 0
          ? 'Before round 1'
          : `After round ${entry.round}`;
  return `- ${when}: ${step} (${md(entry.reason)})`;
}

export function historyList(view: SessionView): string {
  return view.history.length === 0 ? '_No round has closed yet._' : view.history.map(historyLine).join('\n');
}

function gapNotes(view: SessionView, id: string): string {
  const gap = view.gaps.get(id);
  if (!gap) return '';
  const notes: string[] = [];
  if (view.focus.includes(id)) notes.push('**focus**');
  if (gap.state === 'BLOCKED') {
    notes.push(gap.blockedBy ? `blocked by ${md(gap.blockedBy)}` : 'blocked');
    if (gap.reason) notes.push(md(gap.reason));
  } else if (gap.state === 'USER_DEFERRED' && gap.reason) {
    notes.push(md(gap.reason));
  }
  if (gap.duplicateOf) notes.push(`duplicate of ${md(gap.duplicateOf)}`);
  if (gap.splitInto) notes.push(`split into ${gap.splitInto.map(md).join(', ')}`);
  if (gap.splitFrom) notes.push(`split from ${md(gap.splitFrom)}`);
  if (gap.severity === 'UNTRIAGED' && STATE_CLASS[gap.state] !== 'closed') notes.push('untriaged (weighs as MEDIUM)');
  if (gap.spawnedBy) notes.push(`spawned by ${md(gap.spawnedBy)}`);
  if (!gap.blocking) notes.push('non-blocking');
  notes.push(gap.openedInRound === 0 ? 'baseline' : `opened in round ${gap.openedInRound}`);
  return notes.join('; ');
}

const CLASS_ORDER = { open: 0, parked: 1, closed: 2 } as const;

/** How many gaps each severity's table in status.md lists before it counts the rest (`status --all` lists every one). */
export const STATUS_GAPS_LISTED = 100;

/**
 * The gap inventory: a table a severity, its open gaps first, then the
 * parked, then the closed ones; of a severity with more than
 * STATUS_GAPS_LISTED gaps (a scanner's findings), the first that many and
 * the rest counted, unless `all`.
 */
export function inventory(view: SessionView, all = false): string {
  const gaps = [...view.gaps.values()];
  const total = `Open count: ${formatCount(view.open.count)} (weighted ${formatCount(view.open.weighted)}), of ${counted(gaps.length, 'gap')} recorded.`;
  // R23: untriaged gaps are listed as such, in a section of their own when there are any.
  const shown = SEVERITIES.filter((severity) => severity !== 'UNTRIAGED' || gaps.some((g) => g.severity === severity));
  const sections = shown.map((severity: Severity) => {
    const group = gaps.filter((g) => g.severity === severity).sort((a, b) => CLASS_ORDER[STATE_CLASS[a.state]] - CLASS_ORDER[STATE_CLASS[b.state]]);
    if (group.length === 0) return `#### ${severity} (0)\n\n_None._`;
    const open = formatCount(openCount(group));
    const listed = all ? group : group.slice(0, STATUS_GAPS_LISTED);
    const rows = listed.map((g) => [md(g.id), g.state, md(g.title), gapNotes(view, g.id)]);
    const rest = group.slice(listed.length);
    const more =
      rest.length === 0
        ? ''
        : `\n\n_And ${counted(rest.length, 'more gap')} (open count ${formatCount(openCount(rest))}), not listed here: \`gapflow status --all\` lists every gap._`;
    return `#### ${severity} (${group.length}, open count ${open})\n\n${table(['Gap', 'State', 'Title', 'Notes'], rows)}${more}`;
  });
  return [total, ...sections].join('\n\n');
}

export function headline(view: SessionView): string {
  const { state, outcome } = view.machine;
  const next = nextStep(view);
  const closed = closedRoundCount(view);
  const label = outcome ? `${state} (${outcome})` : state;
  const lines = [
    `**State:** ${label} · **Rounds closed:** ${closed}${ofMax(view)}${view.roundOpen ? ` · round ${closed + 1} open` : ''}`,
    `**Next:** ${next.action}: ${md(next.reason)}`,
  ];
  const untriaged = untriagedCount(view);
  if (untriaged > 0) lines.push(`**Untriaged:** ${untriaged} ${untriaged === 1 ? 'gap' : 'gaps'} (each weighs as MEDIUM until triaged)`);
  if (view.focus.length > 0)
    lines.push(`**Focus:** ${view.focus.map(md).join(', ')} (${focusIsChosen(view) ? 'prioritized gaps' : 'prioritized CRITICAL gaps'})`);
  if (view.baseline) {
    lines.push(
      `**Baseline:** ${formatCount(view.baseline.openCount)} open (weighted ${formatCount(view.baseline.weightedOpen)}), accepted after round ${view.baseline.afterRound}`,
    );
  }
  return lines.join('  \n');
}

/** R23: gaps not closed whose severity is not known yet. */
export function untriagedCount(view: SessionView): number {
  let count = 0;
  for (const gap of view.gaps.values()) if (gap.severity === 'UNTRIAGED' && STATE_CLASS[gap.state] !== 'closed') count += 1;
  return count;
}

/** ` of max N` where a round limit applies, else nothing. */
export function ofMax(view: SessionView): string {
  const limit = roundLimit(view);
  return limit === null ? '' : ` of max ${limit}`;
}

/** R26: the gaps a round moved outside the focus set at the time; they were recorded, and are flagged here. */
export function outsideFocusNote(round: RoundFigures): string {
  const count = round.outsideFocus.length;
  return `Moved outside the focus: ${round.outsideFocus.map(md).join(', ')} (${count} ${count === 1 ? 'gap' : 'gaps'} the focus did not name).`;
}
