import { describe, expect, it } from 'vitest';
import type { BodyInputOf } from '../../events/index.js';
import { WEIGHT, type Sev } from '../support.js';
import { closeRound, decision, given, metrics, move, open, resolve, round, severity, start, startRound } from './given.js';

/*
 * decide for round starts, round closes and metrics. A close carries what the
 * machine decided; every figure expected here is recomputed from the gap rules'
 * weights (test/support.ts), never read back from the code.
 */

const sum = (severities: Sev[]) => severities.reduce((total, s) => total + WEIGHT[s], 0);

/** A round's figures from the severities the test itself resolved, opened and left open (R3, R6, R9). */
function figuresOf(f: { resolved?: Sev[]; opened?: Sev[]; openAtEnd: Sev[] }) {
  const resolved = f.resolved ?? [];
  const opened = f.opened ?? [];
  return {
    resolved: resolved.length,
    new: opened.length,
    weightedResolved: sum(resolved),
    weightedNew: sum(opened),
    openEnd: f.openAtEnd.length,
    weightedOpenEnd: sum(f.openAtEnd),
  };
}

const closed = (n: number, outcome: object) => ({ type: 'round.closed' as const, data: { round: n, outcome } });

/** Baseline gaps `${prefix}-1…` of one severity. */
const gaps = (prefix: string, sev: Sev, count: number) => Array.from({ length: count }, (_, i) => open(`${prefix}-${i + 1}`, sev));

/** A flat round (weighted net 0): one HIGH resolved, one HIGH opened. */
const flatRound = (n: number, resolving: string) => round(n, resolve(resolving), open(`N${n}`, 'HIGH'));

describe('R8: rounds are numbered from 1 and started explicitly', () => {
  const session = () => given(start(), open('G1', 'HIGH'), open('G2', 'LOW'));

  it('the first round is round 1', () => {
    session()
      .when(startRound(1))
      .then([startRound(1)]);
  });

  it('the first round cannot be numbered 2', () => {
    session()
      .when(startRound(2))
      .thenRefuses(/the next round is 1, not 2/);
  });

  it('after round 1 closes, the next round is 2 and no other', () => {
    session()
      .and(...round(1))
      .when(startRound(2))
      .then([startRound(2)]);
    session()
      .and(...round(1))
      .when(startRound(3))
      .thenRefuses(/the next round is 2, not 3/);
  });

  it('no round starts while one is open (remedy close_round)', () => {
    session()
      .and(startRound(1))
      .when(startRound(2))
      .thenRefuses(/round 1 is already open; close it first/, 'close_round');
  });

  it('no round starts in DIVERGENCE_WARNING (remedy decide)', () => {
    session()
      .and(...round(1, open('C1', 'CRITICAL')))
      .when(startRound(2))
      .thenRefuses(/DIVERGENCE_WARNING: a decision is due first/, 'decide');
  });

  it('no round starts while PAUSED (remedy resume)', () => {
    session()
      .and(...round(1), decision('pause'))
      .when(startRound(2))
      .thenRefuses(/PAUSED: resume it first/, 'resume');
  });

  it('nothing is recorded before session.started', () => {
    given()
      .when(startRound(1))
      .thenRefuses(/the log must begin with session.started/);
  });
});

describe('closing a round: what must hold first', () => {
  const session = () => given(start(), open('G1', 'HIGH'), open('G2', 'LOW'));

  it('with no round open, a close is refused (remedy start_round)', () => {
    session()
      .when(closeRound(1))
      .thenRefuses(/no round is open; start one first/, 'start_round');
    session()
      .and(...round(1))
      .when(closeRound(1))
      .thenRefuses(/no round is open; start one first/, 'start_round');
  });

  it('while PAUSED, a close is refused (remedy resume)', () => {
    session()
      .and(startRound(1), decision('pause'))
      .when(closeRound(1))
      .thenRefuses(/PAUSED; resume it first/, 'resume');
  });

  it('a close must name the open round', () => {
    session()
      .and(startRound(1))
      .when(closeRound(2))
      .thenRefuses(/the open round is 1, not 2/);
  });

  it('R15: every enabled policy records its metrics before the round closes (remedy record_metrics)', () => {
    given(start({ policies: ['gaps', 'quality'] }), open('G1', 'HIGH'), startRound(1))
      .when(closeRound(1))
      .thenRefuses(/round 1 has no quality metrics yet/, 'record_metrics');
  });

  it('R15: once they have, the close is judged on the combined verdict (both progress: CONVERGING)', () => {
    // Gaps: one LOW resolved, weighted net +1 (progress); quality: a first iteration is progress.
    given(start({ policies: ['gaps', 'quality'] }), open('G1', 'HIGH'), open('G2', 'LOW'), startRound(1), resolve('G2'), metrics('quality', { score: 70 }))
      .when(closeRound(1))
      .then([
        closed(1, {
          figures: figuresOf({ resolved: ['LOW'], openAtEnd: ['HIGH'] }),
          machine: { state: 'CONVERGING', flatCount: 0 },
          combined: { verdict: 'progress' },
        }),
      ]);
  });
});

describe('R1: a stall counts N rounds, not N+1', () => {
  const three = () => given(start(), ...gaps('H', 'HIGH', 3));

  it('the first flat round (weighted net 0) is FLAT with flat_count 1', () => {
    three()
      .and(startRound(1), resolve('H-1'), open('N1', 'HIGH'))
      .when(closeRound(1))
      .then([
        closed(1, {
          figures: figuresOf({ resolved: ['HIGH'], opened: ['HIGH'], openAtEnd: ['HIGH', 'HIGH', 'HIGH'] }),
          machine: { state: 'FLAT', flatCount: 1, outcome: null },
          steps: [{ from: 'CONVERGING', to: 'FLAT' }],
        }),
      ]);
  });

  it('R4: with N = 2 the second flat round stalls, recorded as FLAT -> STALLED -> DIVERGENCE_WARNING', () => {
    three()
      .and(...flatRound(1, 'H-1'), startRound(2), resolve('H-2'), open('N2', 'HIGH'))
      .when(closeRound(2))
      .then([
        closed(2, {
          figures: figuresOf({ resolved: ['HIGH'], opened: ['HIGH'], openAtEnd: ['HIGH', 'HIGH', 'HIGH'] }),
          machine: { state: 'DIVERGENCE_WARNING', flatCount: 2 },
          steps: [
            { from: 'FLAT', to: 'STALLED' },
            { from: 'STALLED', to: 'DIVERGENCE_WARNING' },
          ],
        }),
      ]);
  });

  it('with N = 3 the second flat round stays FLAT (flat_count 2) and the third stalls', () => {
    const session = given(start({ stallThreshold: 3 }), ...gaps('H', 'HIGH', 3), ...flatRound(1, 'H-1'));
    session
      .and(...flatRound(2, 'H-2').slice(0, -1))
      .when(closeRound(2))
      .then([closed(2, { machine: { state: 'FLAT', flatCount: 2 }, steps: [] })]);
    session
      .and(...flatRound(2, 'H-2'), ...flatRound(3, 'H-3').slice(0, -1))
      .when(closeRound(3))
      .then([
        closed(3, {
          machine: { state: 'DIVERGENCE_WARNING', flatCount: 3 },
          steps: [
            { from: 'FLAT', to: 'STALLED' },
            { from: 'STALLED', to: 'DIVERGENCE_WARNING' },
          ],
        }),
      ]);
  });

  it('the flat rounds must be consecutive: a round with weighted progress resets flat_count', () => {
    // Round 2 resolves a LOW: weighted net +1 (CONVERGING, flat_count 0); round 3 is flat again: FLAT, not a stall.
    given(start(), ...gaps('H', 'HIGH', 3), open('L-1', 'LOW'), ...flatRound(1, 'H-1'))
      .and(...round(2, resolve('L-1')), startRound(3), resolve('H-2'), open('N3', 'HIGH'))
      .when(closeRound(3))
      .then([closed(3, { machine: { state: 'FLAT', flatCount: 1 }, steps: [{ from: 'CONVERGING', to: 'FLAT' }] })]);
  });

  it('R14: the weighted net decides: two LOW resolved against one MEDIUM opened (unweighted +1, weighted 0) is flat', () => {
    given(start(), open('H-1', 'HIGH'), open('L-1', 'LOW'), open('L-2', 'LOW'), startRound(1), resolve('L-1'), resolve('L-2'), open('M1', 'MEDIUM'))
      .when(closeRound(1))
      .then([
        closed(1, {
          figures: figuresOf({ resolved: ['LOW', 'LOW'], opened: ['MEDIUM'], openAtEnd: ['HIGH', 'MEDIUM'] }),
          machine: { state: 'FLAT', flatCount: 1 },
        }),
      ]);
  });
});

describe('R2: divergence is strict (weighted net < -D)', () => {
  const lows = () => given(start(), ...gaps('L', 'LOW', 3), startRound(1));

  it('a round at exactly -8 (two new HIGH) is FLAT, not divergence', () => {
    lows()
      .and(open('N1', 'HIGH'), open('N2', 'HIGH'))
      .when(closeRound(1))
      .then([
        closed(1, {
          figures: figuresOf({ opened: ['HIGH', 'HIGH'], openAtEnd: ['LOW', 'LOW', 'LOW', 'HIGH', 'HIGH'] }),
          machine: { state: 'FLAT', flatCount: 1 },
        }),
      ]);
  });

  it('a round at -9 (two new HIGH and a LOW) diverges', () => {
    lows()
      .and(open('N1', 'HIGH'), open('N2', 'HIGH'), open('N3', 'LOW'))
      .when(closeRound(1))
      .then([
        closed(1, {
          figures: { weightedNew: sum(['HIGH', 'HIGH', 'LOW']), weightedResolved: 0 },
          machine: { state: 'DIVERGENCE_WARNING', flatCount: 0 },
          steps: [{ from: 'CONVERGING', to: 'DIVERGENCE_WARNING' }],
        }),
      ]);
  });

  it('an explicit divergence threshold moves the line: with D = 12, -12 is FLAT and -13 diverges', () => {
    const session = () => given(start({ divergenceThreshold: 12 }), ...gaps('L', 'LOW', 3), startRound(1), ...gaps('N', 'HIGH', 3));
    session()
      .when(closeRound(1))
      .then([closed(1, { figures: { weightedNew: 3 * WEIGHT.HIGH }, machine: { state: 'FLAT' } })]);
    session()
      .and(open('X', 'LOW'))
      .when(closeRound(1))
      .then([closed(1, { figures: { weightedNew: 3 * WEIGHT.HIGH + WEIGHT.LOW }, machine: { state: 'DIVERGENCE_WARNING' } })]);
  });
});

describe('R5: critical override', () => {
  // A CRITICAL opened and resolved again, two HIGH resolved: weighted net 16 + 4 + 4 - 16 = +8, progress by weight.
  const openedAndResolved = (settings: BodyInputOf<'session.started'>['data']) =>
    given(start(settings), ...gaps('H', 'HIGH', 5), startRound(1), open('C1', 'CRITICAL'), resolve('C1'), resolve('H-1'), resolve('H-2'));
  const figures = figuresOf({ resolved: ['CRITICAL', 'HIGH', 'HIGH'], opened: ['CRITICAL'], openAtEnd: ['HIGH', 'HIGH', 'HIGH'] });

  it('on (the default): a CRITICAL opened in the round warns even though it was resolved again and the net is positive', () => {
    openedAndResolved({})
      .when(closeRound(1))
      .then([
        closed(1, {
          figures: { ...figures, criticalIntroduced: ['C1'] },
          machine: { state: 'DIVERGENCE_WARNING' },
          steps: [{ from: 'CONVERGING', to: 'DIVERGENCE_WARNING' }],
        }),
      ]);
  });

  it('off: the CRITICAL counts only by weight, so the round converges', () => {
    openedAndResolved({ criticalOverride: false })
      .when(closeRound(1))
      .then([closed(1, { figures: { ...figures, criticalIntroduced: ['C1'] }, machine: { state: 'CONVERGING', flatCount: 0 }, steps: [] })]);
  });

  it('an escalation to CRITICAL warns too (R7: it adds 16 - 1 to weighted new, no unweighted new)', () => {
    // LOW -> CRITICAL (+15 weighted new) against four HIGH resolved (16): weighted net +1.
    given(start(), open('L-1', 'LOW'), ...gaps('H', 'HIGH', 5), startRound(1), severity('L-1', 'CRITICAL'), ...['H-1', 'H-2', 'H-3', 'H-4'].map(resolve))
      .when(closeRound(1))
      .then([
        closed(1, {
          figures: { resolved: 4, new: 0, weightedResolved: 4 * WEIGHT.HIGH, weightedNew: WEIGHT.CRITICAL - WEIGHT.LOW, criticalIntroduced: ['L-1'] },
          machine: { state: 'DIVERGENCE_WARNING' },
        }),
      ]);
  });

  it('a CRITICAL reopened in the round warns (R6: the reopen counts as new)', () => {
    // C-1 resolved in the baseline; round 1 reopens it (16 new) and resolves five HIGH (20): weighted net +4.
    const session = (override: boolean) =>
      given(
        start({ criticalOverride: override }),
        open('C-1', 'CRITICAL'),
        ...gaps('H', 'HIGH', 6),
        resolve('C-1'),
        startRound(1),
        move('C-1', 'OPEN'),
        ...['H-1', 'H-2', 'H-3', 'H-4', 'H-5'].map(resolve),
      );
    const figures = figuresOf({ resolved: ['HIGH', 'HIGH', 'HIGH', 'HIGH', 'HIGH'], opened: ['CRITICAL'], openAtEnd: ['CRITICAL', 'HIGH'] });
    session(true)
      .when(closeRound(1))
      .then([closed(1, { figures: { ...figures, criticalIntroduced: ['C-1'] }, machine: { state: 'DIVERGENCE_WARNING' } })]);
    session(false)
      .when(closeRound(1))
      .then([closed(1, { figures, machine: { state: 'CONVERGING' } })]);
  });
});

describe('R6 and R7: what a round counts', () => {
  it('moves between open states and between closed states count nothing; a move into a closed state counts once', () => {
    // L-1 is ACCEPTED in the baseline; in round 1 it moves on to RESOLVED (nothing), H-1 goes IN_PROGRESS (nothing), M-1 is resolved.
    given(
      start(),
      open('H-1', 'HIGH'),
      open('M-1', 'MEDIUM'),
      open('L-1', 'LOW'),
      ...(['IN_PROGRESS', 'PROPOSED', 'ACCEPTED'] as const).map((to) => move('L-1', to)),
    )
      .and(startRound(1), move('H-1', 'IN_PROGRESS'), move('L-1', 'RESOLVED'), resolve('M-1'))
      .when(closeRound(1))
      .then([closed(1, { figures: figuresOf({ resolved: ['MEDIUM'], openAtEnd: ['HIGH'] }), machine: { state: 'CONVERGING' } })]);
  });

  it('a de-escalation adds old - new weight to weighted resolved and nothing to the unweighted counts', () => {
    given(start(), open('H-1', 'HIGH'), open('L-1', 'LOW'), startRound(1), severity('H-1', 'LOW'))
      .when(closeRound(1))
      .then([
        closed(1, {
          figures: { resolved: 0, new: 0, weightedResolved: WEIGHT.HIGH - WEIGHT.LOW, weightedNew: 0, openEnd: 2, weightedOpenEnd: 2 * WEIGHT.LOW },
          machine: { state: 'CONVERGING' },
        }),
      ]);
  });
});

describe('R12: automatic completion', () => {
  it('a round that closes with open count 0 completes the session as CONVERGED', () => {
    given(start(), open('H-1', 'HIGH'), open('H-2', 'HIGH'), startRound(1), resolve('H-1'), resolve('H-2'))
      .when(closeRound(1))
      .then([
        closed(1, {
          figures: figuresOf({ resolved: ['HIGH', 'HIGH'], openAtEnd: [] }),
          machine: { state: 'COMPLETE', outcome: 'CONVERGED' },
          steps: [{ from: 'CONVERGING', to: 'COMPLETE' }],
        }),
      ]);
  });

  it('CONVERGED even when the round would otherwise have warned (a CRITICAL introduced and resolved)', () => {
    given(start(), open('H-1', 'HIGH'), startRound(1), open('C1', 'CRITICAL'), resolve('C1'), resolve('H-1'))
      .when(closeRound(1))
      .then([closed(1, { figures: { openEnd: 0, criticalIntroduced: ['C1'] }, machine: { state: 'COMPLETE', outcome: 'CONVERGED' } })]);
  });

  it('R9: a deferred gap counts half, so a round that defers the last open gap does not converge', () => {
    given(start(), open('H-1', 'HIGH'), open('L-1', 'LOW'), startRound(1), resolve('H-1'), move('L-1', 'USER_DEFERRED'))
      .when(closeRound(1))
      .then([closed(1, { figures: { openEnd: 0.5, weightedOpenEnd: 0.5 * WEIGHT.LOW }, machine: { state: 'CONVERGING', outcome: null } })]);
  });

  it('closing round max_rounds completes the session as MAX_ROUNDS whatever the round did (here: diverged)', () => {
    given(start({ maxRounds: 2 }), ...gaps('H', 'HIGH', 4), ...round(1, resolve('H-1')), startRound(2), ...gaps('N', 'HIGH', 3))
      .when(closeRound(2))
      .then([
        closed(2, {
          figures: { weightedNew: 3 * WEIGHT.HIGH },
          machine: { state: 'COMPLETE', outcome: 'MAX_ROUNDS' },
          steps: [{ from: 'CONVERGING', to: 'COMPLETE' }],
        }),
      ]);
  });

  it('a round before max_rounds does not complete', () => {
    given(start({ maxRounds: 2 }), ...gaps('H', 'HIGH', 4), startRound(1), resolve('H-1'))
      .when(closeRound(1))
      .then([closed(1, { machine: { state: 'CONVERGING', outcome: null } })]);
  });

  it('with gaps and another policy, closing round max_rounds is COMPLETE (MAX_ROUNDS) even when the other policy diverges there', () => {
    const atoms = (pending: number, redirect = false) => metrics('atoms', { pending, resolved: 0, redirectRequested: redirect });
    given(start({ maxRounds: 2, policies: ['gaps', 'atoms'] }), open('H-1', 'HIGH'), ...round(1, atoms(5)), startRound(2), atoms(5, true))
      .when(closeRound(2))
      .then([
        closed(2, {
          verdicts: [expect.objectContaining({ policy: 'gaps', verdict: 'limit' }), expect.objectContaining({ policy: 'atoms', verdict: 'diverging' })],
          combined: { verdict: 'limit', reason: 'max_rounds', policies: [] },
          machine: { state: 'COMPLETE', outcome: 'MAX_ROUNDS' },
        }),
      ]);
  });

  it('with gaps and another policy, a round that closes with nothing left open is COMPLETE (CONVERGED) even when the other policy diverges', () => {
    const atoms = (pending: number, redirect = false) => metrics('atoms', { pending, resolved: 0, redirectRequested: redirect });
    given(start({ policies: ['gaps', 'atoms'] }), open('H-1', 'HIGH'), startRound(1), resolve('H-1'), atoms(5, true))
      .when(closeRound(1))
      .then([
        closed(1, {
          combined: { verdict: 'converged', reason: 'nothing_left_open', policies: [] },
          machine: { state: 'COMPLETE', outcome: 'CONVERGED' },
        }),
      ]);
  });

  it('without the gap policy, an explicit max_rounds ends the session the same way; without one, each policy keeps its own maximum', () => {
    const atoms = (pending: number, redirect = false) => metrics('atoms', { pending, resolved: 0, redirectRequested: redirect });
    const limited = given(start({ maxRounds: 2, policies: ['atoms'] }), atoms(5), atoms(5, true)).view;
    expect(limited.machine).toMatchObject({ state: 'COMPLETE', outcome: 'MAX_ROUNDS' });
    expect(limited.rounds.at(-1)!.combined).toMatchObject({ verdict: 'limit', reason: 'max_rounds' });
    const unlimited = given(start({ policies: ['atoms'] }), ...Array.from({ length: 11 }, (_, i) => atoms(50 - i))).view;
    expect(unlimited.machine.state).toBe('CONVERGING');
    expect(unlimited.rounds).toHaveLength(11);
  });

  it('at the limit an empty inventory still reads CONVERGED, not MAX_ROUNDS', () => {
    given(start({ maxRounds: 1 }), open('H-1', 'HIGH'), startRound(1), resolve('H-1'))
      .when(closeRound(1))
      .then([closed(1, { machine: { state: 'COMPLETE', outcome: 'CONVERGED' } })]);
  });
});

describe('metrics (R15, R18)', () => {
  const quality = () => given(start({ policies: ['quality'] }));
  const recorded = (round: number, score: number) => ({ type: 'metrics.recorded' as const, data: { policy: 'quality', round, metrics: { score } } });

  it('without the gap policy, metrics between rounds start the next round and, being all it waits for, close it', () => {
    // R18: a first iteration is progress.
    quality()
      .when(metrics('quality', { score: 80 }))
      .then([
        startRound(1),
        recorded(1, 80),
        closed(1, { machine: { state: 'CONVERGING', flatCount: 0, outcome: null }, steps: [], combined: { verdict: 'progress' } }),
      ]);
  });

  it('R18: a score that moves less than 2 while below 85 is flat, and the close records FLAT', () => {
    quality()
      .and(metrics('quality', { score: 80 }))
      .when(metrics('quality', { score: 81 }))
      .then([startRound(2), recorded(2, 81), closed(2, { machine: { state: 'FLAT', flatCount: 1 }, combined: { verdict: 'flat' } })]);
  });

  it('R18: score >= 85, |Δ| < 2 and n >= 2 completes the session as CONVERGED', () => {
    quality()
      .and(metrics('quality', { score: 89 }))
      .when(metrics('quality', { score: 90 }))
      .then([startRound(2), recorded(2, 90), closed(2, { machine: { state: 'COMPLETE', outcome: 'CONVERGED' }, combined: { verdict: 'converged' } })]);
  });

  it('with the gap policy, metrics in an open round are recorded for it and the round stays open', () => {
    given(start({ policies: ['gaps', 'quality'] }), open('G1', 'HIGH'), startRound(1))
      .when(metrics('quality', { score: 70 }))
      .then([recorded(1, 70)]);
  });

  it('with the gap policy, metrics between rounds start the next round but do not close it', () => {
    given(start({ policies: ['gaps', 'quality'] }), open('G1', 'HIGH'))
      .when(metrics('quality', { score: 70 }))
      .then([startRound(1), recorded(1, 70)]);
  });

  it('metrics of an unknown policy are refused, naming it', () => {
    quality()
      .when(metrics('nope', { score: 1 }))
      .thenRefuses(/unknown policy "nope"/);
  });

  it('the gap policy records gap events, not metrics: the remedy points there, the message names no command', () => {
    quality()
      .when(metrics('gaps', { score: 1 }))
      .thenRefuses(/the gaps policy records gap events, not metrics$/, 'record_gap_events');
  });

  it('metrics of a policy the session did not enable are refused: policies are chosen when a session starts', () => {
    given(start(), open('G1', 'HIGH'), startRound(1))
      .when(metrics('quality', { score: 70 }))
      .thenRefuses(/policy quality is not enabled in this session \(enabled: gaps\); policies are chosen at init$/, 'choose_policies_at_init');
  });

  it('one record per policy per round', () => {
    given(start({ policies: ['gaps', 'quality'] }), open('G1', 'HIGH'), startRound(1), metrics('quality', { score: 70 }))
      .when(metrics('quality', { score: 71 }))
      .thenRefuses(/quality metrics for round 1 are already recorded; one record per policy per round/);
  });

  it('a payload the policy cannot read is refused, naming the field', () => {
    quality()
      .when(metrics('quality', { score: 120 }))
      .thenRefuses(/metrics\.score: /);
    quality()
      .when(metrics('quality', { score: 'high' }))
      .thenRefuses(/metrics\.score: /);
  });

  it('metrics naming a round other than the open one are refused', () => {
    given(start({ policies: ['gaps', 'quality'] }), open('G1', 'HIGH'), startRound(1))
      .when(metrics('quality', { score: 70 }, 2))
      .thenRefuses(/the open round is 1, not 2/);
  });

  it('metrics while PAUSED are refused (remedy resume)', () => {
    quality()
      .and(metrics('quality', { score: 80 }), metrics('quality', { score: 81 }), decision('pause'))
      .when(metrics('quality', { score: 82 }))
      .thenRefuses(/PAUSED/, 'resume');
  });
});
