import { describe, expect, it } from 'vitest';
import type { SessionView } from '../../src/index.js';
import { settle } from '../../src/core/index.js';
import { GapflowEvent, upcast } from '../../events/index.js';
import { WEIGHT } from '../support.js';
import { AT, closeRound, decision, given, metrics, open, resolve, round, roundOutcome, stamp, start, startRound, type StoredBody } from './given.js';

/*
 * settle, the outcome upcaster (R19): a round close or decision written
 * before event version 3 has no outcome; it gets the one today's machine
 * computes from the view just before it, once. One with an outcome is a fact.
 */

/** A line as gapflow wrote it at `version` (no outcome before 3), read the way the log reads it: upcast, then parsed. */
function oldLine(version: 1 | 2, seq: number, body: StoredBody): GapflowEvent {
  return GapflowEvent.parse(upcast({ v: version, seq, id: `old-${seq}`, at: AT, ...body }));
}

const next = (view: SessionView) => view.lastSeq + 1;

/** H-1…H-3 in the baseline; round 1 resolves H-1 and opens N1 (HIGH): weighted net 4 - 4 = 0, flat. */
const flatRoundOpen = () => given(start(), open('H-1', 'HIGH'), open('H-2', 'HIGH'), open('H-3', 'HIGH'), startRound(1), resolve('H-1'), open('N1', 'HIGH'));

describe("R19: settle computes a missing outcome once, as today's machine decides it", () => {
  it.each([1, 2] as const)('a version-%i round.closed gets the figures and the state of its round (R1: FLAT, flat_count 1)', (version) => {
    const { view } = flatRoundOpen();
    const line = oldLine(version, next(view), { type: 'round.closed', data: { round: 1 } });
    expect(line.type === 'round.closed' && line.data.outcome).toBeUndefined();
    const settled = settle(view, line);
    expect(settled).toMatchObject({ seq: line.seq, id: line.id, type: 'round.closed', data: { round: 1 } });
    expect(settled?.type === 'round.closed' && settled.data.outcome).toMatchObject({
      figures: {
        resolved: 1,
        new: 1,
        weightedResolved: WEIGHT.HIGH,
        weightedNew: WEIGHT.HIGH,
        openEnd: 3,
        weightedOpenEnd: 3 * WEIGHT.HIGH,
        criticalIntroduced: [],
      },
      machine: { state: 'FLAT', flatCount: 1, outcome: null },
      steps: [{ from: 'CONVERGING', to: 'FLAT' }],
    });
  });

  it('an old second flat round settles as the stall, STALLED recorded on the way (R1, R4)', () => {
    const { view } = flatRoundOpen().and(closeRound(1), startRound(2));
    const settled = settle(view, oldLine(2, next(view), { type: 'round.closed', data: { round: 2 } }));
    expect(settled?.type === 'round.closed' && settled.data.outcome).toMatchObject({
      machine: { state: 'DIVERGENCE_WARNING', flatCount: 2 },
      steps: [
        { from: 'FLAT', to: 'STALLED' },
        { from: 'STALLED', to: 'DIVERGENCE_WARNING' },
      ],
    });
  });

  it('an old decision.made gets the steps the machine takes from the state it was made in (pause in FLAT)', () => {
    const { view } = flatRoundOpen().and(closeRound(1));
    const settled = settle(view, oldLine(2, next(view), { type: 'decision.made', data: { kind: 'pause' } }));
    expect(settled?.type === 'decision.made' && settled.data.outcome).toMatchObject({
      machine: { state: 'PAUSED', pausedFrom: 'FLAT', flatCount: 1 },
      steps: [{ from: 'FLAT', to: 'PAUSED' }],
    });
  });

  it("an old approval over open HIGH gaps without a rationale is settled, not refused (today's decide would refuse it)", () => {
    const g = flatRoundOpen().and(closeRound(1));
    g.when(decision('approve')).thenRefuses(/needs a rationale/, 'give_rationale');
    const settled = settle(g.view, oldLine(2, next(g.view), { type: 'decision.made', data: { kind: 'approve' } }));
    expect(settled?.type === 'decision.made' && settled.data.outcome.machine).toMatchObject({ state: 'COMPLETE', outcome: 'USER_APPROVED' });
  });

  it('an old round close with no round open cannot be judged: null (nothing to apply)', () => {
    const { view } = flatRoundOpen().and(closeRound(1));
    expect(settle(view, oldLine(2, next(view), { type: 'round.closed', data: { round: 1 } }))).toBeNull();
  });
});

describe('R19: an event that carries its outcome is settled as recorded', () => {
  it("a round close whose recorded outcome today's rules would not reach is returned unchanged", () => {
    const { view } = flatRoundOpen();
    const recorded = stamp(
      {
        type: 'round.closed',
        data: {
          round: 1,
          outcome: roundOutcome({
            figures: { openEnd: 0, weightedOpenEnd: 0, resolved: 9, new: 0, weightedResolved: 99, weightedNew: 0, criticalIntroduced: [] },
          }),
        },
      },
      next(view),
    );
    expect(settle(view, recorded)).toEqual(recorded);
  });

  it('a decision whose recorded outcome differs is returned unchanged', () => {
    const { view } = flatRoundOpen().and(closeRound(1));
    const machine = { state: 'PAUSED' as const, flatCount: 7, outcome: null, pausedFrom: 'DIVERGENCE_WARNING' as const };
    const recorded = stamp({ type: 'decision.made', data: { kind: 'pause', outcome: { machine, steps: [] } } }, next(view));
    expect(settle(view, recorded)).toEqual(recorded);
  });

  it.each<StoredBody>([
    { type: 'gap.opened', data: { id: 'G9', severity: 'LOW', title: '', blocking: true } },
    { type: 'gap.moved', data: { id: 'H-2', to: 'ACCEPTED' } },
    { type: 'round.started', data: { round: 7 } },
  ])('any other event ($type) is returned as it is, refusable or not', (body) => {
    const { view } = flatRoundOpen();
    const event = stamp(body, next(view));
    expect(settle(view, event)).toEqual(event);
  });
});

describe('R19: an old line is judged by the rules of the version that wrote it', () => {
  const atoms = (pending: number, redirect = false) => metrics('atoms', { pending, resolved: 0, redirectRequested: redirect });

  it('a version-2 close of round max_rounds in a gaps + atoms session where atoms diverged warned then, and still settles as the warning', () => {
    const { view } = given(start({ maxRounds: 2, policies: ['gaps', 'atoms'] }), open('H-1', 'HIGH'), ...round(1, atoms(5)), startRound(2), atoms(5, true));
    const settled = settle(view, oldLine(2, next(view), { type: 'round.closed', data: { round: 2 } }));
    expect(settled?.type === 'round.closed' && settled.data.outcome).toMatchObject({
      combined: { verdict: 'diverging', reason: 'redirect_requested' },
      machine: { state: 'DIVERGENCE_WARNING', outcome: null },
    });
    // Requested today, the same close ends the session (R12 for every combination).
    expect(
      given(start({ maxRounds: 2, policies: ['gaps', 'atoms'] }), open('H-1', 'HIGH'), ...round(1, atoms(5)), startRound(2), atoms(5, true), closeRound(2)).view
        .machine,
    ).toMatchObject({
      state: 'COMPLETE',
      outcome: 'MAX_ROUNDS',
    });
  });
});

describe('a version-3 outcome is read in version 4 shape, deciding nothing anew', () => {
  const v3 = (outcome: Record<string, unknown>) =>
    GapflowEvent.parse(upcast({ v: 3, seq: 9, id: 'v3-9', at: AT, type: 'round.closed', data: { round: 1, outcome } }));
  const machine = { state: 'COMPLETE', flatCount: 0, outcome: 'STOPPED', pausedFrom: null };
  const figures = { openEnd: 0, weightedOpenEnd: 0, resolved: 0, new: 0, weightedResolved: 0, weightedNew: 0, criticalIntroduced: [] };

  it("a stop request recorded as `limit` is the `stopped` verdict, the machine's record unchanged, the guard names gone", () => {
    const stop = { verdict: 'limit', reason: 'stop_requested', detail: 'manual stop requested' };
    const line = v3({
      figures,
      verdicts: [{ policy: 'atoms', ...stop, figures: {} }],
      combined: { ...stop, policies: ['atoms'], detail: 'atoms: manual stop requested' },
      machine,
      steps: [{ from: 'CONVERGING', to: 'COMPLETE', rule: 'policyStopRequested' }],
      rule: 'policyStopRequested',
    });
    expect(line.type === 'round.closed' && line.data.outcome).toEqual({
      figures,
      verdicts: [{ policy: 'atoms', verdict: 'stopped', reason: 'stop_requested', detail: 'manual stop requested', figures: {} }],
      combined: { verdict: 'stopped', reason: 'stop_requested', policies: ['atoms'], detail: 'atoms: manual stop requested' },
      machine,
      steps: [{ from: 'CONVERGING', to: 'COMPLETE' }],
    });
  });

  it('a gaps-only close (no combined verdict then) gets its one verdict as the combined one', () => {
    const gap = { policy: 'gaps', verdict: 'flat', reason: 'no_weighted_progress', detail: 'weighted_net = 0, no weighted progress', figures: {} };
    const line = v3({ figures, verdicts: [gap], combined: null, machine: { ...machine, state: 'FLAT', outcome: null, flatCount: 1 }, steps: [], rule: null });
    expect(line.type === 'round.closed' && line.data.outcome?.combined).toEqual({
      verdict: 'flat',
      reason: 'no_weighted_progress',
      policies: ['gaps'],
      detail: 'gaps: weighted_net = 0, no weighted progress',
    });
  });
});
