import { describe, expect, it } from 'vitest';
import { evolve, type GapState, type SessionView } from '../../src/index.js';
import type { Decided } from '../../events/index.js';
import { FACTOR, WEIGHT, type Sev } from '../support.js';
import { decision, given, metrics, move, open, resolve, round, roundOutcome, settled, severity, start, startRound, type Given } from './given.js';

/*
 * evolve applies facts (R19): a recorded outcome as it was recorded, and an
 * event it cannot apply changes nothing else; it never refuses and never
 * asks the statechart.
 */

/** Folds one fact after the history `g`, as the next line of its log. */
const next = (g: Given, body: Decided): SessionView => evolve(g.view, settled(body, g.log.length + 1));

/** The view is `before` in every respect but the seq of the event just folded. */
function expectUnchanged(before: SessionView, after: SessionView): void {
  expect(after.lastSeq).toBe(before.lastSeq + 1);
  expect({ ...after, lastSeq: before.lastSeq }).toEqual(before);
}

describe('R19: evolve applies a recorded outcome as it is', () => {
  // H-1 and L-1 stay open, nothing happens in round 1: today's rules would close it FLAT.
  const roundOne = () => given(start(), open('H-1', 'HIGH'), open('L-1', 'LOW'), startRound(1));

  it("a round close that recorded COMPLETE/CONVERGED with gaps open leaves the session COMPLETE (today's rules would say FLAT)", () => {
    const g = roundOne();
    g.when({ type: 'round.closed', data: { round: 1 } }).then([{ type: 'round.closed', data: { round: 1, outcome: { machine: { state: 'FLAT' } } } }]);

    const view = evolve(g.view, settled({ type: 'round.closed', data: { round: 1, outcome: roundOutcome() } }, g.log.length + 1));
    expect(view.machine).toEqual({ state: 'COMPLETE', flatCount: 0, outcome: 'CONVERGED', pausedFrom: null });
    expect(view.roundOpen).toBe(false);
    expect(view.rounds[0]).toMatchObject({ state: 'COMPLETE', openEnd: 0, weightedOpenEnd: 0 });
    expect(view.history.map((h) => [h.round, h.from, h.to])).toEqual([[1, 'CONVERGING', 'COMPLETE']]);
    // The gaps are facts of their own: still open, whatever the close claimed.
    expect(view.open).toEqual({ count: 2, weighted: WEIGHT.HIGH + WEIGHT.LOW });
  });

  it("the round's figures are the recorded ones, not recounted from the gap events", () => {
    const g = roundOne().and(resolve('L-1'));
    const figures = { openEnd: 7, weightedOpenEnd: 9, resolved: 3, new: 1, weightedResolved: 12, weightedNew: 2, criticalIntroduced: [] };
    const view = evolve(
      g.view,
      settled(
        {
          type: 'round.closed',
          data: { round: 1, outcome: roundOutcome({ figures, machine: { state: 'CONVERGING', flatCount: 0, outcome: null, pausedFrom: null }, steps: [] }) },
        },
        g.log.length + 1,
      ),
    );
    expect(view.rounds[0]).toMatchObject({ ...figures, unweightedNet: 3 - 1, weightedNet: 12 - 2, state: 'CONVERGING', flatCount: 0 });
  });

  it('a decision applies its recorded machine: a pause that remembered DIVERGENCE_WARNING resumes there', () => {
    // FLAT after round 1; the recorded pause claims it was made in DIVERGENCE_WARNING.
    const g = given(start(), open('H-1', 'HIGH'), ...round(1));
    const machine = { state: 'PAUSED' as const, flatCount: 1, outcome: null, pausedFrom: 'DIVERGENCE_WARNING' as const };
    const view = evolve(
      g.view,
      settled({ type: 'decision.made', data: { kind: 'pause', outcome: { machine, steps: [{ from: 'FLAT', to: 'PAUSED' }] } } }, g.log.length + 1),
    );
    expect(view.machine).toEqual(machine);
    expect(view.decisions.map((d) => d.kind)).toEqual(['pause']);
  });

  it('evolve leaves the view it was given as it was', () => {
    const g = roundOne();
    const before = structuredClone({ machine: g.view.machine, rounds: g.view.rounds, roundOpen: g.view.roundOpen });
    evolve(g.view, settled({ type: 'round.closed', data: { round: 1, outcome: roundOutcome() } }, g.log.length + 1));
    expect({ machine: g.view.machine, rounds: g.view.rounds, roundOpen: g.view.roundOpen }).toEqual(before);
  });
});

describe('R19: evolve never throws for a fact it cannot apply, and changes nothing else', () => {
  const session = () => given(start(), open('H-1', 'HIGH'), ...round(1, open('L-1', 'LOW')));

  it('a move of an unknown gap', () => {
    const g = session();
    expectUnchanged(g.view, next(g, { type: 'gap.moved', data: { id: 'NOPE', to: 'RESOLVED' } }));
  });

  it('a severity change of an unknown gap', () => {
    const g = session();
    expectUnchanged(g.view, next(g, { type: 'gap.severity_changed', data: { id: 'NOPE', to: 'LOW' } }));
  });

  it('a round close with no round open', () => {
    const g = session();
    expectUnchanged(g.view, next(g, { type: 'round.closed', data: { round: 2, outcome: roundOutcome() } }));
  });

  it('metrics of a policy the session does not enable', () => {
    const g = session();
    expectUnchanged(g.view, next(g, { type: 'metrics.recorded', data: { policy: 'quality', round: 1, metrics: { score: 90 } } }));
  });

  it("metrics today's schema cannot read are left out of the policy's records", () => {
    const g = given(start({ policies: ['gaps', 'quality'] }), open('H-1', 'HIGH'), startRound(1));
    expectUnchanged(g.view, next(g, { type: 'metrics.recorded', data: { policy: 'quality', round: 1, metrics: { score: 500 } } }));
  });

  it("session.started with policy settings today's schemas reject: taken, the policy falling back to its defaults", () => {
    const data = { policies: ['gaps', 'quality'], policySettings: { quality: { minScore: 500 } } };
    given()
      .when(start(data))
      .thenRefuses(/quality settings/);
    const view = next(given(), { type: 'session.started', data });
    expect(view.settings).toEqual(data);
    expect(view.policies.enabled).toEqual(['gaps', 'quality']);
    // The quality policy's default minimum score is 85.
    expect(view.policies.settings.get('quality')).toMatchObject({ minScore: 85 });
  });

  it('session.started naming a policy that does not exist', () => {
    given()
      .when(start({ policies: ['nope'] }))
      .thenRefuses(/unknown policy "nope"/);
    expect(next(given(), { type: 'session.started', data: { policies: ['nope'] } }).policies.enabled).toEqual(['nope']);
  });

  it('a narrow scope naming an unknown gap defers the known ones only', () => {
    const g = given(start(), open('M-1', 'MEDIUM'), open('M-2', 'MEDIUM'), ...round(1, open('C1', 'CRITICAL')));
    const view = next(g, {
      type: 'decision.made',
      data: {
        kind: 'narrow_scope',
        gaps: ['NOPE', 'M-1'],
        outcome: { machine: { state: 'CONVERGING', flatCount: 0, outcome: null, pausedFrom: null }, steps: [] },
      },
    });
    expect(view.gaps.get('M-1')?.state).toBe('USER_DEFERRED');
    expect(view.gaps.has('NOPE')).toBe(false);
  });

  it('a second gap.opened for a known id (a hand-edited log) changes nothing: ids are never reused', () => {
    const g = given(start(), open('H-1', 'HIGH'), startRound(1));
    g.when(open('H-1', 'LOW')).thenRefuses(/gap H-1 already exists/);
    const view = next(g, { type: 'gap.opened', data: { id: 'H-1', severity: 'LOW', title: 'again', blocking: true } });
    expectUnchanged(g.view, view);
    expect(view.open).toEqual({ count: 1, weighted: WEIGHT.HIGH });
  });

  it('a round.closed naming a round other than the open one (a hand-edited log) closes nothing', () => {
    const g = given(start(), open('H-1', 'HIGH'), startRound(1));
    g.when({ type: 'round.closed', data: { round: 5 } }).thenRefuses(/the open round is 1, not 5/);
    const outcome = {
      figures: { openEnd: 1, weightedOpenEnd: WEIGHT.HIGH, resolved: 0, new: 0, weightedResolved: 0, weightedNew: 0, criticalIntroduced: [] },
      verdicts: [],
      combined: { verdict: 'flat' as const, reason: 'no_weighted_progress', policies: ['gaps'], detail: 'gaps: weighted_net = 0' },
      machine: { state: 'FLAT' as const, flatCount: 1, outcome: null, pausedFrom: null },
      steps: [{ from: 'CONVERGING' as const, to: 'FLAT' as const }],
    };
    expectUnchanged(g.view, next(g, { type: 'round.closed', data: { round: 5, outcome } }));
  });

  it('a move the lifecycle would refuse (OPEN -> ACCEPTED) is still a fact: applied, and counted as resolved (R6)', () => {
    const g = given(start(), open('H-1', 'HIGH'), open('L-1', 'LOW'), startRound(1));
    g.when(move('H-1', 'ACCEPTED')).thenRefuses(/gap H-1 is OPEN/);
    const view = next(g, { type: 'gap.moved', data: { id: 'H-1', to: 'ACCEPTED' } });
    expect(view.gaps.get('H-1')?.state).toBe('ACCEPTED');
    expect(view.open).toEqual({ count: 1, weighted: WEIGHT.LOW });
    expect(view.rounds[0]).toMatchObject({ resolved: 1, weightedResolved: WEIGHT.HIGH });
  });
});

describe('R9: open count and weighted open', () => {
  /** One gap per state, reached by the lifecycle's moves; the expected sums are worked out from the ruling below. */
  const inventory: [id: string, sev: Sev, state: GapState, path: GapState[]][] = [
    ['C1', 'CRITICAL', 'OPEN', []],
    ['H1', 'HIGH', 'IN_PROGRESS', ['IN_PROGRESS']],
    ['M1', 'MEDIUM', 'BLOCKED', ['IN_PROGRESS', 'BLOCKED']],
    ['L1', 'LOW', 'PROPOSED', ['IN_PROGRESS', 'PROPOSED']],
    ['H2', 'HIGH', 'NEEDS_REVISION', ['IN_PROGRESS', 'PROPOSED', 'NEEDS_REVISION']],
    ['C2', 'CRITICAL', 'USER_DEFERRED', ['USER_DEFERRED']],
    ['M2', 'MEDIUM', 'ACCEPTED', ['IN_PROGRESS', 'PROPOSED', 'ACCEPTED']],
    ['L2', 'LOW', 'RESOLVED', ['RESOLVED']],
    ['H3', 'HIGH', 'WONT_FIX', ['WONT_FIX']],
  ];
  const everyState = () =>
    given(start(), ...inventory.map(([id, sev]) => open(id, sev)), ...inventory.flatMap(([id, , , path]) => path.map((to) => move(id, to))));
  const count = inventory.reduce((total, [, , state]) => total + FACTOR[state], 0);
  const weighted = inventory.reduce((total, [, sev, state]) => total + FACTOR[state] * WEIGHT[sev], 0);

  it("counts each open state 1, USER_DEFERRED 0.5, closed states 0; weighted open uses each gap's weight, a deferred one at half", () => {
    // 5 open + half a deferred CRITICAL: 5.5; 16 + 4 + 2 + 1 + 4 + 16 / 2 = 35.
    expect([count, weighted]).toEqual([5.5, 35]);
    expect(everyState().view.open).toEqual({ count, weighted });
  });

  it("R29: a deferred gap's severity change moves only its half weight", () => {
    expect(everyState().and(severity('C2', 'LOW')).view.open).toEqual({ count, weighted: weighted - WEIGHT.CRITICAL / 2 + WEIGHT.LOW / 2 });
  });

  it('R8: Open Start is the open count when the round starts', () => {
    expect(everyState().and(startRound(1)).view.rounds[0]).toMatchObject({ openStart: count, weightedOpenStart: weighted });
  });

  it('R11: narrowing scope parks the named gaps, so the open count drops by half a gap each', () => {
    const g = given(
      start(),
      open('M-1', 'MEDIUM'),
      open('L-1', 'LOW'),
      ...round(1, open('C1', 'CRITICAL')),
      decision('narrow_scope', { gaps: ['M-1', 'L-1'] }),
    );
    expect(g.view.open).toEqual({ count: 1 + 0.5 + 0.5, weighted: WEIGHT.CRITICAL + (WEIGHT.MEDIUM + WEIGHT.LOW) / 2 });
  });

  it('R11: accepting complexity records the open count and weighted open at that moment as the new baseline', () => {
    const g = given(start(), open('M-1', 'MEDIUM'), ...round(1, open('C1', 'CRITICAL')), decision('accept_complexity'));
    expect(g.view.baseline).toEqual({ afterRound: 1, openCount: 2, weightedOpen: WEIGHT.MEDIUM + WEIGHT.CRITICAL });
  });

  it('R15: each metrics record is kept for the round it belongs to', () => {
    const g = given(start({ policies: ['quality'] }), metrics('quality', { score: 80 }), metrics('quality', { score: 81 }));
    expect(g.view.policies.records.get('quality')?.map((r) => r.round)).toEqual([1, 2]);
  });
});
