import { closedRounds, tracksGaps, type RoundFigures, type SessionView } from '../core/index.js';
import { stateChart } from './charts.js';
import { verdictTable } from './policies.js';
import { headline, roundTable } from './sections.js';

/**
 * GitHub's cap on one step's job summary (the file `$GITHUB_STEP_SUMMARY`
 * names): the runner drops a bigger summary whole, with an "upload aborted"
 * annotation, rather than cutting it.
 */
export const STEP_SUMMARY_MAX_BYTES = 1024 * 1024;

/** Room left below the cap: the runner has been seen to refuse summaries a little under it. */
export const STEP_SUMMARY_HEADROOM_BYTES = 16 * 1024;

/**
 * Points the chart plots at most. Mermaid refuses a diagram over 50,000
 * characters (its default maxTextSize), and a few hundred points are already
 * more than a chart a page wide can tell apart; a longer session is plotted
 * every k-th round, always with its last.
 */
export const MAX_CHART_POINTS = 120;

/** Bytes kept for the line that says how many rounds the table leaves out. */
const MORE_LINE_BYTES = 120;

function fence(body: string): string {
  return `\`\`\`mermaid\n${body}\n\`\`\``;
}

function plain(value: number): string {
  return String(Math.round(value * 10) / 10);
}

/** The rounds a chart of `count` closed rounds plots (indexes): every k-th, and the last. */
export function chartSample(count: number, maxPoints = MAX_CHART_POINTS): { indexes: number[]; every: number } {
  const every = Math.max(1, Math.ceil(count / maxPoints));
  const indexes: number[] = [];
  for (let i = every - 1; i < count; i += every) indexes.push(i);
  if (indexes.at(-1) !== count - 1 && count > 0) indexes.push(count - 1);
  return { indexes, every };
}

/** The weighted open count before round 1 and at each (plotted) round's end, as a Mermaid line chart GitHub draws. */
function weightedOpenChart(rounds: readonly RoundFigures[]): string {
  const { indexes, every } = chartSample(rounds.length);
  const plotted = indexes.map((i) => rounds[i]!);
  const labels = ['start', ...plotted.map((r) => String(r.round))];
  const values = [rounds[0]!.weightedOpenStart, ...plotted.map((r) => r.weightedOpenEnd ?? r.weightedOpenStart)];
  const top = Math.max(1, ...values);
  const title = every === 1 ? 'Weighted open count by round' : `Weighted open count, every ${every} rounds`;
  return fence(
    [
      'xychart-beta',
      `  title "${title}"`,
      `  x-axis "Round" [${labels.map((l) => `"${l}"`).join(', ')}]`,
      `  y-axis "Weighted open" 0 --> ${plain(top)}`,
      `  line [${values.map(plain).join(', ')}]`,
    ].join('\n'),
  );
}

function bytes(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

/** The table of the last `rounds`, with a line before it for the ones it leaves out. */
function tableOf(view: SessionView, rounds: readonly RoundFigures[], leftOut: number): string {
  const table = tracksGaps(view) ? roundTable(view, rounds) : verdictTable(view, rounds);
  if (leftOut === 0) return table;
  return `_+${leftOut} more round${leftOut === 1 ? '' : 's'} before these (\`gapflow status\` shows every round)._\n\n${table}`;
}

/**
 * A GitHub Actions job summary: where the session stands, a Mermaid chart of
 * the weighted open count per round (the statechart, for a session without
 * gaps or before a round closes), and the round table, all within
 * `maxBytes` of UTF-8: when the whole table does not fit, its latest rounds
 * do, after a line saying how many came before. Null when not even the
 * summary without its table fits.
 */
export function renderGithubSummary(view: SessionView, maxBytes = STEP_SUMMARY_MAX_BYTES - STEP_SUMMARY_HEADROOM_BYTES): string | null {
  const rounds = closedRounds(view);
  const { state, outcome } = view.machine;
  const chart = rounds.length > 0 && tracksGaps(view) ? weightedOpenChart(rounds) : stateChart(view);
  const head = [`## gapflow: ${state}${outcome ? ` (${outcome})` : ''}`, headline(view), chart, '### Rounds'].join('\n\n');
  const whole = `${head}\n\n${rounds.length === 0 ? '_No round has closed yet._' : tableOf(view, rounds, 0)}\n`;
  if (bytes(whole) <= maxBytes) return whole;
  // Every row of a table is one line: keep the latest rounds whose lines fit after the head and the header.
  const header = tableOf(view, [], 0);
  let room = maxBytes - bytes(head) - bytes(header) - MORE_LINE_BYTES - 8;
  if (room < 0) return null;
  const rowBytes = tableOf(view, rounds, 0)
    .split('\n')
    .slice(2)
    .map((row) => bytes(row) + 1);
  let kept = 0;
  while (kept < rounds.length && rowBytes[rounds.length - 1 - kept]! <= room) {
    room -= rowBytes[rounds.length - 1 - kept]!;
    kept += 1;
  }
  return `${head}\n\n${tableOf(view, rounds.slice(rounds.length - kept), rounds.length - kept)}\n`;
}
