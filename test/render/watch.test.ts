import { describe, expect, it } from 'vitest';
import { renderWatchFrame, type FrameOptions } from '../../src/render/index.js';
import { baseline, newSession, playRound } from '../support.js';

const options = (over: Partial<FrameOptions> = {}): FrameOptions => ({ dir: '/work/.gapflow', width: 200, height: 40, problem: null, feed: null, ...over });

/** Six rounds, each resolving one HIGH gap and finding a LOW one (weighted net +3): CONVERGING throughout. */
function sixRounds() {
  const s = newSession({ maxRounds: 20 });
  const ids = baseline(s, 'HIGH', 6);
  ids.forEach((id, i) => playRound(s, { resolve: [id], open: [[`L-${i + 1}`, 'LOW']] }));
  return s;
}

describe('watch frame', () => {
  it('says where the session stands, what comes next, its rounds and the reason for its last step', () => {
    const s = sixRounds();
    const frame = renderWatchFrame(s.view, options());
    expect(frame).toContain(`gapflow watch: /work/.gapflow (seq ${s.view.lastSeq})`);
    expect(frame).toContain('State: CONVERGING · flat_count 0/2 · rounds closed 6 of max 20');
    // 6 HIGH - 6 resolved + 6 LOW: six open, weighted 6.
    expect(frame).toContain('Open count: 6 (weighted 6)');
    expect(frame).toContain('Next: continue: CONVERGING: start round 7');
    const rows = frame.split('\n').filter((line) => /^\s+\d+\s/.test(line));
    expect(rows).toHaveLength(6);
    // Round 6: open start 6, 1 resolved, 1 new, open end 6, net 0, weighted +3.
    expect(rows[5]!.trim().split(/\s+/)).toEqual(['6', '6', '1', '1', '6', '0', '+3', 'CONVERGING', '0']);
    expect(frame).toContain(`Last step: CONVERGING: ${s.view.history.at(-1)!.reason}`);
  });

  it('keeps the latest rounds that fit the height, saying how many came before', () => {
    const s = sixRounds();
    const frame = renderWatchFrame(s.view, options({ height: 13 }));
    expect(frame.trimEnd().split('\n').length).toBeLessThanOrEqual(13);
    const rows = frame.split('\n').filter((line) => /^\s+\d+\s/.test(line));
    expect(rows.map((row) => row.trim().split(/\s+/)[0])).toEqual(['5', '6']);
    expect(frame).toContain('… 4 earlier rounds');
  });

  it('cuts every line to the width, and shows no control character a log could hand it', () => {
    const s = sixRounds();
    const frame = renderWatchFrame(s.view, options({ width: 30, problem: 'line 9: bad \u001b[2J bytes' }));
    for (const line of frame.trimEnd().split('\n')) expect(line.length).toBeLessThanOrEqual(30);
    // ESC is spelt out (six characters), so the cut comes sooner.
    expect(frame).toContain('Problem: line 9: bad \\u{1b}[2…');
    expect(frame).not.toContain('\u001b');
  });

  it("a session without gaps shows each round's combined verdict", () => {
    const s = newSession({ policies: ['quality'] });
    s.recordMetrics('quality', { score: 70 });
    s.recordMetrics('quality', { score: 90 });
    const frame = renderWatchFrame(s.view, options());
    expect(frame).toContain('Policies: quality');
    expect(frame).toMatch(/Round\s+Verdict\s+State\s+Flat/);
    expect(frame).not.toContain('Open count');
  });

  it('before any round closes, says so', () => {
    const s = newSession();
    s.openGap('A', 'HIGH');
    const frame = renderWatchFrame(s.view, options({ feed: 'ws://127.0.0.1:9000' }));
    expect(frame).toContain('No round has closed yet.');
    expect(frame).toContain('Last step: none yet');
    expect(frame).toContain('Following the log (updates on ws://127.0.0.1:9000); Ctrl-C to stop.');
  });
});

describe('watch frame: the Kind column (R25), as status.md has it', () => {
  it('shows each round its kind, once some round was not a work round', () => {
    const s = newSession({ maxRounds: 20 });
    const [a, b] = baseline(s, 'HIGH', 2);
    playRound(s, { resolve: [a!] });
    s.startRound(undefined, 'review');
    playRound(s, { resolve: [b!] });
    const lines = renderWatchFrame(s.view, options()).split('\n');
    expect(lines.find((line) => line.startsWith('Round'))!.split(/\s{2,}/)).toEqual([
      'Round',
      'Kind',
      'Open Start',
      'Resolved',
      'New',
      'Open End',
      'Net',
      'Weighted',
      'State',
      'Flat',
    ]);
    const rows = lines.filter((line) => /^\s+\d+\s/.test(line)).map((line) => line.trim().split(/\s+/));
    // Round 1 (work): 2 open, one HIGH resolved; round 2 (review): 1 open, the other resolved, so none is left.
    expect(rows).toEqual([
      ['1', 'work', '2', '1', '0', '1', '+1', '+4', 'CONVERGING', '0'],
      ['2', 'review', '1', '1', '0', '0', '+1', '+4', 'COMPLETE', '(CONVERGED)', '-'],
    ]);
  });

  it('a session without gaps shows the kind beside the verdict', () => {
    const s = newSession({ policies: ['quality'] });
    s.recordMetrics('quality', { score: 70 });
    s.startRound(undefined, 'consolidation');
    s.recordMetrics('quality', { score: 71 });
    const frame = renderWatchFrame(s.view, options());
    expect(frame).toMatch(/Round\s+Kind\s+Verdict\s+State\s+Flat/);
    expect(frame).toMatch(/\n\s+2\s+consolidation\s+\S+/);
  });

  it('work rounds alone show no Kind column', () => {
    const s = newSession({ policies: ['quality'] });
    s.recordMetrics('quality', { score: 70 });
    expect(renderWatchFrame(s.view, options())).not.toContain('Kind');
  });
});
