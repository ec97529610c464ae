import { describe, expect, it } from 'vitest';
import type { BodyInputOf } from '../../events/index.js';
import { renderStatus } from '../../src/render/index.js';
import { WEIGHT } from '../support.js';
import { closeRound, given, open, resolve, round, start } from './given.js';

/*
 * R25: a round is work (the default), review or consolidation. Every figure
 * is computed the same way for each kind; a flat round that is not work
 * leaves flat_count as it was (neither raised nor reset); divergence and the
 * critical override apply to every kind.
 */

type Kind = NonNullable<BodyInputOf<'round.started'>['data']['kind']>;
const startKind = (n: number, kind: string): BodyInputOf<'round.started'> => ({ type: 'round.started', data: { round: n, kind: kind as Kind } });
const kindRound = (n: number, kind: Kind, ...requests: Parameters<typeof given>) => [startKind(n, kind), ...requests, closeRound(n)];

/** Four baseline gaps: two HIGH, two MEDIUM; stall_threshold 2 (the default). */
const session = () => given(start(), open('H-1', 'HIGH'), open('H-2', 'HIGH'), open('M-1', 'MEDIUM'), open('M-2', 'MEDIUM'));

describe('R25: starting a round of a kind', () => {
  it('a review round records its kind', () => {
    session()
      .when(startKind(1, 'review'))
      .then([startKind(1, 'review')]);
  });

  it('a work round records none: work is the default', () => {
    const [decided] = session().when(startKind(1, 'work')).decided();
    expect(decided).toEqual({ type: 'round.started', data: { round: 1 } });
  });

  it('the kind is read in any spelling and recorded in the one', () => {
    session()
      .when(startKind(1, 'Consolidation'))
      .then([startKind(1, 'consolidation')]);
  });

  it('a kind that is none of them is refused, naming the field and the nearest word', () => {
    session()
      .when(startKind(1, 'reveiw'))
      .thenRefuses(/data\.kind: "reveiw" is not one of work, review, consolidation \(did you mean review\?\)/);
  });

  it('a round a gap event starts is a work round', () => {
    const view = session().and(...round(1), resolve('M-1')).view;
    expect(view.rounds.at(-1)!.kind).toBe('work');
  });
});

describe('R25: a flat round that is not work leaves flat_count as it was', () => {
  it.each(['review', 'consolidation'] as const)('a flat %s round in FLAT stays FLAT with flat_count 1 (a work round would stall)', (kind) => {
    const flat = session().and(...round(1));
    expect(flat.view.machine).toMatchObject({ state: 'FLAT', flatCount: 1 });
    flat
      .and(startKind(2, kind))
      .when(closeRound(2))
      .then([{ type: 'round.closed', data: { round: 2, outcome: { machine: { state: 'FLAT', flatCount: 1 }, steps: [], kind } } }]);
    // The same round as work: the second flat round in a row stalls (R1).
    expect(flat.and(...round(2)).view.machine.state).toBe('DIVERGENCE_WARNING');
  });

  it('a flat review round in CONVERGING stays CONVERGING with flat_count 0', () => {
    const converging = session().and(...round(1, resolve('M-1')));
    expect(converging.view.machine).toMatchObject({ state: 'CONVERGING', flatCount: 0 });
    const after = converging.and(...kindRound(2, 'review'));
    expect(after.view.machine).toMatchObject({ state: 'CONVERGING', flatCount: 0 });
    expect(after.view.rounds.at(-1)).toMatchObject({ kind: 'review', state: 'CONVERGING', flatCount: 0 });
  });

  it('a flat review round between two flat work rounds does not reset the count: the second work round stalls', () => {
    const view = session().and(...round(1), ...kindRound(2, 'review'), ...round(3)).view;
    expect(view.machine.state).toBe('DIVERGENCE_WARNING');
    expect(view.rounds.map((r) => r.flatCount)).toEqual([1, 1, null]);
  });

  it('the history says the review round left flat_count as it was', () => {
    const view = session().and(...round(1), ...kindRound(2, 'review')).view;
    const entry = view.history.at(-1)!;
    expect(entry).toMatchObject({ round: 2, from: 'FLAT', to: 'FLAT' });
    expect(entry.reason).toMatch(/a review round leaves flat_count as it was/);
  });
});

describe('R25: every kind is counted and judged the same otherwise', () => {
  it('a review round resolving a HIGH and opening a MEDIUM has the figures of the same work round', () => {
    const work = session().and(...round(1, resolve('H-1'), open('N-1', 'MEDIUM'))).view.rounds[0]!;
    const review = session().and(...kindRound(1, 'review', resolve('H-1'), open('N-1', 'MEDIUM'))).view.rounds[0]!;
    const expected = { resolved: 1, new: 1, weightedResolved: WEIGHT.HIGH, weightedNew: WEIGHT.MEDIUM, weightedNet: WEIGHT.HIGH - WEIGHT.MEDIUM, openEnd: 4 };
    expect(work).toMatchObject(expected);
    expect(review).toMatchObject({ ...expected, kind: 'review' });
  });

  it('progress in a review round resets flat_count as a work round does', () => {
    const view = session().and(...round(1), ...kindRound(2, 'review', resolve('M-1'))).view;
    expect(view.machine).toMatchObject({ state: 'CONVERGING', flatCount: 0 });
  });

  it('a CRITICAL opened in a consolidation round warns (the critical override)', () => {
    const view = session().and(...kindRound(1, 'consolidation', open('C-1', 'CRITICAL'))).view;
    expect(view.machine.state).toBe('DIVERGENCE_WARNING');
  });

  it('a review round below -D diverges (three HIGH opened: -12 < -8)', () => {
    const view = session().and(...kindRound(1, 'review', open('N-1', 'HIGH'), open('N-2', 'HIGH'), open('N-3', 'HIGH'))).view;
    expect(view.rounds[0]!.weightedNet).toBe(-3 * WEIGHT.HIGH);
    expect(view.machine.state).toBe('DIVERGENCE_WARNING');
  });
});

/** status.md's round table: the lines from its header row to the first line that is not a table row. */
function roundTableOf(status: string): string {
  const lines = status.split('\n');
  const start = lines.findIndex((line) => line.startsWith('| Round |'));
  const end = lines.findIndex((line, i) => i > start && !line.startsWith('|'));
  return lines.slice(start, end).join('\n');
}

describe('R25: the round table shows the kind', () => {
  it('with a round that was not work, a Kind column names each round kind', () => {
    const view = session().and(...round(1), ...kindRound(2, 'review')).view;
    const table = roundTableOf(renderStatus(view));
    expect(table.split('\n')[0]).toMatch(/^\| Round \| Kind \| Open Start \|/);
    expect(table).toMatch(/^\| 1 \| work \| /m);
    expect(table).toMatch(/^\| 2 \| review \| /m);
  });

  it('a session of work rounds only has no Kind column', () => {
    expect(roundTableOf(renderStatus(session().and(...round(1)).view))).not.toContain('Kind');
  });
});
