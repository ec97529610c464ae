import type { Forecast } from '../core/index.js';
import { terminalSafe } from '../render/index.js';
import type { FleetRow } from './rows.js';

/*
 * `gapflow fleet` for people: one line a session, in columns, and a line
 * under the table for each session that could not be read, or is shown
 * stale (as last read, its latest read having failed). Every cell is
 * text a folder, a database row or a log chose: terminalSafe spells out
 * whatever a terminal would obey or hide.
 */

const HEADERS = ['SESSION', 'STATE', 'ROUND', 'OPEN', 'WEIGHTED', 'FORECAST', 'LAST EVENT', 'LAST REASON'];

/** The table of `rows`, or one line saying there are none under `location`. */
export function fleetTable(rows: readonly FleetRow[], location: string): string {
  if (rows.length === 0) return `No sessions under ${terminalSafe(location)}.\n`;
  const cells = rows.map((row) =>
    row.error !== null
      ? [terminalSafe(row.name), 'UNREADABLE', '', '', '', '', '', '']
      : [
          row.name,
          row.stale ? `${row.state ?? ''} (stale ${ageWords(row.staleForSeconds ?? 0)})` : (row.state ?? ''),
          `${row.round}${row.roundOpen ? '+' : ''}`,
          String(row.open),
          String(row.weightedOpen),
          forecastWords(row.forecast),
          row.age === null ? '-' : `${ageWords(row.age)} ago`,
          row.lastReason ?? '-',
        ].map(terminalSafe),
  );
  const widths = HEADERS.map((header, i) => Math.max(header.length, ...cells.map((line) => line[i]!.length)));
  const line = (words: readonly string[]) =>
    words
      .map((word, i) => (i === words.length - 1 ? word : word.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  const errors = rows.flatMap((row) => {
    if (row.error !== null) return [`${terminalSafe(row.name)}: ${terminalSafe(row.error)}`];
    if (row.stale)
      return [
        `${terminalSafe(row.name)}: stale for ${ageWords(row.staleForSeconds ?? 0)}, shown as last read; reading it again failed: ${terminalSafe(row.staleReason ?? '')}`,
      ];
    return [];
  });
  const open = rows.some((row) => row.roundOpen) ? ['(ROUND n+: round n+1 is open)'] : [];
  return `${[line(HEADERS), ...cells.map(line), ...open, ...errors].join('\n')}\n`;
}

/** A forecast in a few words: the rounds it finishes in, or why there is no estimate. */
export function forecastWords(forecast: Forecast | null): string {
  if (forecast === null) return '-';
  if (forecast.finish !== null)
    return forecast.finish.low === forecast.finish.high ? `round ${forecast.finish.low}` : `rounds ${forecast.finish.low}-${forecast.finish.high}`;
  return { declining: 'declining', too_few_rounds: 'too few rounds', no_downward_trend: 'not falling', already_done: 'done' }[forecast.reason];
}

/** Seconds as the largest whole unit: 45s, 12m, 3h, 2d. */
export function ageWords(seconds: number): string {
  if (seconds < 60) return `${seconds}s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)}h`;
  return `${Math.floor(seconds / 86_400)}d`;
}
