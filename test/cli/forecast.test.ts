import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli, Sandbox } from './helpers.js';

/*
 * The forecast on the command line (issue 16, item 2): `state --json` and
 * `next --json` carry it, and `next` warns while its earliest finish lies
 * past max_rounds, before the limit is reached.
 */

let box: Sandbox;
beforeEach(() => {
  box = new Sandbox();
});
afterEach(() => box.remove());

/**
 * 20 LOW gaps (weight 1 each), then four rounds resolving 3, 4, 3 and 3 of
 * them: weighted open 17, 13, 10, 7 at the rounds' ends. Over the 4 rounds
 * the line falls 3.3 a round and is at 6.8 by round 4 (2.06 rounds to zero);
 * over the last 3 it falls 3 a round from 7 (2.33 rounds): rounds 6–7.
 */
function fourRoundsDown(maxRounds: number): void {
  const ids = Array.from({ length: 20 }, (_, i) => `L-${i + 1}`);
  const opened = ids.map((id) => JSON.stringify({ type: 'gap.opened', data: { id, severity: 'LOW' } })).join('\n');
  box.ok('init', '--max-rounds', String(maxRounds));
  const batch = runCli(['append', '--dir', box.dir], { cwd: box.root, stdin: `${opened}\n` });
  expect(batch.code, batch.stderr).toBe(0);
  let next = 0;
  for (const count of [3, 4, 3, 3]) {
    box.ok('round', 'start');
    for (const id of ids.slice(next, next + count)) box.ok('gap', 'move', id, 'RESOLVED');
    box.ok('round', 'close');
    next += count;
  }
}

const FORECAST = {
  reason: 'declining',
  rounds: { low: 2, high: 3 },
  finish: { low: 6, high: 7 },
  window: 4,
  slope: -3.3,
  detail: 'done in 2–3 more rounds (rounds 6–7): a least-squares line through the weighted open count of the last 4 rounds falls 3.3 a round from 7 now',
};

describe('the forecast on the command line', () => {
  it('state --json and next --json carry it; status.md shows its line and the trend in the chart', { timeout: 30_000 }, () => {
    fourRoundsDown(10);
    expect(box.stateJson().forecast).toEqual(FORECAST);
    const next = JSON.parse(box.ok('next', '--json').stdout) as { reason: string; forecast: unknown };
    expect(next.forecast).toEqual(FORECAST);
    expect(next.reason).not.toContain('forecast');
    const status = box.ok('status').stdout;
    expect(status).toContain(`**Forecast:** ${FORECAST.detail}.`);
    // The line fitted through rounds 1–4 (20 - 3.3 x) reaches zero in round 7; the rounds ahead have no bar.
    expect(status).toContain('x-axis ["start", "R1", "R2", "R3", "R4", "R5?", "R6?", "R7?"]');
    expect(status).toContain('bar [20, 17, 13, 10, 7, 0, 0, 0]');
    expect(status).toContain('line [20, 16.7, 13.4, 10.1, 6.8, 3.5, 0.2, 0]');
  });

  it('before three rounds have closed, the forecast is unknown and says why', { timeout: 30_000 }, () => {
    box.ok('init');
    box.steps('gap open A --severity HIGH', 'gap open B --severity LOW', 'round start', 'gap move B RESOLVED', 'round close');
    expect(box.stateJson().forecast).toMatchObject({
      reason: 'too_few_rounds',
      rounds: null,
      detail: 'unknown: a trend needs 4 closed rounds, and 1 has closed',
    });
  });

  it('next warns, as text and in --json, while the forecast’s earliest finish lies past max_rounds', { timeout: 30_000 }, () => {
    fourRoundsDown(5);
    const warning =
      'the forecast finishes in rounds 6–7, past max_rounds (5): narrow the scope or extend the limit (decide extend-rounds N) before round 5 closes';
    expect(box.ok('next').stdout).toContain(warning);
    expect((JSON.parse(box.ok('next', '--json').stdout) as { reason: string }).reason).toContain(warning);
  });
});
