import { closedRounds, trendLine, viewForecast, type SessionView } from '../core/index.js';
import { toMermaid } from './diagram.js';

function fence(body: string): string {
  return `\`\`\`mermaid\n${body.trimEnd()}\n\`\`\``;
}

/** A number as Mermaid reads it: at most one decimal (open counts are whole or halves). */
function plain(value: number): string {
  return String(Math.round(value * 10) / 10);
}

/**
 * Open count (line) and weighted open (bars) at the start of round 1 and at
 * each closed round's end, as a Mermaid xychart that GitHub renders; with a
 * forecast, the trend it is read from (a second line, the weighted open
 * count's fitted line, none below zero) over the same rounds and on to the
 * round it reaches zero in. Null until a round has closed.
 *
 * Mermaid's xychart draws every series over every label (no missing
 * points, no dashed lines), so the rounds ahead show no bar, and the open
 * count's line holds its last value there.
 */
export function openChart(view: SessionView): string | null {
  const rounds = closedRounds(view);
  const first = rounds[0];
  if (!first) return null;
  const labels = ['start', ...rounds.map((r) => `R${r.round}`)];
  const counts = [first.openStart, ...rounds.map((r) => r.openEnd ?? r.openStart)];
  const weighted = [first.weightedOpenStart, ...rounds.map((r) => r.weightedOpenEnd ?? r.weightedOpenStart)];
  const last = rounds.length;
  // At most ten rounds ahead, or as many as have closed: a count that barely falls would project thousands.
  const trend = viewForecast(view)?.finish ? (trendLine(weighted.slice(1))?.slice(0, last + 1 + Math.max(CHART_AHEAD, last)) ?? null) : null;
  if (trend) {
    for (let round = last + 1; round <= trend.length - 1; round += 1) {
      labels.push(`R${round}?`);
      weighted.push(0);
      counts.push(counts[last]!);
    }
  }
  const top = Math.max(1, ...counts, ...weighted, ...(trend ?? []));
  return fence(
    [
      'xychart-beta',
      `  title "${trend ? 'Open count (first line), weighted open (bars) and its trend (second line)' : 'Open count (line) and weighted open (bars)'}"`,
      `  x-axis [${labels.map((l) => `"${l}"`).join(', ')}]`,
      `  y-axis "Gaps" 0 --> ${plain(top)}`,
      `  bar [${weighted.map(plain).join(', ')}]`,
      `  line [${counts.map(plain).join(', ')}]`,
      ...(trend ? [`  line [${trend.map(plain).join(', ')}]`] : []),
    ].join('\n'),
  );
}

/** The fewest rounds ahead the chart's trend may run (it runs as many as have closed, when more). */
const CHART_AHEAD = 10;

/** The statechart with the session's state highlighted. */
export function stateChart(view: SessionView): string {
  return fence(toMermaid(view.machine.state));
}
