import { describe, expect, it } from 'vitest';
import type { BodyInputOf, Decided, Severity } from '../../events/index.js';
import { claimedGaps, loopStep } from '../../src/core/index.js';
import { closeRound, given, move, open, resolve, round, start, startRound } from './given.js';

/*
 * A source's snapshot reconciled with the gaps it opened (docs/sync.md):
 * given a history, when a snapshot comes, then `decide` records what changed.
 * A finding is [id, severity?]; the expected events are written out here
 * from the rule, never taken from the code.
 */

type Found = string | [id: string, severity: Severity];

function sync(source: string, found: readonly Found[], close?: boolean): BodyInputOf<'findings.synced'> {
  const findings = found.map((f) =>
    typeof f === 'string' ? { id: f, severity: 'MEDIUM' as const, title: `finding ${f}` } : { id: f[0], severity: f[1], title: `finding ${f[0]}` },
  );
  return { type: 'findings.synced', data: { source, format: 'sarif', findings, ...(close === undefined ? {} : { close }) } };
}

const opened = (id: string, source: string, severity: Severity = 'MEDIUM'): Decided => ({
  type: 'gap.opened',
  data: { id, severity, title: `finding ${id}`, blocking: true, source },
});
const gone = (id: string, source: string): Decided => ({
  type: 'gap.moved',
  data: { id, to: 'RESOLVED', reason: `gone from ${source}'s snapshot`, by: source },
});
const back = (id: string, source: string): Decided => ({ type: 'gap.moved', data: { id, to: 'OPEN', reason: `reported again by ${source}`, by: source } });
const claimBack = (id: string, source: string, state = 'RESOLVED'): Decided => ({
  type: 'gap.moved',
  data: { id, to: 'OPEN', reason: `claimed ${state}, but ${source} still reports it`, by: source },
});
const figures = (source: string, f: { reported: number; opened?: number; resolved?: number; reopened?: number; claimed?: number }): Decided => ({
  type: 'findings.synced',
  data: { source, format: 'sarif', reported: f.reported, opened: f.opened ?? 0, resolved: f.resolved ?? 0, reopened: f.reopened ?? 0, claimed: f.claimed ?? 0 },
});

const baseline = () => given(start({ stallThreshold: 10 }), sync('eslint', ['A', 'B']));

describe('sync: a snapshot before round 1 is the baseline', () => {
  it('given a new session, when a snapshot reports two findings, then both open as the source gaps, with no round started', () => {
    const decided = given(start())
      .when(sync('eslint', ['A', ['B', 'HIGH']]))
      .decided();
    expect(decided).toEqual([figures('eslint', { reported: 2, opened: 2 }), opened('A', 'eslint'), opened('B', 'eslint', 'HIGH')]);
  });

  it('given a baseline, when the same snapshot comes again, then nothing is recorded', () => {
    expect(
      baseline()
        .when(sync('eslint', ['B', 'A']))
        .decided(),
    ).toEqual([]);
  });
});

describe('sync: after round 1 a snapshot belongs to the open round', () => {
  const afterRound1 = () => baseline().and(...round(1));

  it('given a closed round 1, when a finding is fixed and a new one appears, then round 2 starts with the new gap opened and the fixed one resolved', () => {
    const decided = afterRound1()
      .when(sync('eslint', ['A', 'C']))
      .decided();
    expect(decided).toEqual([
      { type: 'round.started', data: { round: 2 } },
      figures('eslint', { reported: 2, opened: 1, resolved: 1 }),
      opened('C', 'eslint'),
      gone('B', 'eslint'),
    ]);
  });

  it('given round 2 open, when a snapshot comes, then no round starts', () => {
    const decided = afterRound1()
      .and(startRound(2))
      .when(sync('eslint', ['A']))
      .decided();
    expect(decided).toEqual([figures('eslint', { reported: 1, resolved: 1 }), gone('B', 'eslint')]);
  });

  it('given a finding resolved by an earlier snapshot, when it comes back, then the same gap reopens (never a second gap) and it is no claim', () => {
    const history = afterRound1().and(sync('eslint', ['A']), closeRound(2));
    const decided = history.when(sync('eslint', ['A', 'B'])).decided();
    expect(decided).toEqual([{ type: 'round.started', data: { round: 3 } }, figures('eslint', { reported: 2, reopened: 1 }), back('B', 'eslint')]);
  });

  it('with close, then the round closes after the snapshot, judged on the view it leaves', () => {
    const decided = afterRound1()
      .when(sync('eslint', ['A'], true))
      .decided();
    expect(decided.map((event) => event.type)).toEqual(['round.started', 'findings.synced', 'gap.moved', 'round.closed']);
    const close = decided.at(-1)!;
    if (close.type !== 'round.closed') throw new Error('expected a round close');
    expect(close.data.round).toBe(2);
    expect(close.data.outcome.figures).toMatchObject({ resolved: 1, new: 0, openEnd: 1 });
  });

  it('with close and nothing changed, then the round still starts and closes (a flat round is a fact), with the snapshot recorded', () => {
    const decided = afterRound1()
      .when(sync('eslint', ['A', 'B'], true))
      .decided();
    expect(decided.map((event) => event.type)).toEqual(['round.started', 'findings.synced', 'round.closed']);
    expect(decided[1]).toEqual(figures('eslint', { reported: 2 }));
  });

  it("with close, a source's first snapshot before round 1 is the baseline, and round 1 starts for the next close to close", () => {
    const decided = given(start())
      .when(sync('eslint', ['A'], true))
      .decided();
    expect(decided).toEqual([figures('eslint', { reported: 1, opened: 1 }), opened('A', 'eslint'), { type: 'round.started', data: { round: 1 } }]);
  });

  it('with close before round 1, after the source already has its baseline, then round 1 starts and closes', () => {
    const decided = baseline()
      .when(sync('eslint', ['A'], true))
      .decided();
    expect(decided.map((event) => event.type)).toEqual(['round.started', 'findings.synced', 'gap.moved', 'round.closed']);
  });
});

describe('sync: what a person decided stands', () => {
  for (const [state, extra] of [
    ['WONT_FIX', {}],
    ['USER_DEFERRED', {}],
    ['DUPLICATE', { of: 'A' }],
  ] as const) {
    it(`given a gap the user set to ${state}, when the snapshot still reports it or drops it, then it keeps ${state}`, () => {
      const history = baseline().and(...round(1, move('B', state, extra)));
      expect(history.when(sync('eslint', ['A', 'B'])).decided()).toEqual([]);
      // Dropped: only a gap still being worked on is resolved by its absence.
      expect(history.when(sync('eslint', ['A'])).decided()).toEqual([]);
    });
  }

  it('given a gap resolved by hand, when the next snapshot still reports it, then it reopens as a claim, named in the round verdict and next', () => {
    const history = baseline().and(...round(1, resolve('B')));
    const decided = history.when(sync('eslint', ['A', 'B'])).decided();
    expect(decided).toEqual([
      { type: 'round.started', data: { round: 2 } },
      figures('eslint', { reported: 2, reopened: 1, claimed: 1 }),
      claimBack('B', 'eslint'),
    ]);
    const after = history.and(sync('eslint', ['A', 'B']));
    expect(claimedGaps(after.view)).toEqual(['B']);
    const step = loopStep(after.view);
    expect(step.claimedStillReported).toEqual(['B']);
    expect(step.reason).toContain('claimed but still reported: B');
    const close = after.when(closeRound(2)).decided()[0]!;
    if (close.type !== 'round.closed') throw new Error('expected a round close');
    expect(close.data.outcome.combined.detail).toContain('claimed but still reported: B');
  });

  it('given a proposal accepted by hand, when the snapshot still reports it, then it reopens as a claim', () => {
    const history = baseline().and(...round(1, move('B', 'IN_PROGRESS'), move('B', 'PROPOSED'), move('B', 'ACCEPTED')));
    expect(
      history
        .when(sync('eslint', ['A', 'B']))
        .decided()
        .at(-1),
    ).toEqual(claimBack('B', 'eslint', 'ACCEPTED'));
  });

  it('given a claim reopened, when a later snapshot changes other findings, then the claim still stands', () => {
    const history = baseline().and(...round(1, resolve('B')), sync('eslint', ['A', 'B']), sync('eslint', ['B']));
    expect(history.view.gaps.get('A')?.state).toBe('RESOLVED');
    expect(claimedGaps(history.view)).toEqual(['B']);
  });

  it('given a claim reopened, when the gap is renamed, then the claim names it by its new id', () => {
    const history = baseline().and(...round(1, resolve('B')), sync('eslint', ['A', 'B']), { type: 'gap.renamed', data: { id: 'B', newId: 'B2' } });
    expect(claimedGaps(history.view)).toEqual(['B2']);
    expect(history.view.sources[0]?.claimed).toEqual(['B2']);
  });

  it('given a claim reopened, when the gap is resolved again, then it is no longer named', () => {
    const history = baseline().and(...round(1, resolve('B')), sync('eslint', ['A', 'B']), resolve('B'));
    expect(claimedGaps(history.view)).toEqual([]);
  });
});

describe('sync: a gap renamed by hand is still its finding', () => {
  it('given a source gap renamed, when the snapshot still reports its finding, then nothing moves; when it drops it, the renamed gap resolves', () => {
    const history = baseline().and(...round(1), { type: 'gap.renamed', data: { id: 'B', newId: 'PARSER-1' } });
    expect(history.when(sync('eslint', ['A', 'B'])).decided()).toEqual([]);
    expect(history.when(sync('eslint', ['A'])).decided()).toEqual([
      { type: 'round.started', data: { round: 2 } },
      figures('eslint', { reported: 1, resolved: 1 }),
      gone('PARSER-1', 'eslint'),
    ]);
  });
});

describe('sync: sources never touch each other', () => {
  it('given gaps of two sources and one opened by hand, when one source reports nothing, then only its own gaps resolve', () => {
    const history = given(start(), sync('eslint', ['A']), sync('junit', ['T']), open('H', 'LOW'));
    expect(history.when(sync('eslint', [])).decided()).toEqual([figures('eslint', { reported: 0, resolved: 1 }), gone('A', 'eslint')]);
    expect(history.when(sync('junit', [])).decided()).toEqual([figures('junit', { reported: 0, resolved: 1 }), gone('T', 'junit')]);
  });

  it("given another source's gap, when a snapshot reports its id, then it is refused naming the owner", () => {
    given(start(), sync('eslint', ['A']))
      .when(sync('junit', ['A']))
      .thenRefuses(/^findings\.synced junit: gap A belongs to source eslint; a snapshot moves only its own source's gaps$/);
  });

  it('given a gap opened by hand, when a snapshot reports its id, then it is refused', () => {
    given(start(), open('A', 'LOW'))
      .when(sync('eslint', ['A']))
      .thenRefuses(/gap A was opened by hand/);
  });

  it('given a snapshot naming one finding twice, then it is refused', () => {
    given(start())
      .when(sync('eslint', ['A', 'A']))
      .thenRefuses(/finding A is reported twice/);
  });

  it('given a paused session, then a snapshot is refused as any gap event is', () => {
    baseline()
      .and(...round(1), { type: 'decision.made', data: { kind: 'pause' } })
      .when(sync('eslint', ['A']))
      .thenRefuses(/PAUSED/, 'resume');
  });
});
