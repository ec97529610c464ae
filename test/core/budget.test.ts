import { describe, expect, it } from 'vitest';
import { decisionOptions, policyStates } from '../../src/core/index.js';
import { renderPrompt } from '../../src/render/index.js';
import { closeRound, given, metrics, open, resolve, start, startRound, type GivenItem } from './given.js';

/*
 * The budget policy (issue 16, item 3) in a session: a limit reached ends
 * the session as the round limit does (COMPLETE, MAX_ROUNDS, the reason
 * naming the budget); a forecast that needs more rounds than the budget
 * left pays for warns (DIVERGENCE_WARNING, the user decides); within
 * budget, the policy says nothing to the combination.
 */

const withBudget = (limits: Record<string, number>) => start({ policies: ['gaps', 'budget'], policySettings: { budget: limits } });

/** Round n: resolve `id`, record `spend`, and close. */
const spendingRound = (n: number, id: string, spend: Record<string, number>): GivenItem[] => [
  startRound(n),
  resolve(id),
  metrics('budget', spend),
  closeRound(n),
];

describe('budget: a limit reached or passed', () => {
  it('ends the session at the round close as the round limit does: COMPLETE (MAX_ROUNDS), the reason naming the budget', () => {
    given(withBudget({ cost: 1 }), open('G1', 'HIGH'), open('G2', 'HIGH'), startRound(1), resolve('G1'), metrics('budget', { cost: 1.25 }))
      .when(closeRound(1))
      .then([
        {
          type: 'round.closed',
          data: {
            round: 1,
            outcome: {
              combined: { verdict: 'limit', reason: 'budget_spent', policies: ['budget'], detail: 'budget: cost 1.25 of 1 spent' },
              machine: { state: 'COMPLETE', outcome: 'MAX_ROUNDS' },
            },
          },
        },
      ]);
  });

  it('ends the session even when another policy warns in the same round: a CRITICAL introduced does not ask the user to spend more', () => {
    given(withBudget({ cost: 1 }), open('G1', 'HIGH'), startRound(1), open('C1', 'CRITICAL'), metrics('budget', { cost: 2 }))
      .when(closeRound(1))
      .then([
        {
          type: 'round.closed',
          data: {
            round: 1,
            outcome: { combined: { verdict: 'limit', reason: 'budget_spent', policies: ['budget'] }, machine: { state: 'COMPLETE', outcome: 'MAX_ROUNDS' } },
          },
        },
      ]);
  });

  it('counts every round’s spend: two rounds of 3000 tokens reach a limit of 6000', () => {
    const session = given(
      withBudget({ tokens: 6000 }),
      open('G1', 'HIGH'),
      open('G2', 'HIGH'),
      open('G3', 'HIGH'),
      ...spendingRound(1, 'G1', { tokens: 3000 }),
    );
    expect(session.view.machine.state).toBe('CONVERGING');
    session
      .and(startRound(2), resolve('G2'), metrics('budget', { tokens: 3000, seconds: 20 }))
      .when(closeRound(2))
      .then([
        {
          type: 'round.closed',
          data: {
            round: 2,
            outcome: { combined: { verdict: 'limit', reason: 'budget_spent', detail: 'budget: tokens 6000 of 6000 spent' }, machine: { state: 'COMPLETE' } },
          },
        },
      ]);
  });
});

describe('budget: the forecast needs more rounds than the budget left pays for', () => {
  // Ten HIGH gaps (40), one resolved a round: 36, 32, 28, 24; the forecast after round 4 needs 6 more rounds.
  const tenHigh = Array.from({ length: 10 }, (_, i) => open(`G${i + 1}`, 'HIGH'));
  const threeRounds = [1, 2, 3].flatMap((n) => spendingRound(n, `G${n}`, { cost: 2 }));

  it('warns (DIVERGENCE_WARNING) once the forecast has a trend: 2 a round for 6 more rounds is 12, more than the 2 left of 10', () => {
    const session = given(withBudget({ cost: 10 }), ...tenHigh, ...threeRounds);
    // Three rounds have no trend yet: within budget, and the budget stays out of the combination.
    expect(session.view.rounds.at(-1)!.combined).toMatchObject({ verdict: 'progress', policies: ['gaps'] });
    session
      .and(startRound(4), resolve('G4'), metrics('budget', { cost: 2 }))
      .when(closeRound(4))
      .then([
        {
          type: 'round.closed',
          data: {
            round: 4,
            outcome: {
              combined: {
                verdict: 'diverging',
                reason: 'budget_short',
                policies: ['budget'],
                detail:
                  'budget: the budget runs out before the gaps close (cost: 2 a round for the 6 more rounds the forecast needs at least is 12, more than the 2 left of 10)',
              },
              machine: { state: 'DIVERGENCE_WARNING' },
            },
          },
        },
      ]);
  });

  it('the standing verdict (state --json, status.md, check) reads the same forecast: after round 4 the budget stands diverging', () => {
    const after = given(withBudget({ cost: 10 }), ...tenHigh, ...threeRounds, ...spendingRound(4, 'G4', { cost: 2 }));
    expect(after.view.machine.state).toBe('DIVERGENCE_WARNING');
    expect(policyStates(after.view).find((p) => p.name === 'budget')).toMatchObject({
      verdict: 'diverging',
      reason: 'budget_short',
      figures: { totalCost: 8, costLimit: 10 },
    });
  });

  it('the decision it asks for recommends narrowing the scope, saying the budget runs out first, not that the scope grew', () => {
    const after = given(withBudget({ cost: 10 }), ...tenHigh, ...threeRounds, ...spendingRound(4, 'G4', { cost: 2 }));
    const recommended = decisionOptions(after.view).filter((option) => option.recommended !== null);
    expect(recommended).toMatchObject([{ kind: 'narrow_scope', recommended: 'guard_warned' }]);
    const prompt = renderPrompt(after.view)!;
    expect(prompt).toContain('the budget runs out before the gaps close');
    expect(prompt).not.toContain('the scope grew');
  });

  it('does not warn when what is left pays for the rounds the forecast needs: 2 a round for 6 rounds is 12, within the 32 left of 40', () => {
    given(withBudget({ cost: 40 }), ...tenHigh, ...threeRounds, startRound(4), resolve('G4'), metrics('budget', { cost: 2 }))
      .when(closeRound(4))
      .then([
        { type: 'round.closed', data: { round: 4, outcome: { combined: { verdict: 'progress', policies: ['gaps'] }, machine: { state: 'CONVERGING' } } } },
      ]);
  });
});

describe('budget: no limit set', () => {
  it('records the spend, judges progress (no_limit), and leaves the combination to the gaps', () => {
    const session = given(
      withBudget({}),
      open('G1', 'HIGH'),
      open('G2', 'LOW'),
      startRound(1),
      resolve('G1'),
      metrics('budget', { cost: 50, tokens: 1_000_000 }),
    );
    session.when(closeRound(1)).then([
      {
        type: 'round.closed',
        data: {
          round: 1,
          outcome: { combined: { verdict: 'progress', reason: 'weighted_net_positive', policies: ['gaps'] }, machine: { state: 'CONVERGING' } },
        },
      },
    ]);
    const [closed] = session.when(closeRound(1)).decided();
    const [, budget] = closed!.type === 'round.closed' ? closed!.data.outcome.verdicts : [];
    expect(budget).toMatchObject({
      policy: 'budget',
      verdict: 'progress',
      reason: 'no_limit',
      figures: { cost: 50, totalCost: 50, tokens: 1_000_000, seconds: null, costLimit: null },
    });
  });

  it('never holds up convergence: quality converging with budget recorded completes the session under complete-when all', () => {
    const both = start({ policies: ['quality', 'budget'], completeWhen: 'all' });
    given(both, metrics('budget', { seconds: 30 }), metrics('quality', { score: 90 }), metrics('budget', { seconds: 30 }))
      .when(metrics('quality', { score: 91 }))
      .then([
        { type: 'metrics.recorded', data: { policy: 'quality', round: 2, metrics: { score: 91 } } },
        {
          type: 'round.closed',
          data: { round: 2, outcome: { combined: { verdict: 'converged', policies: ['quality'] }, machine: { state: 'COMPLETE', outcome: 'CONVERGED' } } },
        },
      ]);
  });
});
