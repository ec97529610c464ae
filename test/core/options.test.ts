import { describe, expect, it } from 'vitest';
import { decide } from '../../src/core/index.js';
import { parseBody } from '../../src/session/index.js';
import { decisionOptions, listedGaps, type DecisionOption } from '../../src/core/index.js';
import { decision, given, move, open, resolve, round, start, startRound, metrics } from './given.js';

/*
 * The user's options in DIVERGENCE_WARNING, as data (issue 14): which
 * decisions, the gaps each names, the one recommended (R28), and a
 * request that `decide` takes as it is.
 */

const kinds = (options: DecisionOption[]) => options.map((o) => o.kind);
const recommended = (options: DecisionOption[]) => options.filter((o) => o.recommended !== null).map((o) => [o.kind, o.recommended]);

describe('decision options', () => {
  it('none while no decision is due', () => {
    expect(decisionOptions(given(start(), open('A', 'HIGH'), ...round(1, resolve('A'))).view)).toEqual([]);
    expect(decisionOptions(given(start(), open('A', 'HIGH'), open('B', 'LOW'), ...round(1, resolve('B'))).view)).toEqual([]);
  });

  it("a CRITICAL introduced: prioritize critical is recommended and names the open CRITICAL gaps; all six options, in the prompt's order", () => {
    const { view } = given(start(), open('A', 'HIGH'), ...round(1, open('C', 'CRITICAL')));
    expect(view.machine.state).toBe('DIVERGENCE_WARNING');
    const options = decisionOptions(view);
    expect(kinds(options)).toEqual(['narrow_scope', 'accept_complexity', 'prioritize_critical', 'pause', 'force_complete', 'abandon']);
    expect(recommended(options)).toEqual([['prioritize_critical', 'critical']]);
    expect(options.find((o) => o.kind === 'prioritize_critical')).toMatchObject({
      gaps: [{ id: 'C' }],
      event: { type: 'decision.made', data: { kind: 'prioritize_critical', gaps: ['C'] } },
    });
    expect(options.find((o) => o.kind === 'force_complete')!.gaps.map((g) => g.id)).toEqual(['C', 'A']);
  });

  it('MEDIUM/LOW gaps spawned this round, flagged non-blocking or not: narrow scope is recommended and names them', () => {
    const spawned = (id: string) => open(id, 'LOW', { spawnedBy: 'A', blocking: false });
    const { view } = given(
      start(),
      open('A', 'HIGH'),
      ...round(1, open('H', 'HIGH'), spawned('S1'), spawned('S2'), spawned('S3'), spawned('S4'), spawned('S5'), open('S6', 'LOW', { spawnedBy: 'A' })),
    );
    expect(view.machine.state).toBe('DIVERGENCE_WARNING');
    const options = decisionOptions(view);
    expect(kinds(options)).not.toContain('prioritize_critical');
    expect(recommended(options)).toEqual([['narrow_scope', 'spawned_minor_gaps']]);
    const narrow = options.find((o) => o.kind === 'narrow_scope')!;
    // R28: spawned this round is enough; S6 needs no non-blocking flag.
    expect(narrow.event).toEqual({ type: 'decision.made', data: { kind: 'narrow_scope', gaps: ['S1', 'S2', 'S3', 'S4', 'S5', 'S6'] } });
    expect(narrow.fallback).toBeUndefined();
  });

  it('R28: given a MEDIUM gap marked non-blocking in an earlier round, when a later round diverges, then narrow scope names it (not the blocking LOW)', () => {
    const { view } = given(
      start(),
      open('A', 'HIGH'),
      open('N', 'MEDIUM', { blocking: false }),
      open('L', 'LOW'),
      ...round(1, open('H1', 'HIGH'), open('H2', 'HIGH'), open('H3', 'HIGH')),
    );
    expect(view.machine.state).toBe('DIVERGENCE_WARNING');
    const options = decisionOptions(view);
    expect(recommended(options)).toEqual([['narrow_scope', 'spawned_minor_gaps']]);
    expect(options[0]!.event).toEqual({ type: 'decision.made', data: { kind: 'narrow_scope', gaps: ['N'] } });
  });

  it('R28: given a spawned MEDIUM gap another gap is BLOCKED by, when the round diverges, then it is not suggested', () => {
    const { view } = given(
      start(),
      open('A', 'HIGH'),
      open('B', 'HIGH'),
      ...round(
        1,
        open('H1', 'HIGH'),
        open('H2', 'HIGH'),
        open('S1', 'MEDIUM', { spawnedBy: 'A' }),
        open('S2', 'MEDIUM', { spawnedBy: 'A' }),
        move('B', 'IN_PROGRESS'),
        move('B', 'BLOCKED', { blockedBy: 'S2' }),
      ),
    );
    expect(view.machine.state).toBe('DIVERGENCE_WARNING');
    const options = decisionOptions(view);
    expect(recommended(options)).toEqual([['narrow_scope', 'spawned_minor_gaps']]);
    expect(options[0]!.event).toEqual({ type: 'decision.made', data: { kind: 'narrow_scope', gaps: ['S1'] } });
  });

  it('the scope grew with gaps neither spawned nor minor: accept complexity; narrow scope falls back to the open MEDIUM/LOW gaps none waits on', () => {
    const { view } = given(
      start(),
      open('A', 'LOW'),
      open('W', 'LOW'),
      open('B', 'HIGH'),
      move('B', 'IN_PROGRESS'),
      move('B', 'BLOCKED', { blockedBy: 'W' }),
      ...round(1, open('H1', 'HIGH'), open('H2', 'HIGH'), open('H3', 'HIGH')),
    );
    expect(view.machine.state).toBe('DIVERGENCE_WARNING');
    const options = decisionOptions(view);
    expect(recommended(options)).toEqual([['accept_complexity', 'scope_grew']]);
    // The fallback fills the suggestion but does not make narrow scope the recommendation; W is waited on by B.
    expect(options[0]).toMatchObject({
      kind: 'narrow_scope',
      recommended: null,
      fallback: true,
      requires: [],
      event: { type: 'decision.made', data: { kind: 'narrow_scope', gaps: ['A'] } },
    });
  });

  it('no open MEDIUM or LOW gap at all: narrow scope needs the user to name the gaps (no request)', () => {
    const { view } = given(start(), open('A', 'HIGH'), ...round(1, open('H1', 'HIGH'), open('H2', 'HIGH'), open('H3', 'HIGH')));
    expect(view.machine.state).toBe('DIVERGENCE_WARNING');
    expect(decisionOptions(view)[0]).toEqual({ kind: 'narrow_scope', gaps: [], recommended: null, requires: ['data.gaps'], event: null });
  });

  it('a stall that still resolved gaps: accept complexity; a stall that resolved none: pause', () => {
    const churn = (n: number) => round(n, resolve(`L${n}`), open(`L${n + 1}`, 'LOW'));
    const busy = given(start(), open('A', 'HIGH'), open('L1', 'LOW'), ...churn(1), ...churn(2));
    expect(busy.view.machine.state).toBe('DIVERGENCE_WARNING');
    expect(recommended(decisionOptions(busy.view))).toEqual([['accept_complexity', 'stall_with_progress']]);
    const stuck = given(start(), open('A', 'HIGH'), ...round(1), ...round(2));
    expect(stuck.view.machine.state).toBe('DIVERGENCE_WARNING');
    expect(recommended(decisionOptions(stuck.view))).toEqual([['pause', 'stall_without_progress']]);
  });

  it('every request an option carries is one decide takes as it is', () => {
    const { view } = given(
      start(),
      open('A', 'HIGH'),
      open('M', 'MEDIUM'),
      ...round(1, open('C', 'CRITICAL'), open('S', 'LOW', { spawnedBy: 'A', blocking: false })),
    );
    const options = decisionOptions(view);
    expect(options.every((o) => o.event !== null)).toBe(true);
    for (const option of options) expect(() => decide(view, parseBody(option.event!)), option.kind).not.toThrow();
  });

  it('a session whose policies judge metrics, stalled: accept and continue, pause (recommended), force complete, abandon', () => {
    const questions = (open: number) => metrics('questions', { open, high: 0, medium: 0 });
    const { view } = given(start({ policies: ['questions'] }), questions(5), questions(6), questions(7), questions(8));
    expect(view.machine.state).toBe('DIVERGENCE_WARNING');
    expect(kinds(decisionOptions(view))).toEqual(['accept_complexity', 'pause', 'force_complete', 'abandon']);
    expect(recommended(decisionOptions(view))).toEqual([['pause', 'policies_stalled']]);
  });

  it('the gaps a loop reads: every gap not closed, most severe first, in the order recorded', () => {
    const { view } = given(
      start(),
      open('L', 'LOW'),
      open('H1', 'HIGH'),
      open('X', 'MEDIUM'),
      open('H2', 'HIGH'),
      startRound(1),
      move('X', 'USER_DEFERRED'),
      resolve('H2'),
      decision('pause'),
    );
    expect(listedGaps(view).map((g) => [g.id, g.state])).toEqual([
      ['H1', 'OPEN'],
      ['X', 'USER_DEFERRED'],
      ['L', 'OPEN'],
    ]);
  });
});
