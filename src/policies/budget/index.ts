import { yesNo } from '../tree.js';
import { policyRules, type CheckTree, type PolicyVerdict, type RoundInput } from '../types.js';
import type { BudgetMetrics, BudgetSettings } from './schema.js';

export type { BudgetMetrics, BudgetSettings } from './schema.js';

/** What a round may spend, in the order every figure, line and column shows them. */
export const BUDGET_MEASURES = ['cost', 'tokens', 'seconds'] as const;
export type BudgetMeasure = (typeof BUDGET_MEASURES)[number];

/** Sums of floating point money (0.1 + 0.2) shown as people wrote them. */
const shown = (x: number): string => String(Math.round(x * 10_000) / 10_000);

/** One measure's standing: what was spent in all, per round on average, the limit and what is left (null: no limit set). */
interface Standing {
  measure: BudgetMeasure;
  total: number;
  perRound: number;
  limit: number | null;
  left: number | null;
}

function standings(s: BudgetSettings, history: readonly BudgetMetrics[]): Standing[] {
  return BUDGET_MEASURES.map((measure) => {
    const total = history.reduce((sum, m) => sum + (m[measure] ?? 0), 0);
    const limit = s[measure] ?? null;
    return { measure, total, perRound: history.length === 0 ? 0 : total / history.length, limit, left: limit === null ? null : limit - total };
  });
}

/** The measures whose limit is reached or passed. */
const spent = (all: readonly Standing[]) => all.filter((x) => x.left !== null && x.left <= 0);

/** The measures the forecast's earliest finish would overspend, at the average spend per round so far. */
function short(all: readonly Standing[], rounds: number | null): Standing[] {
  if (rounds === null) return [];
  return all.filter((x) => x.left !== null && x.left > 0 && x.perRound * rounds > x.left);
}

/** The rounds the forecast needs at least, when it has an estimate. */
const forecastLow = (round: RoundInput | undefined): number | null => round?.forecast?.low ?? null;

function verdict(s: BudgetSettings, history: readonly BudgetMetrics[], round?: RoundInput): PolicyVerdict {
  const all = standings(s, history);
  const last = history.at(-1);
  const figures = Object.fromEntries(
    all.flatMap((x) => [
      [x.measure, last?.[x.measure] ?? null],
      [`total${x.measure[0]!.toUpperCase()}${x.measure.slice(1)}`, Math.round(x.total * 10_000) / 10_000],
      [`${x.measure}Limit`, x.limit],
    ]),
  );
  const over = spent(all);
  if (over.length > 0) {
    return {
      verdict: 'limit',
      reason: 'budget_spent',
      detail: over.map((x) => `${x.measure} ${shown(x.total)} of ${shown(x.limit!)} spent`).join(', '),
      figures,
    };
  }
  const rounds = forecastLow(round);
  const lacking = short(all, rounds);
  if (lacking.length > 0) {
    const why = lacking.map(
      (x) =>
        `${x.measure}: ${shown(x.perRound)} a round for the ${rounds} more rounds the forecast needs at least is ${shown(x.perRound * rounds!)}, more than the ${shown(x.left!)} left of ${shown(x.limit!)}`,
    );
    return { verdict: 'diverging', reason: 'budget_short', detail: `the budget runs out before the gaps close (${why.join('; ')})`, figures };
  }
  const limited = all.filter((x) => x.limit !== null);
  const detail = limited.length === 0 ? 'no limit set' : limited.map((x) => `${x.measure} ${shown(x.total)} of ${shown(x.limit!)}`).join(', ');
  return { verdict: 'progress', reason: limited.length === 0 ? 'no_limit' : 'within_budget', detail, figures };
}

function check(s: BudgetSettings, history: readonly BudgetMetrics[], round?: RoundInput): CheckTree {
  const all = standings(s, history);
  const rounds = forecastLow(round);
  const lacking = short(all, rounds);
  const lines = all
    .filter((x) => x.limit !== null)
    .map((x) => ({
      text: `${x.measure[0]!.toUpperCase()}${x.measure.slice(1)} spent: ${yesNo(x.left! <= 0)} (${shown(x.total)} of ${shown(x.limit!)})`,
      notes: [
        `Per round: ${shown(x.perRound)}; forecast needs ${rounds === null ? 'unknown' : `${rounds} more round${rounds === 1 ? '' : 's'} at least`}; short: ${yesNo(lacking.includes(x))}`,
      ],
    }));
  const v = verdict(s, history, round);
  const decision = v.verdict === 'limit' ? 'STOP (budget spent)' : v.verdict === 'diverging' ? 'INTERRUPT (budget runs out before the gaps close)' : 'CONTINUE';
  return { iteration: history.length, lines: lines.length > 0 ? lines : [{ text: 'Limits: none set' }], decision };
}

/** A flag's number as the schema wants it; anything else is left for it to name. */
const number = (v: unknown) => (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v)) ? Number(v) : v);

/**
 * gapflow's own policy, from issue 16: what each round spent (money, tokens, seconds)
 * against the limits the session set. A guard, not a goal: its verdict
 * counts in the round's combination only when it stops the session (a
 * limit reached or passed: `limit`, which ends it as max_rounds does) or
 * warns (`diverging`: the spend per round so far, over the rounds the
 * forecast needs at least, is more than what is left), so it never holds up
 * convergence.
 */
export const budgetRules = policyRules<BudgetSettings, BudgetMetrics>({
  name: 'budget',
  summary: 'cost, tokens and seconds spent per round, against limits set at init',
  settingFlags: { cost: 'cost', tokens: 'tokens', seconds: 'seconds' },
  recordFlags: {
    cost: { type: 'string', value: 'amount', placeholder: 'C' },
    tokens: { type: 'string', value: 'whole', placeholder: 'N' },
    seconds: { type: 'string', value: 'amount', placeholder: 'S' },
  },
  fromFlags: (v) => Object.fromEntries(BUDGET_MEASURES.filter((m) => v[m] !== undefined).map((m) => [m, number(v[m])])),
  verdict,
  check,
  columns: [
    ['Cost', 'cost'],
    ['Tokens', 'tokens'],
    ['Seconds', 'seconds'],
    ['Total Cost', 'totalCost'],
    ['Total Tokens', 'totalTokens'],
    ['Total Seconds', 'totalSeconds'],
  ],
  guard: true,
  recordOnClose: true,
});
