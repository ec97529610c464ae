import { describe, expect, it } from 'vitest';
import { renderDecisions } from '../../src/render/index.js';
import { closeRound, decision, given, open, round, start, startRound } from './given.js';

/*
 * R27: every user decision appears in decisions.md (a worked example):
 * the round, the decision, the gaps it named, the acknowledgment or
 * rationale, and its effect.
 */

/** The table's rows, each as its cells. */
function rows(text: string): string[][] {
  return text
    .split('\n')
    .filter((line) => /^\| \d+ \|/.test(line))
    .map((line) => line.slice(2, -2).split(' | '));
}

describe('R27: decisions.md', () => {
  it('with no decision yet, it says so', () => {
    expect(renderDecisions(given(start(), open('G-1', 'LOW')).view)).toBe('# gapflow decisions\n\n_No decision has been made yet._\n');
  });

  it('worked example: narrow scope after the warning round names the deferred gaps and what it did', () => {
    const view = given(
      start(),
      open('GAP-FLOW-003', 'HIGH'),
      ...round(
        1,
        open('GAP-FLOW-020', 'CRITICAL'),
        open('GAP-COMM-010', 'MEDIUM', { spawnedBy: 'GAP-FLOW-003' }),
        open('GAP-COMM-011', 'MEDIUM', { spawnedBy: 'GAP-FLOW-003' }),
      ),
      decision('narrow_scope', { gaps: ['GAP-COMM-010', 'GAP-COMM-011'] }),
    ).view;
    expect(rows(renderDecisions(view))).toEqual([
      [
        '1',
        'after round 1',
        'narrow scope',
        'GAP-COMM-010, GAP-COMM-011',
        '-',
        'user narrowed scope: deferred GAP-COMM-010, GAP-COMM-011; flat_count reset to 0',
      ],
    ]);
  });

  it('every decision in order: when, the gaps, the acknowledgment and rationale, the effect', () => {
    const view = given(
      start({ maxRounds: 4, stallThreshold: 3 }),
      open('C-1', 'CRITICAL'),
      open('M-1', 'MEDIUM'),
      decision('extend_rounds', { rounds: 2 }),
      ...round(1),
      decision('prioritize', { gaps: ['M-1'], rationale: 'foundations first' }),
      startRound(2),
      decision('pause'),
      decision('resume'),
      closeRound(2),
      decision('approve', { acknowledgment: 'critical_risk' }),
    ).view;
    expect(view.machine.state).toBe('COMPLETE');
    expect(rows(renderDecisions(view))).toEqual([
      ['1', 'before round 1', 'extend rounds +2', '-', '-', `user extended the round limit by 2 rounds; max_rounds now ${4 + 2}`],
      ['2', 'after round 1', 'prioritize', 'M-1', 'rationale: foundations first', 'user prioritized: focus on M-1'],
      ['3', 'during round 2', 'pause', '-', '-', 'user paused the session'],
      ['4', 'during round 2', 'resume', '-', '-', 'user resumed the session'],
      ['5', 'after round 2', 'approve', 'C-1', 'CRITICAL risk acknowledged', 'user approved: USER_APPROVED over C-1; CRITICAL risk acknowledged'],
    ]);
  });

  it('after a rename, the Gaps and Effect columns name the gap by its id now (R22: the id changes everywhere)', () => {
    const view = given(
      start(),
      open('G-1', 'HIGH'),
      ...round(1, open('C-1', 'CRITICAL'), open('C-10', 'CRITICAL')),
      decision('prioritize_critical', { gaps: ['C-1', 'C-10'] }),
      { type: 'gap.renamed', data: { id: 'C-1', newId: 'SCHEMA-1' } },
    ).view;
    expect(rows(renderDecisions(view))).toEqual([
      ['1', 'after round 1', 'prioritize critical', 'SCHEMA-1, C-10', '-', 'user prioritized CRITICAL: focus on SCHEMA-1, C-10; flat_count reset to 0'],
    ]);
  });

  it('text a user gave is escaped, so it cannot break the table', () => {
    const view = given(start(), open('M-1', 'MEDIUM'), ...round(1), decision('prioritize', { gaps: ['M-1'], rationale: 'a | b <i>' })).view;
    expect(rows(renderDecisions(view))[0]![4]).toBe('rationale: a \\| b &lt;i&gt;');
  });
});
