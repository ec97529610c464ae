import { describe, expect, it } from 'vitest';
import { lastClosedRound } from '../../src/core/index.js';
import { WEIGHT } from '../support.js';
import { closeRound, fact, given, move, open, resolve, round, severity, start, startRound } from './given.js';

/*
 * R29: changing a deferred gap's severity changes only its half
 * weight in the weighted open count, and is not a CRITICAL introduction; the
 * override fires when the gap returns to an open state as CRITICAL. R19: a
 * round close recorded without its outcome (a line from before outcomes) is
 * judged as the rule then did, and one that carries its outcome keeps it.
 */

/** A HIGH gap to work on, two LOW gaps to resolve, and a MEDIUM gap deferred before round 1. */
const deferredMedium = () => given(start(), open('H', 'HIGH'), open('L1', 'LOW'), open('L2', 'LOW'), open('D', 'MEDIUM'), move('D', 'USER_DEFERRED'));

describe('R29: deferred gaps and CRITICAL', () => {
  it('given a deferred MEDIUM gap, when it is escalated to CRITICAL in a round, then only its half weight moves and the round is no CRITICAL introduction', () => {
    const before = deferredMedium().view;
    const { view } = deferredMedium().and(...round(1, resolve('L1'), severity('D', 'CRITICAL')));
    const r = lastClosedRound(view)!;
    expect(view.open.weighted).toBe(before.open.weighted - WEIGHT.LOW + 0.5 * (WEIGHT.CRITICAL - WEIGHT.MEDIUM));
    expect(view.open.count).toBe(before.open.count - 1);
    expect(r.criticalIntroduced).toEqual([]);
    // The round's own figures count only the LOW resolved: the deferred gap's change is not weighted new.
    expect([r.weightedResolved, r.weightedNew]).toEqual([WEIGHT.LOW, 0]);
    expect(r.severityChanges).toEqual([]);
    expect(view.machine.state).toBe('CONVERGING');
  });

  it('when the escalated gap returns to OPEN in a later round, then the CRITICAL override fires', () => {
    const { view } = deferredMedium().and(...round(1, resolve('L1'), severity('D', 'CRITICAL')), ...round(2, resolve('L2'), move('D', 'OPEN')));
    const r = lastClosedRound(view)!;
    expect(r.round).toBe(2);
    expect(r.criticalIntroduced).toEqual(['D']);
    // Weighted net is positive (a LOW resolved, nothing new): only the override leads to the warning.
    expect(r.weightedNet).toBe(WEIGHT.LOW);
    expect(view.machine.state).toBe('DIVERGENCE_WARNING');
  });

  it('given a gap deferred as CRITICAL, when it returns to an open state, then the override fires; while it stays deferred, nothing does', () => {
    const base = given(start(), open('H', 'HIGH'), open('L1', 'LOW'), open('L2', 'LOW'), open('C', 'CRITICAL'), move('C', 'USER_DEFERRED'));
    const quiet = base.and(...round(1, resolve('L1')));
    expect(quiet.view.machine.state).toBe('CONVERGING');
    const back = quiet.and(...round(2, resolve('L2'), move('C', 'OPEN')));
    expect(lastClosedRound(back.view)!.criticalIntroduced).toEqual(['C']);
    expect(back.view.machine.state).toBe('DIVERGENCE_WARNING');
  });

  it('given an open gap escalated to CRITICAL, then it is still a CRITICAL introduction (R5 unchanged for open gaps)', () => {
    const { view } = deferredMedium().and(...round(1, resolve('L1'), severity('L2', 'CRITICAL')));
    expect(lastClosedRound(view)!.criticalIntroduced).toEqual(['L2']);
    expect(view.machine.state).toBe('DIVERGENCE_WARNING');
  });

  it('decide records the close with no CRITICAL introduced and the weighted open end with the half weight', () => {
    const g = deferredMedium().and(startRound(1), resolve('L1'), severity('D', 'CRITICAL'));
    const weightedEnd = 1 * WEIGHT.HIGH + WEIGHT.LOW + 0.5 * WEIGHT.CRITICAL;
    g.when(closeRound(1)).then([
      {
        type: 'round.closed',
        data: { round: 1, outcome: { figures: { criticalIntroduced: [], weightedOpenEnd: weightedEnd, openEnd: 2.5 }, machine: { state: 'CONVERGING' } } },
      },
    ]);
  });

  it('R19: a round close recorded without its outcome (before outcomes) is judged as then: the deferred escalation was a CRITICAL introduction', () => {
    const { view } = deferredMedium().and(startRound(1), resolve('L1'), severity('D', 'CRITICAL'), fact({ type: 'round.closed', data: { round: 1 } }));
    expect(lastClosedRound(view)!.criticalIntroduced).toEqual(['D']);
    expect(view.machine.state).toBe('DIVERGENCE_WARNING');
    expect(lastClosedRound(view)).not.toHaveProperty('criticalBeforeR29');
  });

  it("R19: a round close that carries its outcome keeps it, whatever today's rule would decide", () => {
    const recorded = deferredMedium().and(startRound(1), resolve('L1'), severity('D', 'CRITICAL'));
    const [closed] = recorded.when(closeRound(1)).decided();
    // An outcome as the older rule recorded it: D a CRITICAL introduction, the machine in DIVERGENCE_WARNING.
    const data = closed!.data as { round: number; outcome: { figures: { criticalIntroduced: string[] }; machine: { state: string } } };
    const older = {
      ...data,
      outcome: {
        ...data.outcome,
        figures: { ...data.outcome.figures, criticalIntroduced: ['D'] },
        machine: { ...data.outcome.machine, state: 'DIVERGENCE_WARNING' },
      },
    };
    const { view } = recorded.and(fact({ type: 'round.closed', data: older } as Parameters<typeof fact>[0]));
    expect(lastClosedRound(view)!.criticalIntroduced).toEqual(['D']);
    expect(view.machine.state).toBe('DIVERGENCE_WARNING');
  });
});
