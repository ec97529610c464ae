import { describe, expect, it } from 'vitest';
import type { BodyInputOf, RoundOutcome, Severity } from '../../events/index.js';
import type { SessionView } from '../../src/index.js';
import { encodeClosedIndex, headOf } from '../../src/core/index.js';
import { closeRound, decision, given, move, open, resolve, round, severity, start, startRound, type Given } from './given.js';

/*
 * The moves real sessions made (issue 15): a duplicate is withdrawn, not
 * resolved (R20); a split is a severity change spread over its parts (R21);
 * a rename keeps the gap and retires the old id (R22); an untriaged gap
 * weighs as MEDIUM until triaged (R23). Figures are worked out here from
 * the rulings' weights (CRITICAL 16, HIGH 4, MEDIUM 2, LOW 1, untriaged as
 * MEDIUM), never read back from the code under test.
 */

const W = { CRITICAL: 16, HIGH: 4, MEDIUM: 2, LOW: 1, UNTRIAGED: 2 } as const;

const duplicate = (id: string, of: string): BodyInputOf<'gap.moved'> => ({ type: 'gap.moved', data: { id, to: 'DUPLICATE', of } });
const split = (id: string, ...parts: [string, Severity][]): BodyInputOf<'gap.split'> => ({
  type: 'gap.split',
  data: { id, into: parts.map(([partId, sev]) => ({ id: partId, severity: sev })) },
});
const rename = (id: string, newId: string): BodyInputOf<'gap.renamed'> => ({ type: 'gap.renamed', data: { id, newId } });
const openAs = (id: string, sev: Severity, extra: { spawnedBy?: string; title?: string } = {}): BodyInputOf<'gap.opened'> => ({
  type: 'gap.opened',
  data: { id, severity: sev, ...extra },
});

/** The outcome the open round's close decides. */
function closing(played: Given, n: number): RoundOutcome {
  const [close] = played.when(closeRound(n)).decided() as unknown as { data: { outcome: RoundOutcome } }[];
  return close!.data.outcome;
}

/** R20's identity: Open End = Open Start - resolved + new - withdrawn (no deferral moved here). */
function expectOpenEndAddsUp(openStart: number, figures: RoundOutcome['figures']): void {
  expect(figures.openEnd).toBe(openStart - figures.resolved + figures.new - (figures.withdrawn ?? 0));
}

describe('R20: duplicates are withdrawn, not resolved', () => {
  const base = () => given(start(), open('G1', 'HIGH'), open('G2', 'HIGH'), open('G3', 'LOW'), startRound(1));

  it('a move to DUPLICATE naming the gap it duplicates is recorded as asked', () => {
    base()
      .when(duplicate('G2', 'G1'))
      .then([duplicate('G2', 'G1')]);
  });

  it('a move to DUPLICATE without the gap it duplicates is refused', () => {
    base()
      .when(move('G2', 'DUPLICATE'))
      .thenRefuses(/a move to DUPLICATE names the gap G2 duplicates/);
  });

  it('"of" goes only with a move to DUPLICATE, never names the gap itself, and names a known gap', () => {
    base()
      .when({ type: 'gap.moved', data: { id: 'G2', to: 'RESOLVED', of: 'G1' } })
      .thenRefuses(/of \(the gap duplicated\) goes only with a move to DUPLICATE/);
    base()
      .when(duplicate('G2', 'G2'))
      .thenRefuses(/gap G2 cannot duplicate itself/);
    base()
      .when(duplicate('G2', 'NOPE'))
      .thenRefuses(/duplicated gap NOPE is unknown/);
  });

  it('names a gap that lives on: not one withdrawn as a duplicate itself, nor one split into parts', () => {
    // Else two gaps could withdraw each other, and a real gap leave the open count never resolved.
    base()
      .and(duplicate('G2', 'G1'))
      .when(duplicate('G1', 'G2'))
      .thenRefuses(/gap G2 is itself a duplicate \(of G1\): name that gap/);
    base()
      .and(duplicate('G2', 'G1'))
      .when(duplicate('G3', 'G2'))
      .thenRefuses(/gap G2 is itself a duplicate \(of G1\)/);
    base()
      .and(split('G1', ['A', 'LOW'], ['B', 'LOW']))
      .when(duplicate('G3', 'G1'))
      .thenRefuses(/gap G1 was split \(into A, B\): name the part G3 duplicates/);
    base()
      .and(split('G1', ['A', 'LOW'], ['B', 'LOW']))
      .when(duplicate('G3', 'A'))
      .then([duplicate('G3', 'A')]);
  });

  it('a closed gap is not withdrawn (it was already counted); a duplicate may be reopened', () => {
    base()
      .and(resolve('G2'))
      .when(duplicate('G2', 'G1'))
      .thenRefuses(/gap G2 is RESOLVED; moves allowed from RESOLVED: OPEN, NEEDS_REVISION, WONT_FIX$/);
    base()
      .and(duplicate('G2', 'G1'))
      .when(move('G2', 'OPEN'))
      .then([move('G2', 'OPEN')]);
  });

  it('a withdrawn gap leaves the open count but counts as neither resolved nor new, and the open counts still add up', () => {
    const played = base().and(duplicate('G2', 'G1'), resolve('G3'));
    const figures = closing(played, 1).figures;
    expect(figures).toMatchObject({ resolved: 1, new: 0, withdrawn: 1, weightedResolved: W.LOW, weightedNew: 0, weightedWithdrawn: W.HIGH });
    const openStart = 3;
    expectOpenEndAddsUp(openStart, figures);
    expect(figures.weightedOpenEnd).toBe(W.HIGH * 2 + W.LOW - W.LOW - W.HIGH);
  });

  it('finding that two gaps were one is not progress: a round that only withdraws a duplicate is flat', () => {
    const outcome = closing(base().and(duplicate('G2', 'G1')), 1);
    expect(outcome.machine).toMatchObject({ state: 'FLAT', flatCount: 1 });
  });

  it('the view keeps what the gap duplicates, and the round keeps the withdrawal apart from resolved', () => {
    const { view } = base().and(duplicate('G2', 'G1'), closeRound(1));
    expect(view.gaps.get('G2')).toMatchObject({ state: 'DUPLICATE', duplicateOf: 'G1' });
    expect(view.rounds[0]).toMatchObject({ withdrawn: 1, weightedWithdrawn: W.HIGH, resolved: 0, withdrawnGaps: [{ id: 'G2', of: 'G1' }] });
    expect(view.open.count).toBe(2);
  });

  it('reopening a duplicate counts as new, as any reopen does (R6)', () => {
    const played = base().and(duplicate('G2', 'G1'), closeRound(1), move('G2', 'OPEN'));
    expect(played.view.rounds[1]).toMatchObject({ new: 1, weightedNew: W.HIGH });
    expect(played.view.gaps.get('G2')?.duplicateOf).toBeUndefined();
  });

  it('a duplicate reopened in the same round takes its withdrawal back: neither withdrawn nor new, and the open counts still add up', () => {
    const played = base().and(duplicate('G2', 'G1'), move('G2', 'OPEN'), resolve('G3'));
    expect(played.view.rounds[0]).toMatchObject({ withdrawn: 0, weightedWithdrawn: 0, withdrawnGaps: [], new: 0, newGaps: [] });
    const figures = closing(played, 1).figures;
    expect(figures).toMatchObject({ resolved: 1, new: 0, weightedResolved: W.LOW, weightedNew: 0 });
    expect('withdrawn' in figures).toBe(false);
    expectOpenEndAddsUp(3, figures);
  });

  it('a CRITICAL duplicate reopened in the same round is no CRITICAL introduction: the override does not fire', () => {
    const played = given(
      start(),
      open('C1', 'CRITICAL'),
      open('C2', 'CRITICAL'),
      open('G3', 'LOW'),
      startRound(1),
      duplicate('C2', 'C1'),
      move('C2', 'NEEDS_REVISION'),
      resolve('G3'),
    );
    const outcome = closing(played, 1);
    expect(outcome.figures).toMatchObject({ new: 0, weightedNew: 0, weightedResolved: W.LOW, criticalIntroduced: [] });
    expect(outcome.machine.state).toBe('CONVERGING');
  });

  it('a duplicate reopened after a move between closed states in the same round still takes its withdrawal back', () => {
    const played = base().and(duplicate('G2', 'G1'), move('G2', 'WONT_FIX'), move('G2', 'OPEN'));
    expect(played.view.rounds[0]).toMatchObject({ withdrawn: 0, new: 0, resolved: 0 });
  });

  it('withdrawn, reopened and withdrawn again in one round: withdrawn once', () => {
    const played = base().and(duplicate('G2', 'G1'), move('G2', 'OPEN'), duplicate('G2', 'G1'));
    expect(played.view.rounds[0]).toMatchObject({ withdrawn: 1, weightedWithdrawn: W.HIGH, new: 0, withdrawnGaps: [{ id: 'G2', of: 'G1' }] });
  });

  it('a deferred CRITICAL withdrawn and reopened in the same round comes back to the work as CRITICAL (R29), as without the detour', () => {
    const played = given(
      start(),
      open('C1', 'CRITICAL'),
      open('C2', 'CRITICAL'),
      open('G3', 'LOW'),
      move('C2', 'USER_DEFERRED'),
      startRound(1),
      duplicate('C2', 'C1'),
      move('C2', 'OPEN'),
    );
    const outcome = closing(played, 1);
    expect(outcome.figures).toMatchObject({ new: 0, criticalIntroduced: ['C2'] });
    expect(outcome.machine.state).toBe('DIVERGENCE_WARNING');
  });

  it('a CRITICAL duplicate reopened in a later round is new there, and a CRITICAL introduction (R5: reopened as CRITICAL)', () => {
    const played = given(start(), open('C1', 'CRITICAL'), open('C2', 'CRITICAL'), open('G3', 'LOW'), ...round(1, duplicate('C2', 'C1')), move('C2', 'OPEN'));
    const outcome = closing(played, 2);
    expect(outcome.figures).toMatchObject({ new: 1, weightedNew: W.CRITICAL, criticalIntroduced: ['C2'] });
    expect(outcome.machine.state).toBe('DIVERGENCE_WARNING');
  });

  it('a round close with no duplicate records no withdrawn figures (its line reads as version 4 wrote it)', () => {
    const figures = closing(base().and(resolve('G3')), 1).figures;
    expect('withdrawn' in figures).toBe(false);
  });
});

describe('R21: a split is a severity change spread over its parts', () => {
  const base = () => given(start(), openAs('G1', 'HIGH', { title: 'Parser' }), open('G2', 'LOW'), startRound(1));

  it('one event closes the parent as SPLIT and opens its parts', () => {
    const played = base().and(split('G1', ['G1.1', 'HIGH'], ['G1.2', 'MEDIUM']));
    expect(played.log.at(-1)!.type).toBe('gap.split');
    const { gaps } = played.view;
    expect(gaps.get('G1')).toMatchObject({ state: 'SPLIT', splitInto: ['G1.1', 'G1.2'] });
    expect(gaps.get('G1.1')).toMatchObject({ state: 'OPEN', severity: 'HIGH', title: 'Parser', splitFrom: 'G1', openedInRound: 1 });
    expect(gaps.get('G1.2')).toMatchObject({ state: 'OPEN', severity: 'MEDIUM', splitFrom: 'G1' });
  });

  it('unweighted: parts beyond the first are new; weighted: parts weighing more add the difference to weighted new', () => {
    const figures = closing(base().and(split('G1', ['A', 'HIGH'], ['B', 'MEDIUM'], ['C', 'LOW'])), 1).figures;
    expect(figures).toMatchObject({ new: 2, resolved: 0, weightedNew: W.HIGH + W.MEDIUM + W.LOW - W.HIGH, weightedResolved: 0 });
    expectOpenEndAddsUp(2, figures);
    expect(figures.weightedOpenEnd).toBe(W.LOW + W.HIGH + W.MEDIUM + W.LOW);
  });

  it('parts weighing less than the parent add the difference to weighted resolved', () => {
    const figures = closing(base().and(split('G1', ['A', 'LOW'], ['B', 'LOW'])), 1).figures;
    expect(figures).toMatchObject({ new: 1, resolved: 0, weightedNew: 0, weightedResolved: W.HIGH - 2 * W.LOW });
  });

  /** Each severity row's weighted net (weighted resolved - weighted new), as status.md's Severity Breakdown shows it. */
  const rowNets = (view: SessionView) =>
    Object.fromEntries(Object.entries(view.rounds[0]!.bySeverity).map(([s, f]) => [s, f.weightedResolved - f.weightedNew]));

  it("the severity rows: the parent's weight leaves its row, each part's joins its own, and the rows add up to the round", () => {
    const { view } = base().and(split('G1', ['A', 'HIGH'], ['B', 'MEDIUM'], ['C', 'LOW']));
    // HIGH: the parent (4) leaves, part A (4) joins; MEDIUM and LOW each gain a part.
    expect(rowNets(view)).toEqual({ CRITICAL: 0, HIGH: W.HIGH - W.HIGH, MEDIUM: -W.MEDIUM, LOW: -W.LOW, UNTRIAGED: 0 });
    expect(view.rounds[0]!.bySeverity).toMatchObject({ HIGH: { new: 0 }, MEDIUM: { new: 1 }, LOW: { new: 1 } });
    const round1 = view.rounds[0]!;
    expect(Object.values(rowNets(view)).reduce((a, b) => a + b, 0)).toBe(round1.weightedResolved - round1.weightedNew);
  });

  it("the severity rows of a split into lighter parts: the parent's row gains what it lost, the parts' row what they weigh", () => {
    const { view } = base().and(split('G1', ['A', 'LOW'], ['B', 'LOW']));
    expect(rowNets(view)).toEqual({ CRITICAL: 0, HIGH: W.HIGH, MEDIUM: 0, LOW: -2 * W.LOW, UNTRIAGED: 0 });
    expect(view.rounds[0]!.bySeverity.HIGH).toMatchObject({ resolved: 0, weightedResolved: W.HIGH, weightedNew: 0 });
  });

  it('a CRITICAL part of a gap that was not CRITICAL is a CRITICAL introduction (R5 then warns)', () => {
    const outcome = closing(base().and(split('G1', ['A', 'CRITICAL'], ['B', 'LOW'])), 1);
    expect(outcome.figures.criticalIntroduced).toEqual(['A']);
    expect(outcome.machine.state).toBe('DIVERGENCE_WARNING');
  });

  it('a CRITICAL part of a CRITICAL gap is no introduction', () => {
    const played = given(start(), open('C', 'CRITICAL'), open('G2', 'LOW'), startRound(1), split('C', ['C1', 'CRITICAL'], ['C2', 'LOW']));
    const figures = closing(played, 1).figures;
    expect(figures.criticalIntroduced).toEqual([]);
    expect(figures).toMatchObject({ new: 1, weightedNew: W.LOW });
  });

  it('a split between rounds starts the next round, as any gap event does (R8)', () => {
    given(start(), open('G1', 'HIGH'), open('G2', 'LOW'), ...round(1, resolve('G2')))
      .when(split('G1', ['A', 'HIGH'], ['B', 'LOW']))
      .then([{ type: 'round.started', data: { round: 2 } }, split('G1', ['A', 'HIGH'], ['B', 'LOW'])]);
  });

  it('refuses a closed or deferred parent, an unknown one, a part id taken or named twice, and one part alone', () => {
    base()
      .and(resolve('G1'))
      .when(split('G1', ['A', 'LOW'], ['B', 'LOW']))
      .thenRefuses(/gap G1 is RESOLVED; reopen it before splitting it/);
    base()
      .and(move('G1', 'USER_DEFERRED'))
      .when(split('G1', ['A', 'LOW'], ['B', 'LOW']))
      .thenRefuses(/gap G1 is USER_DEFERRED; move it back to OPEN/);
    base()
      .when(split('NOPE', ['A', 'LOW'], ['B', 'LOW']))
      .thenRefuses(/unknown gap NOPE/);
    base()
      .when(split('G1', ['G2', 'LOW'], ['B', 'LOW']))
      .thenRefuses(/gap G2 already exists \(LOW, OPEN\)/);
    base()
      .when(split('G1', ['A', 'LOW'], ['A', 'HIGH']))
      .thenRefuses(/part A is named twice/);
    base()
      .when(split('G1', ['G1', 'LOW'], ['B', 'LOW']))
      .thenRefuses(/a part of gap G1 needs an id of its own/);
    base()
      .when(split('G1', ['A', 'LOW']))
      .thenRefuses(/data\.into: .*at least 2 items/);
  });

  it('a SPLIT gap lives on in its parts: it is never moved, and no move makes one', () => {
    base()
      .and(split('G1', ['A', 'LOW'], ['B', 'LOW']))
      .when(move('G1', 'OPEN'))
      .thenRefuses(/gap G1 is SPLIT; it lives on in its parts \(A, B\)/);
    base()
      .when(move('G1', 'SPLIT'))
      .thenRefuses(/split it into its parts with gap split/);
  });

  it('a prioritized gap that is split leaves its parts in the focus', () => {
    const played = given(
      start(),
      open('C', 'CRITICAL'),
      open('G2', 'LOW'),
      ...round(1, open('C2', 'CRITICAL')),
      decision('prioritize_critical', { gaps: ['C'] }),
      split('C', ['Ca', 'CRITICAL'], ['Cb', 'HIGH']),
    );
    expect(played.view.focus).toEqual(['Ca', 'Cb']);
  });
});

describe('R22: ids are unique; a rename keeps the gap', () => {
  const base = () =>
    given(
      start(),
      open('G1', 'HIGH'),
      open('G2', 'LOW'),
      openAs('G3', 'MEDIUM', { spawnedBy: 'G1' }),
      ...round(1, move('G2', 'IN_PROGRESS'), move('G2', 'BLOCKED', { blockedBy: 'G1' })),
    );

  it('a rename between rounds is recorded alone: it counts nothing, so it starts no round', () => {
    base()
      .when(rename('G1', 'PARSER-1'))
      .then([rename('G1', 'PARSER-1')]);
  });

  it('a rename is allowed while a decision is due (it changes only a name)', () => {
    given(start(), open('G1', 'HIGH'), open('G2', 'LOW'), ...round(1, open('C1', 'CRITICAL')))
      .when(rename('C1', 'SCHEMA-1'))
      .then([rename('C1', 'SCHEMA-1')]);
  });

  it('the id changes everywhere: the inventory, spawned-by and blocked-by links, the rounds and the focus', () => {
    const { view } = base().and(rename('G1', 'PARSER-1'));
    expect(view.gaps.has('G1')).toBe(false);
    expect(view.gaps.get('PARSER-1')).toMatchObject({ id: 'PARSER-1', severity: 'HIGH', state: 'OPEN' });
    expect(view.gaps.get('G3')?.spawnedBy).toBe('PARSER-1');
    expect(view.gaps.get('G2')?.blockedBy).toBe('PARSER-1');
    expect([...view.gaps.keys()]).toEqual(['PARSER-1', 'G2', 'G3']);
  });

  it("the words the view keeps name the gap by its id now: a decision's effect and history reason, a round's verdicts and history reason", () => {
    const warned = given(
      start(),
      open('G1', 'HIGH'),
      ...round(1, open('C1', 'CRITICAL'), open('C10', 'CRITICAL')),
      decision('prioritize_critical', { gaps: ['C1'], rationale: 'C1 first' }),
    );
    const { view } = warned.and(rename('C1', 'SCHEMA-1'));
    const words = JSON.stringify({ decisions: view.decisions, history: view.history, verdicts: view.rounds[0]!.verdicts, combined: view.rounds[0]!.combined });
    // Only the user's own rationale (kept in the decision and closing its history reason) still says C1; C10, another gap, is untouched.
    expect(words.match(/\bC1\b/g)).toEqual(['C1', 'C1']);
    expect(view.decisions[0]!.effect).toBe('user prioritized CRITICAL: focus on SCHEMA-1; flat_count reset to 0');
    expect(view.history.map((h) => h.reason)).toEqual([
      'weighted_net = -32, triggered by CRITICAL introduction (SCHEMA-1, C10)',
      'user prioritized CRITICAL: focus on SCHEMA-1; flat_count reset to 0; rationale: C1 first',
    ]);
    expect(view.rounds[0]!.verdicts[0]).toMatchObject({ detail: 'CRITICAL introduced (SCHEMA-1, C10)', figures: { criticalIntroduced: 'SCHEMA-1, C10' } });
    expect(view.rounds[0]!.combined?.detail).toContain('(SCHEMA-1, C10)');
  });

  it('a rename counts nothing: the open counts and the open round figures are as they were', () => {
    const before = base().and(startRound(2), resolve('G3'));
    const after = before.and(rename('G1', 'PARSER-1'));
    const figuresOf = (view: SessionView) => {
      const { resolved, new: added, weightedResolved, weightedNew, withdrawn } = view.rounds.at(-1)!;
      return { resolved, added, weightedResolved, weightedNew, withdrawn, open: view.open };
    };
    expect(figuresOf(after.view)).toEqual(figuresOf(before.view));
  });

  it('an id renamed away is never used again: not opened, not a rename target, and moving it names the new id', () => {
    const renamed = base().and(rename('G1', 'PARSER-1'));
    renamed.when(open('G1', 'LOW')).thenRefuses(/id G1 was used before \(that gap is PARSER-1 now\); ids are never reused/);
    renamed.when(rename('G2', 'G1')).thenRefuses(/id G1 was used before/);
    renamed.when(resolve('G1')).thenRefuses(/gap G1 was renamed to PARSER-1; name it by its id now/);
  });

  it('a chain of renames retires every id on the way, each pointing at the id now', () => {
    const renamed = base().and(rename('G1', 'P1'), rename('P1', 'P2'));
    renamed.when(open('G1', 'LOW')).thenRefuses(/that gap is P2 now/);
    renamed.when(open('P1', 'LOW')).thenRefuses(/that gap is P2 now/);
  });

  it('a rename to an id taken, to itself, or of an unknown gap is refused', () => {
    base()
      .when(rename('G1', 'G2'))
      .thenRefuses(/gap G2 already exists \(LOW, BLOCKED\)/);
    base()
      .when(rename('G1', 'G1'))
      .thenRefuses(/gap G1 already has that id/);
    base()
      .when(rename('NOPE', 'X'))
      .thenRefuses(/unknown gap NOPE/);
  });
});

describe('R23: untriaged gaps', () => {
  it('an untriaged gap weighs as MEDIUM in the open count and in the round it is opened in', () => {
    const played = given(start(), open('G1', 'HIGH'), startRound(1), openAs('U1', 'UNTRIAGED'));
    expect(played.view.open.weighted).toBe(W.HIGH + W.MEDIUM);
    expect(played.view.rounds[0]).toMatchObject({ new: 1, weightedNew: W.MEDIUM });
  });

  it.each([
    ['HIGH', W.HIGH - W.MEDIUM, 0],
    ['LOW', 0, W.MEDIUM - W.LOW],
    ['MEDIUM', 0, 0],
  ] as const)('triage to %s is a severity change counted from weight 2 (R7)', (to, weightedNew, weightedResolved) => {
    const figures = closing(given(start(), open('G1', 'HIGH'), openAs('U1', 'UNTRIAGED'), startRound(1), severity('U1', to)), 1).figures;
    expect(figures).toMatchObject({ new: 0, resolved: 0, weightedNew, weightedResolved });
  });

  it('triage to CRITICAL is a CRITICAL escalation (R5)', () => {
    const outcome = closing(given(start(), open('G1', 'HIGH'), openAs('U1', 'UNTRIAGED'), startRound(1), severity('U1', 'CRITICAL')), 1);
    expect(outcome.figures.criticalIntroduced).toEqual(['U1']);
  });

  it('a severity once known is never untriaged again', () => {
    given(start(), open('G1', 'HIGH'))
      .when({ type: 'gap.severity_changed', data: { id: 'G1', to: 'UNTRIAGED' } })
      .thenRefuses(/gap G1 is HIGH; a gap is untriaged only until its severity is known/);
  });
});

describe("the head and the closed gaps' index treat DUPLICATE and SPLIT as closed", () => {
  it('the index lists a duplicate and a split parent; the head keeps only the gaps still open, the parts among them', () => {
    const { view } = given(
      start(),
      open('G1', 'HIGH'),
      open('G2', 'HIGH'),
      open('G3', 'LOW'),
      startRound(1),
      duplicate('G2', 'G1'),
      split('G1', ['A', 'HIGH'], ['B', 'LOW']),
    );
    expect(encodeClosedIndex(view).toString('utf8').split('\n').slice(1).filter(Boolean).sort()).toEqual(['G1 Hs', 'G2 Hu']); // HIGH SPLIT, HIGH DUPLICATE
    expect([...headOf(view).gaps.keys()].sort()).toEqual(['A', 'B', 'G3']);
  });
});
