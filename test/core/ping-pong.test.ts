import { describe, expect, it } from 'vitest';
import { headOf, loopStep } from '../../src/core/index.js';
import { closeRound, given, move, open, resolve, round, start, startRound } from './given.js';
import type { BodyInputOf } from '../../events/index.js';

/*
 * Fix-break cycles are named as causes, never acted on: a gap resolved and
 * reopened the session's ping-pong threshold of times (2 unless init says
 * otherwise), and an open count that alternates between two values over
 * four round closes. The round's verdict detail, the `next` answer and the
 * decision prompt name them; the machine's steps are the policies' alone.
 */

const reopen = (id: string) => move(id, 'OPEN');
const rename = (id: string, newId: string): BodyInputOf<'gap.renamed'> => ({ type: 'gap.renamed', data: { id, newId } });
const split = (id: string, parts: string[]): BodyInputOf<'gap.split'> => ({
  type: 'gap.split',
  data: { id, into: parts.map((part) => ({ id: part, severity: 'LOW' as const })) },
});

/** A: resolved and reopened twice over four rounds; B stays open so nothing converges. Round 4 reopens A the second time. */
function twoCycles(settings: BodyInputOf<'session.started'>['data'] = {}) {
  return given(
    start({ stallThreshold: 10, ...settings }),
    open('A', 'HIGH'),
    open('B', 'LOW'),
    ...round(1, resolve('A')),
    ...round(2, reopen('A')),
    ...round(3, resolve('A')),
    startRound(4),
    reopen('A'),
  );
}

describe('ping-pong: a gap resolved and reopened again', () => {
  it('a gap resolved, reopened, resolved and reopened is named in the verdict detail of the round that reopened it the second time', () => {
    const outcome = twoCycles().when(closeRound(4)).decided()[0]!;
    if (outcome.type !== 'round.closed') throw new Error('expected a round close');
    const gaps = outcome.data.outcome.verdicts.find((v) => v.policy === 'gaps')!;
    expect(gaps.detail).toContain('ping-pong: A (resolved 2×, reopened 2×)');
    expect(gaps.figures.pingPong).toBe('A (resolved 2×, reopened 2×)');
    expect(outcome.data.outcome.combined.detail).toContain('ping-pong: A (resolved 2×, reopened 2×)');
    // Named, not acted on: the round is flat as it would be without the name.
    expect(outcome.data.outcome.combined.verdict).toBe('flat');
  });

  it('a gap reopened once is not named', () => {
    const once = given(start({ stallThreshold: 10 }), open('A', 'HIGH'), open('B', 'LOW'), ...round(1, resolve('A')), startRound(2), reopen('A'));
    const outcome = once.when(closeRound(2)).decided()[0]!;
    if (outcome.type !== 'round.closed') throw new Error('expected a round close');
    expect(outcome.data.outcome.combined.detail).not.toContain('ping-pong');
    expect(loopStep(once.view).pingPong).toEqual([]);
  });

  it('the threshold set at init changes it: with 3, two reopens are not named and a third is', () => {
    const three = twoCycles({ pingPong: 3 }).and(closeRound(4));
    expect(loopStep(three.view).pingPong).toEqual([]);
    expect(three.view.rounds[3]!.combined!.detail).not.toContain('ping-pong');
    const third = three.and(...round(5, resolve('A')), startRound(6), reopen('A'), closeRound(6));
    expect(loopStep(third.view).pingPong).toEqual([{ id: 'A', resolves: 3, reopens: 3 }]);
    expect(third.view.rounds[5]!.combined!.detail).toContain('ping-pong: A (resolved 3×, reopened 3×)');
    // With 1, the first reopen is named already.
    const one = given(start({ pingPong: 1 }), open('A', 'HIGH'), open('B', 'LOW'), ...round(1, resolve('A')), ...round(2, reopen('A')));
    expect(loopStep(one.view).pingPong).toEqual([{ id: 'A', resolves: 1, reopens: 1 }]);
  });

  it('`next` lists the gap with its counts while it is open, from the head as from the whole view, and drops it once resolved again', () => {
    const cycled = twoCycles().and(closeRound(4));
    expect(loopStep(cycled.view).pingPong).toEqual([{ id: 'A', resolves: 2, reopens: 2 }]);
    expect(loopStep(headOf(cycled.view, 2)).pingPong).toEqual([{ id: 'A', resolves: 2, reopens: 2 }]);
    expect(loopStep(cycled.and(...round(5, resolve('A'))).view).pingPong).toEqual([]);
  });

  it('a reopen from DUPLICATE is no ping-pong: the gap was withdrawn, not fixed', () => {
    const duplicate = given(start({ stallThreshold: 10 }), open('A', 'LOW'), open('B', 'LOW'), open('C', 'LOW'));
    const withdrawn = duplicate.and(
      ...round(1, move('A', 'DUPLICATE', { of: 'C' })),
      ...round(2, reopen('A')),
      ...round(3, move('A', 'DUPLICATE', { of: 'C' })),
      ...round(4, reopen('A')),
    );
    expect(withdrawn.view.gaps.get('A')).toMatchObject({ state: 'OPEN' });
    expect(withdrawn.view.gaps.get('A')!.reopens).toBeUndefined();
    expect(loopStep(withdrawn.view).pingPong).toEqual([]);
  });

  it('a rename keeps the counts and renames the gap in the words recorded; a split hands them to its parts', () => {
    const renamed = twoCycles().and(closeRound(4), rename('A', 'A-2'));
    expect(loopStep(renamed.view).pingPong).toEqual([{ id: 'A-2', resolves: 2, reopens: 2 }]);
    expect(renamed.view.rounds[3]!.combined!.detail).toContain('ping-pong: A-2 (resolved 2×, reopened 2×)');
    expect(renamed.view.rounds[3]!.verdicts[0]!.figures.pingPong).toBe('A-2 (resolved 2×, reopened 2×)');
    const parted = twoCycles().and(closeRound(4), split('A', ['A-1', 'A-2']));
    expect(loopStep(parted.view).pingPong).toEqual([
      { id: 'A-1', resolves: 2, reopens: 2 },
      { id: 'A-2', resolves: 2, reopens: 2 },
    ]);
  });
});

describe('an open count alternating between two values', () => {
  /** B stays open; A is resolved and reopened in turn, so the open count goes 1, 2, 1, 2 (ping-pong at 5 keeps A's reopens out of it). */
  const alternating = () =>
    given(
      start({ stallThreshold: 10, pingPong: 5 }),
      open('A', 'HIGH'),
      open('B', 'LOW'),
      ...round(1, resolve('A')),
      ...round(2, reopen('A')),
      ...round(3, resolve('A')),
    );

  it('over four round closes is named in the verdict detail and in `next`', () => {
    const four = alternating().and(startRound(4), reopen('A'));
    const outcome = four.when(closeRound(4)).decided()[0]!;
    if (outcome.type !== 'round.closed') throw new Error('expected a round close');
    expect(outcome.data.outcome.combined.detail).toContain('open count alternating: 1, 2, 1, 2 over rounds 1-4');
    const closed = four.and(closeRound(4));
    expect(loopStep(closed.view).openCountAlternating).toEqual({ fromRound: 1, toRound: 4, openCounts: [1, 2, 1, 2] });
    expect(loopStep(headOf(closed.view, 2)).openCountAlternating).toEqual({ fromRound: 1, toRound: 4, openCounts: [1, 2, 1, 2] });
  });

  it('over three closes is not named', () => {
    const three = alternating();
    expect(three.view.rounds[2]!.combined!.detail).not.toContain('alternating');
    expect(loopStep(three.view).openCountAlternating).toBeNull();
  });

  it('a count that changes but does not go back (1, 2, 3, 2) is not named', () => {
    const drifting = given(
      start({ stallThreshold: 10 }),
      open('A', 'LOW'),
      ...round(1),
      ...round(2, open('B', 'LOW')),
      ...round(3, open('C', 'LOW')),
      ...round(4, resolve('C')),
    );
    expect(drifting.view.openEnds.map((r) => r.openEnd)).toEqual([1, 2, 3, 2]);
    expect(loopStep(drifting.view).openCountAlternating).toBeNull();
  });
});

describe('the ping-pong setting', () => {
  it("is the gap policy's: a session without it refuses the setting rather than ignore it", () => {
    given()
      .when(start({ policies: ['quality'], pingPong: 3 }))
      .thenRefuses(/pingPong: a setting of the gap policy, which this session does not enable/, 'enable_gap_policy');
  });
});
