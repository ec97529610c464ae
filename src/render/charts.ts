import { closedRounds, type SessionView } from '../core/index.js';
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
 * each closed round's end, as a Mermaid xychart that GitHub renders. Null
 * until a round has closed.
 */
export function openChart(view: SessionView): string | null {
  const rounds = closedRounds(view);
  const first = rounds[0];
  if (!first) return null;
  const labels = ['start', ...rounds.map((r) => `R${r.round}`)];
  const counts = [first.openStart, ...rounds.map((r) => r.openEnd ?? r.openStart)];
  const weighted = [first.weightedOpenStart, ...rounds.map((r) => r.weightedOpenEnd ?? r.weightedOpenStart)];
  const top = Math.max(1, ...counts, ...weighted);
  return fence(
    [
      'xychart-beta',
      '  title "Open count (line) and weighted open (bars)"',
      `  x-axis [${labels.map((l) => `"${l}"`).join(', ')}]`,
      `  y-axis "Gaps" 0 --> ${plain(top)}`,
      `  bar [${weighted.map(plain).join(', ')}]`,
      `  line [${counts.map(plain).join(', ')}]`,
    ].join('\n'),
  );
}

/** The statechart with the session's state highlighted. */
export function stateChart(view: SessionView): string {
  return fence(toMermaid(view.machine.state));
}
