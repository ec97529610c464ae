import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { combine, gapVerdict, stepMachine, DEFAULT_CONFIG, type NamedVerdict, type Verdict, toStateJson } from '../../src/index.js';
import { newSession } from '../support.js';

const v = (policy: string, verdict: Verdict, reason = `${policy}_${verdict}`): NamedVerdict => ({ policy, verdict, reason, detail: reason, figures: {} });

describe('combining policy verdicts (issue 5, point 7)', () => {
  it('is diverging when any policy diverges, whatever the others say', () => {
    expect(combine([v('a', 'converged'), v('b', 'diverging'), v('c', 'limit')]).verdict).toBe('diverging');
  });

  it('is converged only when every policy converged, by default', () => {
    expect(combine([v('a', 'converged'), v('b', 'converged')]).verdict).toBe('converged');
    expect(combine([v('a', 'converged'), v('b', 'progress')]).verdict).toBe('progress');
    expect(combine([v('a', 'converged'), v('b', 'flat')]).verdict).toBe('flat');
  });

  it('with --complete-when any, is converged when one policy converged and none diverges', () => {
    expect(combine([v('a', 'converged'), v('b', 'flat')], 'any').verdict).toBe('converged');
    expect(combine([v('a', 'converged'), v('b', 'diverging')], 'any').verdict).toBe('diverging');
  });

  it('is limit when any policy hits its limit and not all converged', () => {
    expect(combine([v('a', 'limit'), v('b', 'progress')]).verdict).toBe('limit');
    expect(combine([v('a', 'converged'), v('b', 'limit')]).verdict).toBe('limit');
  });

  it('is progress when any progressed, else flat', () => {
    expect(combine([v('a', 'flat'), v('b', 'progress')]).verdict).toBe('progress');
    expect(combine([v('a', 'flat'), v('b', 'flat')]).verdict).toBe('flat');
  });

  it('passes a single policy verdict through unchanged, reason included', () => {
    const verdicts: Verdict[] = ['progress', 'flat', 'diverging', 'converged', 'limit'];
    for (const verdict of verdicts) {
      expect(combine([v('only', verdict, 'why')])).toMatchObject({ verdict, reason: 'why', policies: ['only'] });
    }
  });

  it('names the policies that decided and keeps the first one\'s reason code', () => {
    const c = combine([v('a', 'progress', 'a_rose'), v('b', 'flat'), v('c', 'progress', 'c_rose')]);
    expect(c).toMatchObject({ verdict: 'progress', reason: 'a_rose', policies: ['a', 'c'] });
  });
});

describe('the gap policy verdict agrees with the statechart\'s gap guards', () => {
  // The machine decides gaps-only sessions from the figures; the gap verdict is what mixed sessions combine.
  const expected: Record<string, Verdict> = {
    nothingLeftOpen: 'converged',
    lastRoundClosed: 'limit',
    criticalIntroduced: 'diverging',
    weightedNetBelowDivergence: 'diverging',
    weightedNetPositive: 'progress',
  };
  it('for any round figures, the guard the machine takes maps to the gap verdict', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 0, max: 6 }),
        fc.integer({ min: -30, max: 30 }),
        fc.boolean(),
        (round, openCount, weightedNet, critical) => {
          const machine = { state: 'CONVERGING' as const, flatCount: 0, outcome: null, pausedFrom: null };
          const result = stepMachine(machine, DEFAULT_CONFIG, { type: 'ROUND_CLOSED', round, weightedNet, openCount, criticalIntroduced: critical });
          const gap = gapVerdict({ round, openCount, weightedNet, weightedResolved: 0, weightedNew: 0, criticalIntroduced: critical ? ['C'] : [] }, DEFAULT_CONFIG);
          expect(gap.verdict).toBe(expected[result.rule ?? ''] ?? 'flat');
        },
      ),
    );
  });

  it('drives the machine the same way through the combined verdict as through the gap guards', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.integer({ min: 0, max: 4 }), fc.integer({ min: -20, max: 20 }), fc.boolean()), { minLength: 1, maxLength: 12 }), (rounds) => {
        let plain = { state: 'CONVERGING' as const, flatCount: 0, outcome: null, pausedFrom: null } as Parameters<typeof stepMachine>[0];
        let viaVerdict = plain;
        rounds.forEach(([openCount, weightedNet, critical], i) => {
          if (plain.state !== 'CONVERGING' && plain.state !== 'FLAT') return;
          const event = { type: 'ROUND_CLOSED' as const, round: i + 1, weightedNet, openCount, criticalIntroduced: critical };
          const gap = gapVerdict({ ...event, weightedResolved: 0, weightedNew: 0, criticalIntroduced: critical ? ['C'] : [] }, DEFAULT_CONFIG);
          plain = stepMachine(plain, DEFAULT_CONFIG, event).machine;
          viaVerdict = stepMachine(viaVerdict, DEFAULT_CONFIG, { ...event, verdict: { verdict: gap.verdict, reason: gap.reason } }).machine;
          expect(viaVerdict).toEqual(plain);
        });
      }),
    );
  });
});

describe('policy-only sessions', () => {
  it('a record is one iteration: it opens the round, records and closes it', () => {
    const s = newSession({ policies: ['quality'] });
    const { events } = s.recordMetrics('quality', { score: 70 });
    expect(events.map((e) => e.type)).toEqual(['round.started', 'metrics.recorded', 'round.closed']);
    expect(toStateJson(s.view)).toMatchObject({ state: 'CONVERGING', round: 1, roundOpen: false });
  });

  it('with two metric policies the round closes when both have recorded', () => {
    const s = newSession({ policies: ['quality', 'questions'] });
    expect(s.recordMetrics('quality', { score: 70 }).events.map((e) => e.type)).toEqual(['round.started', 'metrics.recorded']);
    expect(s.recordMetrics('questions', { open: 9, high: 1, medium: 1 }).events.map((e) => e.type)).toEqual(['metrics.recorded', 'round.closed']);
    expect(toStateJson(s.view).rounds[0]!.verdicts.map((x) => x.policy)).toEqual(['quality', 'questions']);
  });
});
