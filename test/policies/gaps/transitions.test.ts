import { describe, expect, it } from 'vitest';
import type { Session } from '../../../src/index.js';
import { baseline, expectedWeightedNet, newSession, playRound, WEIGHT } from '../../support.js';

/*
 * The gap rules' state transitions (docs/rules.md#the-verdict-at-a-rounds-close), one test per row, each played from
 * gap events through a session (the stall row as R1 and the divergence
 * row as R2 state them). Every net is recomputed from the severity weights.
 */

/** Twelve baseline gaps: H-1…4 (HIGH), M-1…4 (MEDIUM), L-1…4 (LOW); D = 8, N = 2 unless told. */
function session(settings = {}): Session {
  const s = newSession(settings);
  baseline(s, 'HIGH', 4, 'H');
  baseline(s, 'MEDIUM', 4, 'M');
  baseline(s, 'LOW', 4, 'L');
  return s;
}

/** A round whose weighted net is 0: one MEDIUM resolved, one MEDIUM opened. */
const flat = (id: string) => ({ resolve: [`M-${id}`], open: [[`NM-${id}`, 'MEDIUM']] as [string, 'MEDIUM'][] });

describe('gap rule transitions, played from events', () => {
  it('CONVERGING -> CONVERGING when weighted_net > 0', () => {
    const s = session();
    const round = playRound(s, { resolve: ['L-1'] });
    expect(round.weightedNet).toBe(expectedWeightedNet(['LOW'], []));
    expect(round).toMatchObject({ state: 'CONVERGING', flatCount: 0 });
  });

  it('CONVERGING -> FLAT when -D <= weighted_net <= 0, flat_count = 1', () => {
    const s = session();
    const round = playRound(s, {
      resolve: ['H-1'],
      open: [
        ['N1', 'HIGH'],
        ['N2', 'HIGH'],
        ['N3', 'HIGH'],
      ],
    });
    expect(round.weightedNet).toBe(expectedWeightedNet(['HIGH'], ['HIGH', 'HIGH', 'HIGH']));
    expect(round.weightedNet).toBe(-WEIGHT.HIGH * 2);
    expect(round).toMatchObject({ state: 'FLAT', flatCount: 1 });
  });

  it('CONVERGING -> DIVERGENCE_WARNING when weighted_net < -D', () => {
    const s = session({ criticalOverride: false });
    const round = playRound(s, {
      open: [
        ['N1', 'HIGH'],
        ['N2', 'HIGH'],
        ['N3', 'LOW'],
      ],
    });
    expect(round.weightedNet).toBe(-(2 * WEIGHT.HIGH + WEIGHT.LOW));
    expect(round.state).toBe('DIVERGENCE_WARNING');
  });

  it('CONVERGING -> DIVERGENCE_WARNING on a new CRITICAL, whatever the net', () => {
    const s = session();
    const round = playRound(s, { resolve: ['H-1', 'H-2', 'H-3', 'H-4', 'M-1'], open: [['C1', 'CRITICAL']] });
    expect(round.weightedNet).toBe(4 * WEIGHT.HIGH + WEIGHT.MEDIUM - WEIGHT.CRITICAL);
    expect(round.weightedNet).toBeGreaterThan(0);
    expect(round.state).toBe('DIVERGENCE_WARNING');
  });

  it('FLAT -> CONVERGING when weighted_net > 0, flat_count reset to 0', () => {
    const s = session();
    playRound(s, flat('1'));
    const round = playRound(s, { resolve: ['L-1'] });
    expect(round).toMatchObject({ weightedNet: WEIGHT.LOW, state: 'CONVERGING', flatCount: 0 });
    expect(s.view.history.at(-1)).toMatchObject({ from: 'FLAT', to: 'CONVERGING' });
  });

  it('FLAT -> FLAT while flat_count < stall_threshold, flat_count + 1', () => {
    const s = session({ stallThreshold: 3 });
    playRound(s, flat('1'));
    expect(playRound(s, flat('2'))).toMatchObject({ weightedNet: 0, state: 'FLAT', flatCount: 2 });
  });

  it('FLAT -> STALLED when flat_count reaches stall_threshold, flat_count = stall_threshold', () => {
    const s = session();
    playRound(s, flat('1'));
    playRound(s, flat('2'));
    expect(s.view.machine.flatCount).toBe(2);
    expect(s.view.history.slice(-2).map((h) => `${h.from}->${h.to}`)).toEqual(['FLAT->STALLED', 'STALLED->DIVERGENCE_WARNING']);
  });

  it('FLAT -> DIVERGENCE_WARNING when weighted_net < -D', () => {
    const s = session();
    playRound(s, flat('1'));
    const round = playRound(s, {
      open: [
        ['N1', 'HIGH'],
        ['N2', 'HIGH'],
        ['N3', 'MEDIUM'],
      ],
    });
    expect(round.weightedNet).toBe(-(2 * WEIGHT.HIGH + WEIGHT.MEDIUM));
    expect(s.view.history.at(-1)).toMatchObject({ from: 'FLAT', to: 'DIVERGENCE_WARNING' });
    expect(round.combined).toMatchObject({ verdict: 'diverging', reason: 'weighted_net_below_divergence' });
  });

  it('FLAT -> DIVERGENCE_WARNING on a new CRITICAL', () => {
    const s = session();
    playRound(s, flat('1'));
    const round = playRound(s, { resolve: ['H-1', 'H-2', 'H-3', 'H-4'], open: [['C1', 'CRITICAL']] });
    expect(s.view.history.at(-1)).toMatchObject({ from: 'FLAT', to: 'DIVERGENCE_WARNING' });
    expect(round.combined).toMatchObject({ verdict: 'diverging', reason: 'critical_introduced' });
  });

  it('STALLED -> DIVERGENCE_WARNING always, at once', () => {
    const s = session({ stallThreshold: 1 });
    playRound(s, flat('1'));
    expect(s.view.machine.state).toBe('DIVERGENCE_WARNING');
    expect(s.view.history.map((h) => h.to)).toEqual(['STALLED', 'DIVERGENCE_WARNING']);
  });

  function warned(): Session {
    const s = session();
    playRound(s, {
      open: [
        ['C1', 'CRITICAL'],
        ['N1', 'LOW'],
      ],
    });
    expect(s.view.machine.state).toBe('DIVERGENCE_WARNING');
    return s;
  }

  it('DIVERGENCE_WARNING -> CONVERGING when the user narrows scope (named gaps deferred)', () => {
    const s = warned();
    s.makeDecision('narrow_scope', { gaps: ['N1', 'L-1'] });
    expect(s.view.machine.state).toBe('CONVERGING');
    expect(['N1', 'L-1'].map((id) => s.view.gaps.get(id)!.state)).toEqual(['USER_DEFERRED', 'USER_DEFERRED']);
  });

  it('DIVERGENCE_WARNING -> CONVERGING when the user accepts complexity (baseline reset)', () => {
    const s = warned();
    s.makeDecision('accept_complexity');
    expect(s.view.machine.state).toBe('CONVERGING');
    expect(s.view.baseline).toMatchObject({ openCount: 12 + 2 });
  });

  it('DIVERGENCE_WARNING -> PAUSED when the user pauses (state saved), and back on resume', () => {
    const s = warned();
    s.makeDecision('pause');
    expect(s.view.machine).toMatchObject({ state: 'PAUSED', pausedFrom: 'DIVERGENCE_WARNING' });
    s.makeDecision('resume');
    expect(s.view.machine.state).toBe('DIVERGENCE_WARNING');
  });

  it('DIVERGENCE_WARNING -> COMPLETE when the user forces completion or abandons', () => {
    const forced = warned();
    forced.makeDecision('force_complete');
    expect(forced.view.machine).toMatchObject({ state: 'COMPLETE', outcome: 'STALL_EXIT' });
    const abandoned = warned();
    abandoned.makeDecision('abandon');
    expect(abandoned.view.machine).toMatchObject({ state: 'COMPLETE', outcome: 'ABANDONED' });
  });
});
