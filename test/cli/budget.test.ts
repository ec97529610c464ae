import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { expectRefused, Sandbox } from './helpers.js';

/*
 * The budget policy on the command line (issue 16, item 3): limits at
 * init, a round's spend by `record budget` or on `round close`, totals and
 * spend per round in status.md; a bad value is one line naming the flag and
 * the value, and nothing is written.
 */

let box: Sandbox;
beforeEach(() => {
  box = new Sandbox();
});
afterEach(() => box.remove());

interface Recorded {
  events: { type: string; data: { policy?: string; metrics?: unknown; round?: number } }[];
}

/** A gap session with the budget policy, three HIGH gaps, round 1 open with one resolved. */
function inRoundOne(...limits: string[]): void {
  box.ok('init', '--policy', 'gaps,budget', ...limits);
  box.steps('gap open A --severity HIGH', 'gap open B --severity HIGH', 'gap open C --severity HIGH', 'round start', 'gap move A RESOLVED');
}

describe('budget on the command line', () => {
  it('init takes the limits; record budget records a round’s spend, and the close judges it', { timeout: 30_000 }, () => {
    inRoundOne('--budget-cost', '1', '--budget-tokens', '5000');
    expect(box.stateJson().policies.find((p) => p.name === 'budget')).toMatchObject({ verdict: null, iterations: 0 });
    const recorded = JSON.parse(box.ok('record', 'budget', '--cost', '0.42', '--tokens', '1200', '--json').stdout) as Recorded;
    expect(recorded.events.map((e) => [e.type, e.data.metrics])).toEqual([['metrics.recorded', { cost: 0.42, tokens: 1200 }]]);
    const closed = box.ok('round', 'close').stdout;
    expect(closed).toContain('budget: progress (within_budget)');
    expect(box.stateJson().policies.find((p) => p.name === 'budget')).toMatchObject({ verdict: 'progress', detail: 'cost 0.42 of 1, tokens 1200 of 5000' });
  });

  it('round close --cost --tokens --seconds records the spend and closes the round together; status.md shows each round’s spend and the totals', {
    timeout: 30_000,
  }, () => {
    inRoundOne('--budget-cost', '1');
    const closed = JSON.parse(box.ok('round', 'close', '--cost', '0.3', '--tokens', '1000', '--seconds', '60', '--json').stdout) as Recorded;
    expect(closed.events.map((e) => e.type)).toEqual(['metrics.recorded', 'round.closed']);
    expect(closed.events[0]!.data).toMatchObject({ policy: 'budget', round: 1, metrics: { cost: 0.3, tokens: 1000, seconds: 60 } });
    box.steps('round start', 'gap move B RESOLVED');
    // 0.3 + 0.8 passes the limit of 1: the session ends as at max_rounds, the reason naming the budget.
    const last = box.ok('round', 'close', '--cost', '0.8').stdout;
    expect(last).toContain('Round 2 closed: CONVERGING -> COMPLETE (MAX_ROUNDS)');
    expect(last).toContain('Why: limit: budget: cost 1.1 of 1 spent');
    const status = box.ok('status').stdout;
    expect(status).toContain('| Round | Cost | Tokens | Seconds | Total Cost | Total Tokens | Total Seconds | Verdict | Reason |');
    expect(status).toContain('| 1 | 0.3 | 1000 | 60 | 0.3 | 1000 | 60 | progress | within_budget |');
    expect(status).toContain('| 2 | 0.8 | - | - | 1.1 | 1000 | 60 | limit | budget_spent |');
  });

  it('round close with spend and --event-id is safe to retry: the second call finds both events and appends nothing', { timeout: 30_000 }, () => {
    inRoundOne();
    const first = JSON.parse(box.ok('round', 'close', '--cost', '0.3', '--event-id', 'close-1', '--json').stdout) as Recorded & { duplicate?: boolean };
    const log = box.logBytes();
    const again = JSON.parse(box.ok('round', 'close', '--cost', '0.3', '--event-id', 'close-1', '--json').stdout) as Recorded & { duplicate?: boolean };
    expect(again.duplicate).toBe(true);
    expect(again.events).toEqual(first.events);
    expect(box.logBytes()!.equals(log!)).toBe(true);
    expect(
      box
        .logLines()
        .slice(-2)
        .map((line) => (JSON.parse(line) as { id: string }).id),
    ).toEqual(['close-1:budget', 'close-1']);
  });

  it('a round closed without its spend is refused, naming the budget', { timeout: 30_000 }, () => {
    inRoundOne();
    expectRefused(box, ['round', 'close'], ['round 1 has no budget metrics yet']);
  });

  it.each([
    [['record', 'budget', '--cost', '-1'], '--cost takes a number of 0 or more, not "-1"'],
    [['record', 'budget', '--cost', 'abc'], '--cost takes a number of 0 or more, not "abc"'],
    [['record', 'budget', '--tokens', '1.5'], '--tokens takes a whole number ≥ 0, not "1.5"'],
    [['record', 'budget', '--seconds', '-0.5'], '--seconds takes a number of 0 or more, not "-0.5"'],
    [['round', 'close', '--cost', 'ten'], '--cost takes a number of 0 or more, not "ten"'],
    [['round', 'close', '--tokens', '-3'], '--tokens takes a whole number ≥ 0, not "-3"'],
  ])('%j: one line naming the flag and the value, nothing written', { timeout: 30_000 }, (argv, message) => {
    inRoundOne();
    expectRefused(box, argv, [message]);
  });

  it('budget alone is refused at init: it guards a loop, and names the policies that judge progress', { timeout: 30_000 }, () => {
    const result = box.gf('init', '--policy', 'budget', '--budget-cost', '5');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      'budget only guards a loop (stops it at a limit, or warns); enable it beside a policy that judges progress (gaps, questions, atoms, forge, quality)',
    );
    expect(result.stderr.trimEnd()).not.toContain('\n');
    expect(box.logBytes()).toBeNull();
  });

  it('a limit at init that is no positive number is refused, naming it, and no session is made', { timeout: 30_000 }, () => {
    const result = box.gf('init', '--policy', 'gaps,budget', '--budget-cost', '-5');
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^gapflow: .*cost/);
    expect(result.stderr.trimEnd()).not.toContain('\n');
    expect(box.logBytes()).toBeNull();
  });
});
