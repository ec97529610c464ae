import { closedRoundCount, closedRounds, formatCount, nextStep, roundLimit, tracksGaps, type RoundFigures, type SessionView } from '../core/index.js';
import { roundCells, someRoundNotWork } from './sections.js';
import { terminalSafe } from './terminal.js';

/** What a `watch` frame fits into, and what it says besides the session. */
export interface FrameOptions {
  /** The session folder, for the title line. */
  dir: string;
  /** Characters a line may take; longer lines are cut (a terminal would wrap them and push the title off). */
  width: number;
  /** Lines the frame may take; the round table gives way first, keeping its latest rounds. */
  height: number;
  /** A fault in the log the follower found, shown until it goes away; null: none. */
  problem: string | null;
  /** Where the updates are served to WebSocket clients; null: nowhere. */
  feed: string | null;
}

/** Lines a frame has besides the table's rows: title, state, counts, next, blank, header, earlier-rounds line, blank, last, problem, hint. */
const FIXED_LINES = 11;

/** A line as a terminal may take it: no raw control or invisible character (text from the log cannot move the cursor), cut to `width`. */
function fit(line: string, width: number): string {
  const clean = terminalSafe(line);
  return clean.length <= width ? clean : `${clean.slice(0, Math.max(0, width - 1))}…`;
}

/** A plain-text table: the first column and every figure right-aligned, the state columns left. */
function textTable(headers: readonly string[], rows: readonly (readonly string[])[], leftColumns: ReadonlySet<number>): string[] {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, i) => (leftColumns.has(i) ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(headers), ...rows.map(line)];
}

function stateCell(view: SessionView, round: RoundFigures): string {
  return round.state === 'COMPLETE' ? `COMPLETE (${view.machine.outcome})` : (round.state ?? '');
}

/** The round table (the gap figures, or each round's combined verdict in a session without gaps) for `rounds`. */
function roundRows(view: SessionView, rounds: readonly RoundFigures[]): string[] {
  const flat = (r: RoundFigures) => (r.flatCount === null ? '-' : String(r.flatCount));
  // A Kind column when some round shown was not a work round (R25), a Withdrawn one when some round withdrew a
  // duplicate (R20), as in status.md; the words (kind, verdict, state) read left-aligned.
  const kinds = someRoundNotWork(rounds);
  const kindHeader = kinds ? ['Kind'] : [];
  const shift = kinds ? 1 : 0;
  if (!tracksGaps(view)) {
    const rows = rounds.map((r) => [String(r.round), ...(kinds ? [r.kind] : []), r.combined?.verdict ?? '-', stateCell(view, r), flat(r)]);
    return textTable(['Round', ...kindHeader, 'Verdict', 'State', 'Flat'], rows, new Set([1, 1 + shift, 2 + shift]));
  }
  // status.md's cells, under shorter headings: a terminal is narrower than a page.
  const columns = { kinds, withdrawals: rounds.some((r) => r.withdrawn > 0) };
  const rows = rounds.map((r) => roundCells(view, r, columns));
  const headers = [
    'Round',
    ...kindHeader,
    'Open Start',
    'Resolved',
    'New',
    ...(columns.withdrawals ? ['Withdrawn'] : []),
    'Open End',
    'Net',
    'Weighted',
    'State',
    'Flat',
  ];
  const state = headers.indexOf('State');
  return textTable(headers, rows, new Set(kinds ? [1, state] : [state]));
}

/**
 * One screen of `gapflow watch`: where the session stands, the latest rounds
 * that fit, and the reason for its last step, redrawn after each event.
 */
export function renderWatchFrame(view: SessionView, options: FrameOptions): string {
  const { state, outcome, flatCount } = view.machine;
  const closed = closedRoundCount(view);
  const limit = roundLimit(view);
  const next = nextStep(view);
  const rounds = closedRounds(view);
  const room = Math.max(1, options.height - FIXED_LINES);
  const shown = rounds.slice(-room);
  const earlier = rounds.length - shown.length;
  const lastStep = view.history.at(-1);
  const lines = [
    `gapflow watch: ${options.dir} (seq ${view.lastSeq})`,
    `State: ${state}${outcome ? ` (${outcome})` : ''} · flat_count ${flatCount}/${view.config.stallThreshold} · rounds closed ${closed}${limit === null ? '' : ` of max ${limit}`}${view.roundOpen ? ` · round ${closed + 1} open` : ''}`,
    tracksGaps(view)
      ? `Open count: ${formatCount(view.open.count)} (weighted ${formatCount(view.open.weighted)})`
      : `Policies: ${view.policies.enabled.join(', ')}`,
    `Next: ${next.action}: ${next.reason}`,
    '',
    ...(shown.length === 0
      ? ['No round has closed yet.']
      : [...(earlier > 0 ? [`… ${earlier} earlier round${earlier === 1 ? '' : 's'}`] : []), ...roundRows(view, shown)]),
    '',
    lastStep ? `Last step: ${lastStep.from === lastStep.to ? lastStep.to : `${lastStep.from} -> ${lastStep.to}`}: ${lastStep.reason}` : 'Last step: none yet',
    ...(options.problem === null ? [] : [`Problem: ${options.problem}`]),
    `Following the log${options.feed === null ? '' : ` (updates on ${options.feed})`}; Ctrl-C to stop.`,
  ];
  return `${lines.map((line) => fit(line, options.width)).join('\n')}\n`;
}
