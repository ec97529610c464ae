import { describe, expect, it } from 'vitest';
import { combine, withSessionRules, type NamedVerdict } from '../../src/policies/index.js';
import { toStateJson } from '../../src/core/index.js';
import { VERDICTS } from '../../machines/index.js';
import type { Verdict } from '../../src/index.js';
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

  it('is stopped when any policy was asked to stop, before any limit, unless one diverges or all converged', () => {
    expect(combine([v('a', 'limit'), v('b', 'stopped'), v('c', 'progress')]).verdict).toBe('stopped');
    expect(combine([v('a', 'stopped'), v('b', 'diverging')]).verdict).toBe('diverging');
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
    for (const verdict of VERDICTS) {
      expect(combine([v('only', verdict, 'why')])).toMatchObject({ verdict, reason: 'why', policies: ['only'] });
    }
  });

  it("names the policies that decided and keeps the first one's reason code", () => {
    const c = combine([v('a', 'progress', 'a_rose'), v('b', 'flat'), v('c', 'progress', 'c_rose')]);
    expect(c).toMatchObject({ verdict: 'progress', reason: 'a_rose', policies: ['a', 'c'] });
  });
});

describe('R12 over whatever combination runs: one rule, after combining', () => {
  const combined = (verdict: Verdict) => combine([v('a', verdict, 'why')]);
  const at = (round: number, maxRounds: number | null, openCount: number | null) => ({ round, maxRounds, openCount });

  it('nothing left open converges, whatever the policies said (even diverging), when a policy reads gap events', () => {
    for (const verdict of VERDICTS) {
      const judged = withSessionRules(combined(verdict), at(2, 10, 0));
      expect(judged.verdict).toBe('converged');
      if (verdict !== 'converged') expect(judged).toMatchObject({ reason: 'nothing_left_open', policies: [] });
    }
  });

  it("closing round max_rounds turns any verdict but converged, or a policy's own limit, into limit (max_rounds)", () => {
    for (const verdict of ['diverging', 'progress', 'flat', 'stopped'] as const) {
      expect(withSessionRules(combined(verdict), at(4, 4, 3))).toMatchObject({ verdict: 'limit', reason: 'max_rounds', policies: [] });
      expect(withSessionRules(combined(verdict), at(5, 4, null)).verdict).toBe('limit');
    }
    for (const verdict of ['converged', 'limit'] as const) expect(withSessionRules(combined(verdict), at(4, 4, 3))).toEqual(combined(verdict));
  });

  it('before the last round with gaps open, or with no limit and no inventory, the verdict stands', () => {
    for (const verdict of VERDICTS) {
      expect(withSessionRules(combined(verdict), at(3, 4, 2))).toEqual(combined(verdict));
      expect(withSessionRules(combined(verdict), at(400, null, null))).toEqual(combined(verdict));
    }
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
