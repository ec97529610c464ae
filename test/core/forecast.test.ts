import { describe, expect, it } from 'vitest';
import { forecast, FORECAST_ROUNDS, forecastPastLimit, headOf, loopStep, trendLine, viewForecast, decodeHead, encodeHead } from '../../src/core/index.js';
import { renderStatus } from '../../src/render/index.js';
import { baseline, newSession, playRound } from '../support.js';

/*
 * The forecast of rounds to done (issue 16, item 2): a least-squares line
 * through the weighted open count of the last 4 closed rounds, and where it
 * reaches zero; the range spans the lines through 3, 4 and 5 rounds.
 */

/** The round a series first reaches zero in (round r at index r - 1). */
const finishOf = (series: readonly number[]) => series.indexOf(0) + 1;

describe('forecast', () => {
  it('a steady decline with some jitter gives, at every point from round 4 on, a range containing the round it actually reaches zero in', () => {
    const series = [58, 53, 45, 41, 34, 30, 23, 17, 12, 7, 0];
    const truth = finishOf(series);
    expect(truth).toBe(11);
    for (let closed = 4; closed < truth; closed += 1) {
      const { reason, finish, rounds } = forecast(series.slice(0, closed));
      expect(reason, `after round ${closed}`).toBe('declining');
      expect(finish!.low, `after round ${closed}`).toBeLessThanOrEqual(truth);
      expect(finish!.high, `after round ${closed}`).toBeGreaterThanOrEqual(truth);
      expect(finish!.low - closed).toBe(rounds!.low);
    }
  });

  it('an exact straight decline gives one round, the one the line reaches zero in', () => {
    // 40, 32, 24, 16: slope -8, 16 left, two more rounds.
    expect(forecast([40, 32, 24, 16])).toMatchObject({ reason: 'declining', rounds: { low: 2, high: 2 }, finish: { low: 6, high: 6 }, window: 4, slope: -8 });
  });

  it('the worked example: 40, 34, 26, 20, 14 gives 2–3 more rounds (rounds 7–8) at slope -6.6', () => {
    // Last 4 (rounds 2–5): slope -33/5 = -6.6, line at round 5 = 13.6, zero 2.06 rounds on;
    // last 3: slope -6, 14/6 = 2.33; all 5: slope -6.6, 2.06. Outward: 2 to 3.
    const result = forecast([40, 34, 26, 20, 14]);
    expect(result).toEqual({
      reason: 'declining',
      rounds: { low: 2, high: 3 },
      finish: { low: 7, high: 8 },
      window: 4,
      slope: -6.6,
      detail: 'done in 2–3 more rounds (rounds 7–8): a least-squares line through the weighted open count of the last 4 rounds falls 6.6 a round from 14 now',
    });
  });

  it('a flat series gives unknown, no downward trend, with the slope', () => {
    expect(forecast([20, 20, 20, 20, 20])).toMatchObject({ reason: 'no_downward_trend', rounds: null, finish: null, slope: 0 });
    expect(forecast([20, 20, 20, 20, 20]).detail).toBe('unknown: the weighted open count is not falling (slope 0 per round over the last 4 rounds)');
  });

  it('a rising series gives unknown, no downward trend, even when it fell before the last 4 rounds', () => {
    const result = forecast([60, 30, 12, 14, 17, 18]);
    expect(result).toMatchObject({ reason: 'no_downward_trend', rounds: null, slope: 2.1 });
    expect(result.detail).toContain('slope +2.1 per round');
  });

  it('too few rounds gives unknown, naming how many it needs and how many closed', () => {
    expect(forecast([])).toMatchObject({ reason: 'too_few_rounds', rounds: null, slope: null });
    expect(forecast([30, 20, 10])).toMatchObject({ reason: 'too_few_rounds', detail: 'unknown: a trend needs 4 closed rounds, and 3 have closed' });
    expect(forecast([30]).detail).toBe('unknown: a trend needs 4 closed rounds, and 1 has closed');
  });

  it('nothing weighted left open is already done, whatever the rounds', () => {
    expect(forecast([4, 0])).toMatchObject({ reason: 'already_done', rounds: null });
  });

  it('a count above zero whose line has already crossed zero still needs one more round', () => {
    // 30, 20, 10, 1: the line through them reaches zero before round 4; one round is left all the same.
    expect(forecast([30, 20, 10, 1])).toMatchObject({ reason: 'declining', rounds: { low: 1 } });
  });

  it('the trend line runs through the fit, from the start to the round it reaches zero in, never below zero', () => {
    expect(trendLine([40, 32, 24, 16])).toEqual([48, 40, 32, 24, 16, 8, 0]);
    // 30, 20, 10, 1: the line (30.5 - 9.7 x) is below zero by round 4; the trend still reaches the round after.
    expect(trendLine([30, 20, 10, 1])).toEqual([39.5, 29.8, 20.1, 10.4, 0.7, 0].map((v) => expect.closeTo(v, 9)));
    expect(trendLine([20, 20, 20, 20])).toBeNull();
  });
});

/** A gap session of 40 LOW gaps (weight 1 each) resolving `resolved[i]` in round i + 1. */
function sessionResolving(resolved: number[], maxRounds = 10) {
  const session = newSession({ maxRounds });
  const ids = baseline(session, 'LOW', 40);
  let next = 0;
  for (const count of resolved) {
    playRound(session, { resolve: ids.slice(next, next + count) });
    next += count;
  }
  return session;
}

describe('the session’s forecast', () => {
  it('reads the weighted open count at each closed round’s end, and forecasts from the head as from the whole view', () => {
    const session = sessionResolving([6, 8, 6, 6]);
    expect(session.view.weightedOpenEnds).toEqual([34, 26, 20, 14]);
    const whole = viewForecast(session.view);
    expect(whole).toMatchObject({ reason: 'declining', finish: { low: 6, high: 7 } });
    expect(viewForecast(headOf(session.view, 2))).toEqual(whole);
    expect(viewForecast(decodeHead(encodeHead(session.view, 2))!)).toEqual(whole);
  });

  it('keeps the weighted open count of the last rounds only, so a long session’s head stays small, and forecasts from it as from the whole series', () => {
    const resolved = [1, 2, 1, 2, 1, 2, 3, 3, 4, 4];
    const session = sessionResolving(resolved, 30);
    const whole = resolved.map((_, i) => 40 - resolved.slice(0, i + 1).reduce((a, b) => a + b, 0));
    expect(whole).toEqual([39, 37, 36, 34, 33, 31, 28, 25, 21, 17]);
    // The widest fit reads the window and one more round: no more is kept.
    expect(session.view.weightedOpenEnds).toEqual(whole.slice(-FORECAST_ROUNDS));
    const expected = forecast(whole);
    expect(expected.reason).toBe('declining');
    expect(viewForecast(session.view)).toEqual(expected);
    const head = decodeHead(encodeHead(session.view, 2))!;
    expect(viewForecast(head)).toEqual(expected);
    expect(encodeHead(session.view, 2)).not.toContain(JSON.stringify(whole.slice(0, 6)).slice(1, -1));
  });

  it('the chart’s trend runs at most ten rounds ahead (or as many as have closed): a count that barely falls does not project thirty-six', () => {
    const session = sessionResolving([1, 1, 1, 1], 100);
    expect(viewForecast(session.view)).toMatchObject({ finish: { low: 40 } });
    const chart = renderStatus(session.view);
    const labels = /x-axis \[(.*)\]/.exec(chart)![1]!.split(', ');
    expect(labels.at(-1)).toBe('"R14?"');
    expect(labels).toHaveLength(15);
  });

  it('is null for a session without the gap policy, and once it is COMPLETE', () => {
    const metrics = newSession({ policies: ['quality'] });
    expect(viewForecast(metrics.view)).toBeNull();
    const done = sessionResolving([10, 10, 10, 5]);
    expect(viewForecast(done.view)).not.toBeNull();
    done.makeDecision('abandon');
    expect(viewForecast(done.view)).toBeNull();
  });

  it('next warns while the forecast’s earliest finish lies past max_rounds, and not when it lies within', () => {
    // 34, 26, 20, 14 after round 4: done in rounds 6–7.
    const within = sessionResolving([6, 8, 6, 6], 6);
    expect(forecastPastLimit(within.view)).toBe('');
    const past = sessionResolving([6, 8, 6, 6], 5);
    expect(loopStep(past.view).reason).toContain('the forecast finishes in rounds 6–7, past max_rounds (5)');
  });
});
