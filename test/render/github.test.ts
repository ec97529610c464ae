import { describe, expect, it } from 'vitest';
import { chartSample, MAX_CHART_POINTS, renderGithubSummary } from '../../src/render/index.js';
import { baseline, newSession, playRound } from '../support.js';

/** `rounds` rounds, each resolving one HIGH gap and finding a LOW one. */
function session(rounds: number) {
  const s = newSession({ maxRounds: rounds + 10 });
  const ids = baseline(s, 'HIGH', rounds);
  ids.forEach((id, i) => playRound(s, { resolve: [id], open: [[`L-${i + 1}`, 'LOW']] }));
  return s;
}

const mermaidBlocks = (text: string) => [...text.matchAll(/```mermaid\n([\s\S]*?)\n```/g)].map((m) => m[1]!);
const tableRows = (text: string) => text.split('\n').filter((line) => /^\| \d+ \|/.test(line));

describe('GitHub job summary', () => {
  it('charts the weighted open count at the start and after each round, and tables every round', () => {
    const s = session(3);
    const text = renderGithubSummary(s.view)!;
    expect(text.startsWith('## gapflow: CONVERGING\n')).toBe(true);
    const [chart] = mermaidBlocks(text);
    // 3 HIGH at the start (weighted 12); each round -4 +1.
    expect(chart).toContain('x-axis "Round" ["start", "1", "2", "3"]');
    expect(chart).toContain('line [12, 9, 6, 3]');
    expect(tableRows(text).map((row) => row.split('|')[1]!.trim())).toEqual(['1', '2', '3']);
    expect(text).not.toContain('more round');
  });

  it('keeps the latest rounds that fit in the bytes it is given, saying how many came before', () => {
    const s = session(40);
    const whole = renderGithubSummary(s.view)!;
    const limit = Buffer.byteLength(whole) - 600;
    const cut = renderGithubSummary(s.view, limit)!;
    expect(Buffer.byteLength(cut)).toBeLessThanOrEqual(limit);
    const rows = tableRows(cut).map((row) => Number(row.split('|')[1]!.trim()));
    expect(rows.at(-1)).toBe(40);
    expect(rows).toEqual(Array.from({ length: rows.length }, (_, i) => 41 - rows.length + i));
    expect(cut).toContain(`_+${40 - rows.length} more rounds before these`);
    expect(mermaidBlocks(cut)).toHaveLength(1);
  });

  it('is null when not even the summary without its table fits', () => {
    expect(renderGithubSummary(session(2).view, 200)).toBeNull();
  });

  it('plots a long session every k-th round, always with its last, within Mermaid text limits', () => {
    const { indexes, every } = chartSample(5_000);
    expect(indexes.length).toBeLessThanOrEqual(MAX_CHART_POINTS + 1);
    expect(indexes.at(-1)).toBe(4_999);
    expect(every).toBe(Math.ceil(5_000 / MAX_CHART_POINTS));
    expect(indexes.slice(0, 2)).toEqual([every - 1, 2 * every - 1]);
    expect(chartSample(7)).toEqual({ indexes: [0, 1, 2, 3, 4, 5, 6], every: 1 });
  });

  it("a session without gaps gets its statechart and each round's verdict", () => {
    const s = newSession({ policies: ['quality'] });
    s.recordMetrics('quality', { score: 70 });
    const text = renderGithubSummary(s.view)!;
    const [chart] = mermaidBlocks(text);
    expect(chart).toContain('stateDiagram-v2');
    expect(text).toMatch(/\| Round \| Verdict \|/);
  });
});
