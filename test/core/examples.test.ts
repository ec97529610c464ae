import { describe, expect, it } from 'vitest';
import { baseline, expectedWeightedNet, newSession, playRound, WEIGHT } from '../support.js';
import { renderPrompt, renderRoundReport } from '../../src/render/index.js';
import { toStateJson } from '../../src/core/index.js';

// Five worked examples of the gap rules, every figure recomputed from the events (R3).
describe('worked examples of the gap rules', () => {
  it('Example 1: normal convergence', () => {
    const s = newSession();
    s.openGap('GAP-FLOW-001', 'HIGH');
    s.openGap('GAP-FLOW-002', 'HIGH');
    s.openGap('GAP-FLOW-003', 'HIGH');
    s.startRound();
    s.moveGap('GAP-FLOW-001', 'IN_PROGRESS');
    s.moveGap('GAP-FLOW-001', 'PROPOSED');
    s.moveGap('GAP-FLOW-001', 'ACCEPTED');
    s.openGap('GAP-FLOW-008', 'MEDIUM', { spawnedBy: 'GAP-FLOW-001' });
    s.closeRound();
    expect(s.view.rounds[0]).toMatchObject({
      unweightedNet: 1 - 1,
      weightedNet: expectedWeightedNet(['HIGH'], ['MEDIUM']),
      state: 'CONVERGING',
    });
    const round2 = playRound(s, { resolve: ['GAP-FLOW-002', 'GAP-FLOW-008'] });
    expect(round2).toMatchObject({ unweightedNet: 2, weightedNet: WEIGHT.HIGH + WEIGHT.MEDIUM, state: 'CONVERGING' });
    expect(toStateJson(s.view).decision.action).toBe('continue');
  });

  it('Example 2: a false positive avoided by the weighted formula', () => {
    const s = newSession();
    const lows = baseline(s, 'LOW', 8);
    s.startRound();
    s.closeRound(); // round 1 flat
    s.startRound();
    for (const id of lows.slice(0, 1)) s.moveGap(id, 'RESOLVED');
    s.closeRound(); // round 2 progress
    const round3 = playRound(s, { resolve: lows.slice(1, 6), open: [['GAP-FLOW-025', 'CRITICAL']] });
    expect(round3.unweightedNet).toBe(5 - 1);
    expect(round3.weightedNet).toBe(expectedWeightedNet(['LOW', 'LOW', 'LOW', 'LOW', 'LOW'], ['CRITICAL']));
    expect(round3.weightedNet).toBe(-11);
    expect(round3.state).toBe('DIVERGENCE_WARNING');
    const prompt = renderPrompt(s.view)!;
    expect(prompt).toContain('PRIMARY: CRITICAL gap introduced (GAP-FLOW-025)');
    expect(prompt).toContain('3. Prioritize CRITICAL - Focus next round exclusively on GAP-FLOW-025');
  });

  it('Example 3 (as R1 corrects it): the second flat round stalls with N = 2', () => {
    const s = newSession();
    const mediums = baseline(s, 'MEDIUM', 4, 'M');
    const lows = baseline(s, 'LOW', 2, 'L');
    const round1 = playRound(s, {
      resolve: mediums.slice(0, 2),
      open: [
        ['M-5', 'MEDIUM'],
        ['M-6', 'MEDIUM'],
      ],
    });
    expect(round1).toMatchObject({ weightedNet: 0, state: 'FLAT', flatCount: 1 });
    const round2 = playRound(s, { resolve: lows.slice(0, 1), open: [['M-7', 'MEDIUM']] });
    expect(round2.weightedNet).toBe(expectedWeightedNet(['LOW'], ['MEDIUM']));
    expect(round2.state).toBe('DIVERGENCE_WARNING');
    expect(s.view.history.slice(-2).map((h) => h.to)).toEqual(['STALLED', 'DIVERGENCE_WARNING']);
    expect(renderPrompt(s.view)).toContain('No net progress for 2 consecutive rounds');
  });

  it('Example 3 with N = 3: the third flat round stalls', () => {
    const s = newSession({ stallThreshold: 3 });
    baseline(s, 'MEDIUM', 4, 'M');
    playRound(s, {
      resolve: ['M-1', 'M-2'],
      open: [
        ['M-5', 'MEDIUM'],
        ['M-6', 'MEDIUM'],
      ],
    });
    playRound(s, { resolve: ['M-3'], open: [['M-7', 'MEDIUM']] });
    const round3 = playRound(s, {});
    expect(round3.state).toBe('DIVERGENCE_WARNING');
    expect(renderPrompt(s.view)).toContain('No net progress for 3 consecutive rounds');
  });

  it('Example 4: recovery by narrowing scope', () => {
    const s = newSession();
    baseline(s, 'HIGH', 3, 'GAP-FLOW');
    s.startRound();
    s.openGap('GAP-FLOW-020', 'CRITICAL');
    s.openGap('GAP-COMM-010', 'MEDIUM', { spawnedBy: 'GAP-FLOW-1', blocking: false });
    s.openGap('GAP-COMM-011', 'MEDIUM', { spawnedBy: 'GAP-FLOW-1', blocking: false });
    s.closeRound();
    const before = toStateJson(s.view).openGapCount;
    s.makeDecision('narrow_scope', { gaps: ['GAP-COMM-010', 'GAP-COMM-011'] });
    expect(toStateJson(s.view).openGapCount).toBe(before - 2 + 0.5 * 2);
    expect(s.view.machine).toMatchObject({ state: 'CONVERGING', flatCount: 0 });
    s.startRound();
    expect(s.view.rounds[1]!.openStart).toBe(before - 1);
  });

  it('Example 5: the nets disagree and the weighted one decides', () => {
    const s = newSession();
    baseline(s, 'LOW', 4);
    const round = playRound(s, { resolve: ['B-LOW-1', 'B-LOW-2', 'B-LOW-3'], open: [['C1', 'CRITICAL']] });
    expect(round.unweightedNet).toBe(3 - 1);
    // Three LOW (3) against one CRITICAL (16) is -13.
    expect(round.weightedNet).toBe(expectedWeightedNet(['LOW', 'LOW', 'LOW'], ['CRITICAL']));
    expect(round.state).toBe('DIVERGENCE_WARNING');
    expect(renderRoundReport(s.view)).toMatch(/The nets disagree \(unweighted \+2, weighted -13\): the weighted net decides/);
  });
});
