import type { CheckTree } from './types.js';

/** The verbose CONVERGENCE CHECK log (`check --verbose`), drawn with its box characters. */
export function renderCheckTree(tree: CheckTree): string {
  const lines = [`CONVERGENCE CHECK (Iteration ${tree.iteration})`];
  for (const line of tree.lines) {
    lines.push(`├─ ${line.text}`);
    const notes = line.notes ?? [];
    notes.forEach((note, i) => lines.push(`│   ${i === notes.length - 1 ? '└─' : '├─'} ${note}`));
  }
  lines.push(`└─ DECISION: ${tree.decision}`);
  return `${lines.join('\n')}\n`;
}

export const yesNo = (holds: boolean): string => (holds ? 'YES' : 'NO');

/** A ratio or score with two decimals, as the check trees print them. */
export const two = (x: number): string => x.toFixed(2);

/** At most two decimals, none when whole: 91, 90.5, 87.25. */
export const num = (x: number): string => String(Math.round(x * 100) / 100);
