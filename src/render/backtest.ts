import type { BacktestRow, Comparison, Course, Counterfactual, SessionBacktest, Warning } from '../core/index.js';

/** One session's backtest as the table shows it: the name it is shown by, what the record did, a row per setting. */
export interface NamedBacktest extends SessionBacktest {
  session: string;
}

const HEADERS = ['session', 'setting', 'warns at', 'stops at', 'against the record'] as const;

/**
 * `gapflow backtest`: what each recorded session did, then one row per
 * session and setting: where the replay warns (the loop asks the user),
 * where it stops, and how that stands to the record.
 */
export function backtestLines(sessions: readonly NamedBacktest[]): string {
  const recorded = sessions.map(
    ({ session, recorded: course }) =>
      `  ${session}: ${course.warnings.length === 0 ? 'no warning' : `warned at ${warnings(course.warnings, '')}`}; ${recordedEnd(course)}`,
  );
  const rows = sessions.flatMap(({ session, rows: settings }) => settings.map((row) => rowCells(session, row)));
  return `Recorded:\n${recorded.join('\n')}\n\n${columns([[...HEADERS], ...rows])}`;
}

function rowCells(session: string, { setting, run, comparison }: BacktestRow): string[] {
  return [session, setting, warnings(run.warnings, '-'), runEnd(run), against(comparison, run)];
}

/** `3 (stall), 6 (critical)`, or `none` when there is no warning. */
function warnings(list: readonly Warning[], none: string): string {
  return list.length === 0 ? none : list.map((w) => `${w.round} (${w.cause})`).join(', ');
}

function recordedEnd(course: Course): string {
  if (course.stop) return `stopped at round ${course.stop.round} (${course.stop.outcome}${course.stop.by === 'round' ? '' : `, by ${course.stop.by}`})`;
  return `still ${course.state} after round ${course.rounds}`;
}

function runEnd(run: Counterfactual): string {
  if (run.stop) return `${run.stop.round} ${run.stop.outcome}${run.stop.by === 'round' ? '' : ` (${run.stop.by})`}`;
  return run.diverged ? '-' : `- (${run.state} at the end)`;
}

/** How the run stands to the record, most telling first; `as recorded` when nothing differs. */
function against({ warningsRaised, warningsMissed, stop }: Comparison, run: Counterfactual): string {
  const parts: string[] = [];
  if (warningsRaised.length > 0) parts.push(`warns at ${warningsRaised.join(', ')} where the record did not`);
  if (warningsMissed.length > 0) parts.push(`no warning at ${warningsMissed.join(', ')} where the record warned`);
  const changed = stop.outcomeChanged ? ` (${stop.outcomeChanged.now}, was ${stop.outcomeChanged.was})` : '';
  const rounds = `${stop.rounds} round${stop.rounds === 1 ? '' : 's'}`;
  if (stop.shift === 'earlier') parts.push(`stops ${rounds} earlier${changed}`);
  if (stop.shift === 'later') parts.push(`stops ${rounds} later${changed}`);
  if (stop.shift === 'same' && changed !== '') parts.push(`stops at the same round${changed}`);
  if (stop.shift === 'only_here') parts.push('stops where the record went on');
  if (stop.shift === 'not_yet') parts.push(`not stopped by round ${run.rounds}, where the record stopped`);
  if (run.diverged) parts.push(`diverged from the record at round ${run.diverged.round}: ${run.diverged.reason}`);
  return parts.length === 0 ? 'as recorded' : parts.join('; ');
}

/** Rows as aligned columns, two spaces apart; the last column is never padded. */
function columns(rows: readonly (readonly string[])[]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((row) => row[i]!.length)));
  return rows.map((row) => row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  ')).join('\n') + '\n';
}
