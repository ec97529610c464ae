import { describe, expect, it } from 'vitest';
import { baseline, newSession, playRound, WEIGHT } from '../support.js';
import { renderStatus } from '../../src/render/index.js';

/** The Mermaid blocks of a Markdown text. */
function mermaidBlocks(markdown: string): string[] {
  return [...markdown.matchAll(/```mermaid\n([\s\S]*?)\n```/g)].map((m) => m[1]!);
}

function series(chart: string, kind: 'bar' | 'line'): number[] {
  const found = new RegExp(`^\\s*${kind} \\[(.*)\\]$`, 'm').exec(chart);
  expect(found, `${kind} series`).not.toBeNull();
  return found![1]!.split(', ').map(Number);
}

describe('status.md charts', () => {
  it('have none of the open-gaps chart before a round closes, but always the state diagram', () => {
    const s = newSession();
    baseline(s, 'LOW', 3);
    const blocks = mermaidBlocks(renderStatus(s.view));
    expect(blocks).toHaveLength(1);
    expect(blocks[0]).toMatch(/^stateDiagram-v2/);
    expect(blocks[0]).toContain('class CONVERGING current');
  });

  it('plot open count (line) and weighted open (bars) at round 1 start and each round end, recomputed from the plan', () => {
    const s = newSession();
    const high = baseline(s, 'HIGH', 2, 'H');
    const low = baseline(s, 'LOW', 4, 'L');
    s.startRound();
    s.moveGap(low[0]!, 'USER_DEFERRED');
    playRound(s, { resolve: [high[0]!] });
    playRound(s, {
      resolve: [low[1]!],
      open: [
        ['M1', 'MEDIUM'],
        ['M2', 'MEDIUM'],
      ],
    });
    // By hand: 2 HIGH + 4 LOW at the start; round 1 parks one LOW (half) and resolves a HIGH;
    // round 2 resolves a LOW and opens two MEDIUM.
    const counts = [6, 6 - 0.5 - 1, 6 - 0.5 - 1 - 1 + 2];
    const start = 2 * WEIGHT.HIGH + 4 * WEIGHT.LOW;
    const end1 = start - WEIGHT.LOW / 2 - WEIGHT.HIGH;
    const weighted = [start, end1, end1 - WEIGHT.LOW + 2 * WEIGHT.MEDIUM];
    const chart = mermaidBlocks(renderStatus(s.view)).find((b) => b.startsWith('xychart-beta'));
    expect(chart).toBeDefined();
    expect(series(chart!, 'line')).toEqual(counts);
    expect(series(chart!, 'bar')).toEqual(weighted);
    expect(chart).toContain('x-axis ["start", "R1", "R2"]');
  });

  it('keep the plain tables beside the charts', () => {
    const s = newSession();
    const low = baseline(s, 'LOW', 2);
    playRound(s, { resolve: [low[0]!] });
    const status = renderStatus(s.view);
    expect(status).toContain('### Round Progress');
    expect(status).toMatch(/\n\| 1 \| 2 \| 1 \| 0 \| 1 \|/);
    expect(mermaidBlocks(status)).toHaveLength(2);
  });

  it('mark the state the session is in on the state diagram', () => {
    const s = newSession();
    const low = baseline(s, 'LOW', 3);
    playRound(s, { resolve: [] });
    expect(s.view.machine.state).toBe('FLAT');
    const diagram = mermaidBlocks(renderStatus(s.view)).find((b) => b.startsWith('stateDiagram-v2'))!;
    expect(diagram).toContain('class FLAT current');
    expect(diagram.match(/^\s*class /gm)).toHaveLength(1);
    playRound(s, { resolve: [low[0]!] });
    expect(mermaidBlocks(renderStatus(s.view)).find((b) => b.startsWith('stateDiagram-v2'))).toContain('class CONVERGING current');
  });
});
