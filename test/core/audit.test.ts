import { describe, expect, it } from 'vitest';
import { auditHistory } from '../../src/core/index.js';
import type { GapflowEvent } from '../../src/index.js';
import { decision, given, move, open, resolve, round, roundOutcome, stamp, start, startRound, type StoredBody } from './given.js';

/*
 * auditHistory reads a history under today's rules (R19: an audit, never a
 * gate): it folds what was recorded and lists where today's rules would
 * refuse an event or decide another outcome.
 */

/** The log of `g`, then hand-written lines after it. */
const withLines = (log: readonly GapflowEvent[], ...bodies: StoredBody[]) => [...log, ...bodies.map((body, i) => stamp(body, log.length + 1 + i))];

/** A whole session decided today: baseline, a flat round, a stall, a narrowed scope, a converging round, an approval. */
const cleanSession = () =>
  given(
    start(),
    open('H-1', 'HIGH'),
    open('M-1', 'MEDIUM'),
    open('L-1', 'LOW'),
    ...round(1),
    ...round(2, open('L-2', 'LOW'), resolve('L-1')),
    decision('narrow_scope', { gaps: ['M-1'] }),
    ...round(3, resolve('L-2')),
    decision('approve', { rationale: 'H-1 is accepted as a known limitation' }),
  );

describe('R19: audit of a clean history', () => {
  it("finds nothing in a history decided under today's rules, and rebuilds the same view", () => {
    const g = cleanSession();
    expect(g.view.history.map((h) => h.to)).toEqual(['FLAT', 'STALLED', 'DIVERGENCE_WARNING', 'CONVERGING', 'CONVERGING', 'COMPLETE']);
    expect(g.view.machine).toMatchObject({ state: 'COMPLETE', outcome: 'USER_APPROVED' });
    const { findings, view } = auditHistory(g.log);
    expect(findings).toEqual([]);
    expect(view).toEqual(g.view);
  });

  it('finds nothing in the same history written before outcomes were recorded (version 2): each is settled as today decides', () => {
    const g = cleanSession();
    const old = g.log.map((event) => {
      if (event.type !== 'round.closed' && event.type !== 'decision.made') return event;
      const { outcome: _outcome, ...data } = event.data;
      return { ...event, data } as GapflowEvent;
    });
    const { findings, view } = auditHistory(old);
    expect(findings).toEqual([]);
    expect(view.machine).toEqual(g.view.machine);
  });
});

describe('R19: audit findings', () => {
  it("a hand-edited move today's lifecycle refuses (OPEN -> ACCEPTED) is `refused` at its line, and still folded", () => {
    const g = given(start(), open('H-1', 'HIGH'), open('L-1', 'LOW'));
    const events = withLines(
      g.log,
      { type: 'gap.moved', data: { id: 'H-1', to: 'ACCEPTED' } },
      { type: 'gap.opened', data: { id: 'G3', severity: 'LOW', title: '', blocking: true } },
    );
    const { findings, view } = auditHistory(events);
    expect(findings).toHaveLength(1);
    expect(findings[0]).toMatchObject({ line: 4, type: 'gap.moved', kind: 'refused' });
    expect(findings[0]!.message).toMatch(/gap H-1 is OPEN; moves allowed from OPEN/);
    expect(view.gaps.get('H-1')?.state).toBe('ACCEPTED');
    expect(view.gaps.has('G3')).toBe(true);
  });

  it("a round close whose recorded outcome differs from today's is `decided_differently`; the view keeps the recorded one", () => {
    // Nothing happens in round 1 with H-1 open: today that closes FLAT; the line claims COMPLETE/CONVERGED.
    const g = given(start(), open('H-1', 'HIGH'), startRound(1));
    const events = withLines(g.log, {
      type: 'round.closed',
      data: {
        round: 1,
        outcome: roundOutcome(),
      },
    });
    const { findings, view } = auditHistory(events);
    expect(findings).toEqual([{ line: 4, type: 'round.closed', kind: 'decided_differently', message: expect.stringMatching(/COMPLETE.*FLAT/) }]);
    expect(view.machine).toMatchObject({ state: 'COMPLETE', outcome: 'CONVERGED' });
  });

  it('a decision whose recorded outcome differs is `decided_differently` too', () => {
    const g = given(start(), open('H-1', 'HIGH'), ...round(1));
    const machine = { state: 'PAUSED' as const, flatCount: 1, outcome: null, pausedFrom: 'DIVERGENCE_WARNING' as const };
    const events = withLines(g.log, { type: 'decision.made', data: { kind: 'pause', outcome: { machine, steps: [{ from: 'FLAT', to: 'PAUSED' }] } } });
    const { findings } = auditHistory(events);
    expect(findings.map((f) => [f.line, f.type, f.kind])).toEqual([[g.log.length + 1, 'decision.made', 'decided_differently']]);
  });

  it('each finding is at its own line, in order; the lines between them are clean', () => {
    const g = given(start(), open('H-1', 'HIGH'), open('L-1', 'LOW'), startRound(1));
    const events = withLines(
      g.log,
      { type: 'gap.moved', data: { id: 'H-1', to: 'IN_PROGRESS' } },
      { type: 'gap.moved', data: { id: 'H-1', to: 'IN_PROGRESS' } },
      { type: 'gap.moved', data: { id: 'NOPE', to: 'RESOLVED' } },
    );
    const { findings } = auditHistory(events);
    expect(findings.map((f) => [f.line, f.kind])).toEqual([
      [g.log.length + 2, 'refused'],
      [g.log.length + 3, 'refused'],
    ]);
    expect(findings[0]!.message).toMatch(/already IN_PROGRESS/);
    expect(findings[1]!.message).toMatch(/unknown gap NOPE/);
  });

  it('a refused line is reported once, not again as decided differently: an old close with no round open', () => {
    const g = given(start(), open('H-1', 'HIGH'), ...round(1));
    const { findings } = auditHistory(withLines(g.log, { type: 'round.closed', data: { round: 1 } }));
    expect(findings).toEqual([{ line: g.log.length + 1, type: 'round.closed', kind: 'refused', message: expect.stringMatching(/no round is open/) }]);
  });
});

describe('R19: an audit compares what was decided, not how a verdict was explained', () => {
  it('a close recorded before fix-break cycles were named (no ping-pong words in its details) is no finding; a different verdict still is', () => {
    const g = given(
      start({ stallThreshold: 10 }),
      open('A', 'HIGH'),
      open('B', 'LOW'),
      ...round(1, resolve('A')),
      ...round(2, move('A', 'OPEN')),
      ...round(3, resolve('A')),
      ...round(4, move('A', 'OPEN')),
    );
    const closes = g.log.filter((event) => event.type === 'round.closed');
    expect(JSON.stringify(closes.at(-1))).toContain('ping-pong: A');
    // As a build before version 6 recorded it: the same verdicts and steps, explained without the cycle.
    const unnamed = (text: string) => text.replace(/; (ping-pong|open count alternating): [^;]*/g, '');
    const earlier = g.log.map((event) => {
      if (event.type !== 'round.closed' || event.data.outcome === undefined) return event;
      const { outcome } = event.data;
      const verdicts = outcome.verdicts.map(({ figures: { pingPong: _p, openCountAlternating: _a, ...figures }, ...v }) => ({
        ...v,
        detail: unnamed(v.detail),
        figures,
      }));
      return {
        ...event,
        data: { ...event.data, outcome: { ...outcome, verdicts, combined: { ...outcome.combined, detail: unnamed(outcome.combined.detail) } } },
      };
    });
    expect(JSON.stringify(earlier)).not.toContain('ping-pong');
    expect(auditHistory(earlier).findings).toEqual([]);
    // A verdict recorded otherwise is still found.
    const other = earlier.map((event) =>
      event === earlier.findLast((e) => e.type === 'round.closed') && event.type === 'round.closed' && event.data.outcome
        ? { ...event, data: { ...event.data, outcome: { ...event.data.outcome, combined: { ...event.data.outcome.combined, verdict: 'progress' as const } } } }
        : event,
    );
    expect(auditHistory(other).findings).toMatchObject([{ kind: 'decided_differently' }]);
  });
});
