import { describe, expect, it } from 'vitest';
import { compareCourses, counterfactual, recordedCourse, variantGrid } from '../../src/core/index.js';
import type { EventBodyInput } from '../../events/index.js';
import { closeRound, decision, given, move, open, resolve, round, start, startRound } from './given.js';

/*
 * Given a recorded history (built by deciding each request, as a live
 * session does) and other settings, where the counterfactual warns, stops,
 * or leaves the record, and how that compares with what was recorded.
 */

const baseline: EventBodyInput[] = [open('H1', 'HIGH'), open('H2', 'HIGH'), open('M1', 'MEDIUM'), open('M2', 'MEDIUM'), open('L1', 'LOW')];

/** Progress, two flat rounds (a stall under N = 2, answered by narrowing), then progress to the end. */
function stalledAndNarrowed() {
  return given(
    start(),
    ...baseline,
    ...round(1, resolve('H1')),
    ...round(2, move('M1', 'IN_PROGRESS')),
    ...round(3, move('M1', 'PROPOSED')),
    decision('narrow_scope', { gaps: ['L1'] }),
    ...round(4, resolve('H2'), move('M1', 'RESOLVED')),
    ...round(5, resolve('M2'), move('L1', 'WONT_FIX')),
  ).log;
}

describe('the record', () => {
  it('is read from the outcomes its lines carry: a stall warning at round 3, CONVERGED at 5', () => {
    const course = recordedCourse(stalledAndNarrowed());
    expect(course.warnings).toEqual([{ round: 3, cause: 'stall' }]);
    expect(course.stop).toEqual({ round: 5, outcome: 'CONVERGED', by: 'round' });
    expect(course.rounds).toBe(5);
  });
});

describe('a counterfactual', () => {
  it('under the settings the session ran with follows the record to the end', () => {
    const log = stalledAndNarrowed();
    const run = counterfactual(log, {});
    expect(run).toMatchObject({ warnings: [{ round: 3, cause: 'stall' }], stop: { round: 5, outcome: 'CONVERGED' }, diverged: null, unreplayed: 0 });
    expect(compareCourses(recordedCourse(log), run)).toEqual({
      warningsRaised: [],
      warningsMissed: [],
      stop: { shift: 'same', rounds: 0, outcomeChanged: null },
    });
  });

  it('with a higher stall threshold misses the warning and leaves the record at the decision that answered it', () => {
    const log = stalledAndNarrowed();
    const run = counterfactual(log, { stallThreshold: 3 });
    expect(run.warnings).toEqual([]);
    expect(run.state).toBe('FLAT');
    expect(run.stop).toBeNull();
    const narrowing = log.find((e) => e.type === 'decision.made')!;
    expect(run.diverged).toEqual({ round: 3, line: narrowing.seq, reason: 'the record decides narrow-scope in DIVERGENCE_WARNING; this run is FLAT there' });
    expect(run.unreplayed).toBe(log.length - narrowing.seq + 1);
    expect(compareCourses(recordedCourse(log), run)).toMatchObject({ warningsMissed: [3], warningsRaised: [], stop: { shift: 'unknown' } });
  });

  it('with a lower stall threshold warns earlier and leaves the record where it went on without a decision', () => {
    const log = given(
      start({ stallThreshold: 3 }),
      ...baseline,
      ...round(1, resolve('H1')),
      ...round(2, move('M1', 'IN_PROGRESS')),
      ...round(3, resolve('H2')),
    ).log;
    const run = counterfactual(log, { stallThreshold: 1 });
    expect(run.warnings).toEqual([{ round: 2, cause: 'stall' }]);
    expect(run.diverged).toMatchObject({ round: 2, reason: 'this run warns here and the record has no decision for it (it goes on with round.started)' });
    expect(compareCourses(recordedCourse(log), run).warningsRaised).toEqual([2]);
  });

  it('with a lower round limit stops at it, earlier than the record, and replays nothing after', () => {
    const log = stalledAndNarrowed();
    const run = counterfactual(log, { maxRounds: 2 });
    expect(run.stop).toEqual({ round: 2, outcome: 'MAX_ROUNDS', by: 'round' });
    expect(run.diverged).toBeNull();
    expect(run.unreplayed).toBeGreaterThan(0);
    expect(compareCourses(recordedCourse(log), run).stop).toEqual({ shift: 'earlier', rounds: 3, outcomeChanged: { was: 'CONVERGED', now: 'MAX_ROUNDS' } });
  });

  it('with a higher round limit than the one that stopped the record runs to the record end still going', () => {
    const log = given(start({ maxRounds: 2 }), ...baseline, ...round(1, resolve('H1')), ...round(2, resolve('H2'))).log;
    expect(recordedCourse(log).stop).toMatchObject({ round: 2, outcome: 'MAX_ROUNDS' });
    const run = counterfactual(log, { maxRounds: 5 });
    expect(run).toMatchObject({ stop: null, state: 'CONVERGING', rounds: 2, diverged: null });
    expect(compareCourses(recordedCourse(log), run).stop.shift).toBe('not_yet');
  });

  it('without the critical override lets a CRITICAL introduction through as a flat round (weighted net -8); the decision that answered it no longer fits', () => {
    const log = given(
      start(),
      ...baseline,
      ...round(1, resolve('H1'), resolve('H2'), open('C1', 'CRITICAL')),
      decision('prioritize_critical'),
      ...round(2, resolve('C1')),
    ).log;
    expect(recordedCourse(log).warnings).toEqual([{ round: 1, cause: 'critical' }]);
    const run = counterfactual(log, { criticalOverride: false });
    expect(run.warnings).toEqual([]);
    expect(run.diverged?.reason).toBe('the record decides prioritize-critical in DIVERGENCE_WARNING; this run is FLAT there');
  });

  it('with a tighter divergence threshold warns at a round the record let pass', () => {
    const log = given(start(), ...baseline, ...round(1, open('H3', 'HIGH'), open('M3', 'MEDIUM')), ...round(2, resolve('H3'))).log;
    expect(recordedCourse(log).warnings).toEqual([]);
    const run = counterfactual(log, { divergenceThreshold: 5 });
    expect(run.warnings).toEqual([{ round: 1, cause: 'divergence' }]);
  });

  it('replays a pause and resume, inside a round and between rounds, where they still fit', () => {
    const log = given(
      start(),
      ...baseline,
      startRound(1),
      resolve('H1'),
      decision('pause'),
      decision('resume'),
      closeRound(1),
      decision('pause'),
      decision('resume'),
      ...round(2, move('M1', 'IN_PROGRESS')),
      ...round(3, resolve('H2')),
    ).log;
    const run = counterfactual(log, { stallThreshold: 4 });
    expect(run).toMatchObject({ diverged: null, unreplayed: 0, rounds: 3, state: 'CONVERGING' });
  });

  it('of a user decision that ends the session stops where the record stopped', () => {
    const log = given(start(), ...baseline, ...round(1, resolve('H1')), decision('abandon')).log;
    const run = counterfactual(log, { stallThreshold: 5 });
    expect(run.stop).toEqual({ round: 1, outcome: 'ABANDONED', by: 'abandon' });
  });

  it('whose settings no session could start with leaves the record at its first line', () => {
    const log = stalledAndNarrowed();
    const run = counterfactual(log, { policySettings: { forge: { threshold: 0.9 } } });
    expect(run.diverged).toMatchObject({ round: 0, line: 1 });
    expect(run.diverged!.reason).toMatch(/^the settings are refused: settings for forge, which is not enabled/);
  });

  it('never changes the events it is given', () => {
    const log = stalledAndNarrowed();
    const copy = structuredClone(log);
    counterfactual(log, { stallThreshold: 3 });
    recordedCourse(log);
    expect(log).toEqual(copy);
  });
});

describe('settings to replay under', () => {
  it('a grid is the product of its axes, fixed settings in every one', () => {
    const axis = (key: 'stallThreshold' | 'maxRounds', values: number[]) => values.map((v) => ({ label: `${key}=${v}`, settings: { [key]: v } }));
    const variants = variantGrid(
      [{ label: 'critical-override=off', settings: { criticalOverride: false } }],
      [axis('stallThreshold', [2, 3]), axis('maxRounds', [5, 6])],
    );
    expect(variants.map((v) => v.label)).toEqual([
      'critical-override=off stallThreshold=2 maxRounds=5',
      'critical-override=off stallThreshold=2 maxRounds=6',
      'critical-override=off stallThreshold=3 maxRounds=5',
      'critical-override=off stallThreshold=3 maxRounds=6',
    ]);
    expect(variants[3]!.settings).toEqual({ criticalOverride: false, stallThreshold: 3, maxRounds: 6 });
  });

  it('with nothing to vary is the record itself', () => {
    expect(variantGrid([], [])).toEqual([{ label: 'as recorded', settings: {} }]);
  });
});

describe('a counterfactual of a session fed by a tool', () => {
  const synced = (ids: string[], close = false): EventBodyInput => ({
    type: 'findings.synced',
    data: { source: 'lint', format: 'json', findings: ids.map((id) => ({ id, severity: 'HIGH' as const, title: id })), ...(close ? { close } : {}) },
  });

  it("replays each snapshot's record as it stands and decides the gap events it made afresh, to the same end", () => {
    const log = given(start(), synced(['A', 'B']), synced(['B'], true), synced([], true)).log;
    expect(log.filter((event) => event.type === 'findings.synced')).toHaveLength(3);
    const run = counterfactual(log, {});
    expect(run).toMatchObject({ stop: { round: 2, outcome: 'CONVERGED' }, diverged: null, unreplayed: 0 });
    expect(compareCourses(recordedCourse(log), run).stop).toEqual({ shift: 'same', rounds: 0, outcomeChanged: null });
  });
});
