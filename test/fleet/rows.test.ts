import { describe, expect, it } from 'vitest';
import { errorRow, fleetRow, warningsOf, weightedOpenChart } from '../../src/fleet/index.js';
import { baseline, newSession, playRound } from '../support.js';

/*
 * A fleet row is read off a session's view: given the events a session
 * recorded, the row says where it stands. The figures are worked out here
 * from the gaps each test opens (weights 16, 4, 2, 1), not from the code.
 */

const NOON = Date.UTC(2026, 0, 12, 12, 0, 0);

describe('a fleet row, from the events a session recorded', () => {
  it('names the state, the rounds closed, the open and weighted open counts, the last reason and the last event', () => {
    const session = newSession();
    baseline(session, 'HIGH', 2); // B-HIGH-1, B-HIGH-2: weighted 8
    playRound(session, { resolve: ['B-HIGH-1'], open: [['N-1', 'LOW']] }); // net +3: CONVERGING
    const row = fleetRow('team/a', { ...session.view, lastAt: '2026-01-12T11:59:15.000Z' }, NOON);
    expect(row).toMatchObject({
      name: 'team/a',
      state: 'CONVERGING',
      outcome: null,
      round: 1,
      roundOpen: false,
      open: 2,
      weightedOpen: 5,
      lastReason: 'weighted_net = +3',
      warnings: 0,
      eventCount: session.view.lastSeq,
      lastEventAt: '2026-01-12T11:59:15.000Z',
      age: 45,
      error: null,
    });
    // The forecast is the one `state --json` gives: one round is too few for a trend.
    expect(row.forecast).toMatchObject({ reason: 'too_few_rounds', finish: null });
  });

  it('counts an open round as not closed, and shows that it is open', () => {
    const session = newSession();
    baseline(session, 'MEDIUM', 1);
    playRound(session, { open: [['N-1', 'LOW']] });
    session.startRound();
    session.openGap('N-2', 'CRITICAL');
    expect(fleetRow('s', session.view, NOON)).toMatchObject({
      round: 1,
      roundOpen: true,
      open: 3,
      weightedOpen: 2 + 1 + 16,
      // The test clock stamps event k (from 0) at 09:00:k: started, the baseline gap, round 1 (start, N-1, close), round 2's start and N-2.
      lastEventAt: '2026-01-12T09:00:06.000Z',
      age: 3 * 3600 - 6,
    });
  });

  it('forecasts the finish once four rounds fall, and gives none once the session is COMPLETE', () => {
    const session = newSession();
    const gaps = baseline(session, 'LOW', 8);
    for (let r = 0; r < 4; r++) playRound(session, { resolve: gaps.slice(r, r + 1) }); // 7, 6, 5, 4 left
    const falling = fleetRow('s', session.view, NOON);
    expect(falling.forecast).toMatchObject({ reason: 'declining', finish: { low: 8, high: 8 } });
    playRound(session, { resolve: gaps.slice(4) });
    const done = fleetRow('s', session.view, NOON);
    expect(done).toMatchObject({ state: 'COMPLETE', outcome: 'CONVERGED', open: 0, weightedOpen: 0, forecast: null });
  });

  it('never gives a negative age for an event stamped after the clock it is read by', () => {
    const session = newSession();
    baseline(session, 'LOW', 1);
    expect(fleetRow('s', { ...session.view, lastAt: '2026-01-12T12:00:05.000Z' }, NOON).age).toBe(0);
  });

  it('an unreadable session is a row with its error and no figures', () => {
    expect(errorRow('broken', 'events.jsonl line 3: not JSON')).toEqual({
      name: 'broken',
      state: null,
      outcome: null,
      round: 0,
      roundOpen: false,
      open: 0,
      weightedOpen: 0,
      lastReason: null,
      forecast: null,
      warnings: 0,
      eventCount: 0,
      lastEventAt: null,
      age: null,
      error: 'events.jsonl line 3: not JSON',
      stale: false,
      staleSince: null,
      staleForSeconds: null,
      staleReason: null,
    });
  });

  it('a row read before reads began to fail keeps its figures, marked stale since then, with its age in whole seconds and why', () => {
    const session = newSession();
    baseline(session, 'HIGH', 2);
    const since = NOON - 12_700;
    const row = fleetRow('s', { ...session.view, lastAt: '2026-01-12T11:00:00.000Z' }, NOON, { since, reason: 'Connection terminated unexpectedly' });
    expect(row).toMatchObject({ state: 'CONVERGING', open: 2, weightedOpen: 8, error: null, age: 3600 });
    expect(row).toMatchObject({ stale: true, staleSince: '2026-01-12T11:59:47.300Z', staleForSeconds: 12, staleReason: 'Connection terminated unexpectedly' });
  });

  it('a row read well is not stale', () => {
    const session = newSession();
    baseline(session, 'LOW', 1);
    expect(fleetRow('s', session.view, NOON)).toMatchObject({ stale: false, staleSince: null, staleForSeconds: null, staleReason: null });
  });
});

describe('warnings: each round close that raised a DIVERGENCE_WARNING, with its cause', () => {
  it('a CRITICAL gap opened in a round is a warning caused by it', () => {
    const session = newSession();
    baseline(session, 'LOW', 1);
    playRound(session, { open: [['C-1', 'CRITICAL']] });
    expect(session.view.machine.state).toBe('DIVERGENCE_WARNING');
    expect(warningsOf(session.view)).toEqual([{ round: 1, cause: 'critical' }]);
    expect(fleetRow('s', session.view, NOON).warnings).toBe(1);
  });

  it('a weighted net below the divergence threshold is a divergence warning', () => {
    const session = newSession({ divergenceThreshold: 3 });
    baseline(session, 'LOW', 1);
    playRound(session, { open: [['H-1', 'HIGH']] }); // net -4 < -3
    expect(warningsOf(session.view)).toEqual([{ round: 1, cause: 'divergence' }]);
  });

  it('flat rounds up to the stall threshold are one stall warning, and a decision back to it is not another', () => {
    const session = newSession({ stallThreshold: 2 });
    baseline(session, 'LOW', 2);
    playRound(session, {}); // flat 1
    playRound(session, {}); // flat 2: stalled, warned
    expect(session.view.machine.state).toBe('DIVERGENCE_WARNING');
    session.makeDecision('pause');
    session.makeDecision('resume'); // back to DIVERGENCE_WARNING by a decision, not a round
    expect(session.view.machine.state).toBe('DIVERGENCE_WARNING');
    expect(warningsOf(session.view)).toEqual([{ round: 2, cause: 'stall' }]);
  });

  it('a session that converged raised none', () => {
    const session = newSession();
    baseline(session, 'HIGH', 1);
    playRound(session, { resolve: ['B-HIGH-1'] });
    expect(warningsOf(session.view)).toEqual([]);
  });
});

describe('the chart: weighted open at round 1 start and at each close', () => {
  it('has a point for the start and one per closed round, an open round left out', () => {
    const session = newSession();
    baseline(session, 'HIGH', 2); // 8
    playRound(session, { resolve: ['B-HIGH-1'] }); // 4
    playRound(session, { open: [['N-1', 'MEDIUM']] }); // 6
    session.startRound();
    session.openGap('N-2', 'LOW');
    expect(weightedOpenChart(session.view)).toEqual([
      { round: 0, weightedOpen: 8 },
      { round: 1, weightedOpen: 4 },
      { round: 2, weightedOpen: 6 },
    ]);
  });

  it('is empty before any round closes', () => {
    const session = newSession();
    baseline(session, 'HIGH', 2);
    session.startRound();
    expect(weightedOpenChart(session.view)).toEqual([]);
  });
});
