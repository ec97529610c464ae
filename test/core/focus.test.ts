import { describe, expect, it } from 'vitest';
import { renderRoundReport, renderStatus } from '../../src/render/index.js';
import { WEIGHT } from '../support.js';
import { decision, given, move, open, resolve, round, start, startRound } from './given.js';

/*
 * R26: besides prioritize critical, a prioritize decision may name any open
 * gaps as the focus. While it is set, a move of a gap outside it is recorded
 * but flagged in the round summary (a prioritize-critical focus flags
 * nothing, as before R26).
 */

const prioritize = (...gaps: string[]) => decision('prioritize', { gaps });
const made = (gaps: string[], outcome: object) => ({ type: 'decision.made' as const, data: { kind: 'prioritize' as const, gaps, outcome } });

/** No CRITICAL gap anywhere: "foundations first" had no form before R26. */
const session = () => given(start(), open('F-1', 'HIGH'), open('F-2', 'MEDIUM'), open('U-1', 'MEDIUM'), open('U-2', 'LOW'));
/** Round 1 resolves U-2: CONVERGING. */
const converging = () => session().and(...round(1, resolve('U-2')));

describe('R26: prioritize names any open gaps as the focus', () => {
  it('in CONVERGING it sets the focus and leaves the state as it was', () => {
    converging()
      .when(prioritize('F-1', 'F-2'))
      .then([made(['F-1', 'F-2'], { machine: { state: 'CONVERGING', flatCount: 0 }, steps: [] })]);
    expect(converging().and(prioritize('F-1', 'F-2')).view.focus).toEqual(['F-1', 'F-2']);
  });

  it('at a divergence warning with no CRITICAL open, it answers the warning: CONVERGING, flat_count reset', () => {
    const stalled = session().and(...round(1), ...round(2));
    expect(stalled.view.machine).toMatchObject({ state: 'DIVERGENCE_WARNING', flatCount: 2 });
    stalled.when(decision('prioritize_critical')).thenRefuses(/no CRITICAL gap is open/);
    stalled
      .when(prioritize('F-1'))
      .then([made(['F-1'], { machine: { state: 'CONVERGING', flatCount: 0 }, steps: [{ from: 'DIVERGENCE_WARNING', to: 'CONVERGING' }] })]);
  });

  it('must name the gaps (remedy name_gaps), each open, known and named once', () => {
    converging()
      .when(decision('prioritize'))
      .thenRefuses(/name the gaps to focus on/, 'name_gaps');
    converging()
      .when(prioritize('U-2'))
      .thenRefuses(/gap U-2 is RESOLVED; only open gaps can be the focus/);
    converging()
      .when(prioritize('NOPE'))
      .thenRefuses(/unknown gap NOPE/);
    converging()
      .when(prioritize('F-1', 'F-1'))
      .thenRefuses(/a gap is named twice/);
  });

  it('is made between rounds', () => {
    converging()
      .and(startRound(2))
      .when(prioritize('F-1'))
      .thenRefuses(/round 2 is open; decisions are made between rounds/, 'close_round');
  });

  it('a later focus replaces the earlier one', () => {
    expect(converging().and(prioritize('F-1'), prioritize('F-2')).view.focus).toEqual(['F-2']);
  });
});

describe('R26: a move outside the focus is recorded and flagged', () => {
  const focused = () => converging().and(prioritize('F-1', 'F-2'));

  it('a gap flagged, then renamed, is flagged by its id now', () => {
    const view = focused().and(...round(2, move('U-1', 'IN_PROGRESS'), { type: 'gap.renamed', data: { id: 'U-1', newId: 'U-9' } })).view;
    expect(view.rounds[1]!.outsideFocus).toEqual(['U-9']);
  });

  it('moves of gaps the focus does not name are recorded as any other, and flagged once each in the round', () => {
    const view = focused().and(...round(2, move('F-1', 'IN_PROGRESS'), move('U-1', 'IN_PROGRESS'), resolve('U-1'), resolve('F-2'))).view;
    const r2 = view.rounds[1]!;
    expect(r2.outsideFocus).toEqual(['U-1']);
    // Counted as usual: U-1 (MEDIUM) and F-2 (MEDIUM) resolved.
    expect(r2).toMatchObject({ resolved: 2, weightedResolved: 2 * WEIGHT.MEDIUM });
    expect(view.gaps.get('U-1')!.state).toBe('RESOLVED');
  });

  it('opening a gap is not a move: nothing is flagged', () => {
    expect(focused().and(...round(2, open('N-1', 'LOW'))).view.rounds[1]!.outsideFocus).toEqual([]);
  });

  it('a split of a gap outside the focus is flagged, as any move of it is; a split of a focused gap is not', () => {
    const split = (id: string, ...parts: string[]) => ({
      type: 'gap.split' as const,
      data: { id, into: parts.map((part) => ({ id: part, severity: 'LOW' as const })) },
    });
    expect(focused().and(...round(2, split('U-1', 'U-1a', 'U-1b'))).view.rounds[1]!.outsideFocus).toEqual(['U-1']);
    const inFocus = focused().and(...round(2, split('F-2', 'F-2a', 'F-2b'))).view;
    expect(inFocus.rounds[1]!.outsideFocus).toEqual([]);
    expect(inFocus.focus).toEqual(['F-1', 'F-2a', 'F-2b']);
  });

  it('with no focus set, nothing is flagged', () => {
    expect(converging().and(...round(2, move('U-1', 'IN_PROGRESS'))).view.rounds[1]!.outsideFocus).toEqual([]);
  });

  it('once every focused gap is closed, the focus is gone and later moves are not flagged', () => {
    const view = focused().and(...round(2, resolve('F-1'), resolve('F-2')), ...round(3, move('U-1', 'IN_PROGRESS'))).view;
    expect(view.focus).toEqual([]);
    expect(view.rounds[2]!.outsideFocus).toEqual([]);
  });

  it('a prioritize-critical focus flags nothing: it is shown as it always was, and old sessions read the same', () => {
    const warned = session().and(...round(1, open('C-1', 'CRITICAL')), decision('prioritize_critical'));
    expect(warned.view.focus).toEqual(['C-1']);
    expect(warned.and(...round(2, move('U-1', 'IN_PROGRESS'))).view.rounds[1]!.outsideFocus).toEqual([]);
  });

  it('a prioritize focus after a prioritize-critical one flags again', () => {
    const warned = session().and(...round(1, open('C-1', 'CRITICAL')), decision('prioritize_critical'), ...round(2, resolve('C-1')), prioritize('F-1'));
    expect(warned.and(...round(3, move('U-1', 'IN_PROGRESS'))).view.rounds[2]!.outsideFocus).toEqual(['U-1']);
  });

  it('the round report and status.md flag them, and status.md names the focus as prioritized gaps, not CRITICAL ones', () => {
    const view = focused().and(...round(2, move('U-1', 'IN_PROGRESS'), move('U-2', 'OPEN'))).view;
    expect(renderRoundReport(view, 2)).toContain('Outside the focus: U-1, U-2 moved though the focus did not name them');
    const status = renderStatus(view);
    expect(status).toContain('Moved outside the focus: U-1, U-2 (2 gaps the focus did not name).');
    expect(status).toContain('**Focus:** F-1, F-2 (prioritized gaps)');
  });
});
