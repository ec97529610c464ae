import { two, yesNo } from '../tree.js';
import { policyRules, type CheckTree, type PolicyVerdict } from '../types.js';
import { isStalled, metricScores, overallScore, trendOf, type ForgeMetricScores, type Trend } from './metrics.js';
import { parseVote, type Vote } from './votes.js';
import type { ForgeSettings, ForgeMetrics } from './schema.js';

export type { ForgeSettings, ForgeMetrics } from './schema.js';

export { agreementScore, changeVelocity, isStalled, issueScore, metricScores, overallScore, sectionStability, textSimilarity, trendOf } from './metrics.js';
export { parseVote, type Vote } from './votes.js';

export interface ForgeRoundScore {
  round: number;
  metrics: ForgeMetricScores;
  votes: Vote[];
  overall: number;
  agreeing: number;
  participants: number;
}

/**
 * Round `k`'s scores (1-based), from its votes, the drafts up to it and the
 * critiques of the most recent round up to it that had any (a round with
 * `critiques: []` had none).
 */
export function scoreRound(history: readonly ForgeMetrics[], k: number): ForgeRoundScore {
  const upTo = history.slice(0, k);
  const round = upTo.at(-1)!;
  const critiques = upTo.findLast((r) => r.critiques.length > 0)?.critiques ?? null;
  const metrics = metricScores(
    critiques,
    upTo.map((r) => r.draft),
  );
  const votes = round.votes.map((v) => parseVote(v.reply, v.participant));
  // Unanimity counts every participant active in the round, a critic who did not vote too.
  const active = new Set([...round.critiques.map((c) => c.participant), ...round.votes.map((v) => v.participant)]);
  return {
    round: k,
    metrics,
    votes,
    overall: overallScore(
      metrics,
      votes.map((v) => v.score),
    ),
    // Participants, not vote entries: a participant who voted twice agrees once.
    agreeing: new Set(round.votes.filter((_, i) => votes[i]!.agrees).map((v) => v.participant)).size,
    participants: active.size,
  };
}

/** The score history that stall and trend read: rounds before the minimum are not scored. */
export function scoreHistory(s: ForgeSettings, history: readonly ForgeMetrics[]): ForgeRoundScore[] {
  const scored: ForgeRoundScore[] = [];
  for (let k = s.minRounds; k <= history.length; k++) scored.push(scoreRound(history, k));
  return scored;
}

/** Forge's convergence test: the threshold, then unanimity (every active participant agrees; nobody active, no consensus) or the minimum consensus. */
function consensus(s: ForgeSettings, r: ForgeRoundScore): boolean {
  if (s.unanimous) return r.participants > 0 && r.agreeing === r.participants;
  return r.agreeing >= s.minConsensus!;
}

interface Step {
  verdict: PolicyVerdict['verdict'];
  reason: string;
  detail: string;
  stop: string | null;
}

function forgeStep(s: ForgeSettings, n: number, scored: readonly ForgeRoundScore[], trend: Trend, stalled: boolean): Step {
  if (n < s.minRounds) {
    const reason = n === 1 ? 'first_iteration' : 'minimum_rounds_not_met';
    return { verdict: 'progress', reason, detail: `round ${n} < min_rounds ${s.minRounds}: not scored yet`, stop: null };
  }
  const r = scored.at(-1)!;
  const need = s.unanimous ? `all ${r.participants}` : `${s.minConsensus}`;
  const score = `score ${two(r.overall)}`;
  if (r.overall >= s.threshold && consensus(s, r)) {
    return { verdict: 'converged', reason: 'converged', detail: `${score} >= ${two(s.threshold)}, ${r.agreeing} agree (need ${need})`, stop: 'converged' };
  }
  if (s.maxRounds !== undefined && n >= s.maxRounds) {
    return { verdict: 'limit', reason: 'max_rounds', detail: `round ${n} >= max_rounds ${s.maxRounds}, ${score}`, stop: 'maximum reached' };
  }
  if (trend === 'degrading') return { verdict: 'diverging', reason: 'degrading', detail: `${score}, trend degrading`, stop: null };
  if (stalled) return { verdict: 'flat', reason: 'stalled', detail: `${score}: no gain above 0.02 over the last three scores`, stop: null };
  const reason = trend === 'unknown' ? 'first_scored_round' : trend;
  return { verdict: 'progress', reason, detail: `${score}, ${r.agreeing}/${r.participants} agree, trend ${trend}`, stop: null };
}

function evaluate(s: ForgeSettings, history: readonly ForgeMetrics[]) {
  const scored = scoreHistory(s, history);
  const scores = scored.map((r) => r.overall);
  const trend = trendOf(scores);
  const stalled = isStalled(scores);
  return { scored, trend, stalled, step: forgeStep(s, history.length, scored, trend, stalled) };
}

const round3 = (x: number) => Math.round(x * 1000) / 1000;

function verdict(s: ForgeSettings, history: readonly ForgeMetrics[]): PolicyVerdict {
  const { scored, trend, stalled, step } = evaluate(s, history);
  const r = scored.at(-1);
  const last = r?.round === history.length ? r : undefined;
  const metrics = last ? Object.fromEntries(Object.entries(last.metrics).map(([k, v]) => [k, round3(v)])) : {};
  return {
    verdict: step.verdict,
    reason: step.reason,
    detail: step.detail,
    figures: {
      round: history.length,
      score: last ? round3(last.overall) : null,
      agreeing: last?.agreeing ?? null,
      participants: last?.participants ?? null,
      trend,
      stalled,
      ...metrics,
    },
  };
}

/** Forge's remaining issues (docs/policies.md#verdicts): the concerns of the latest round's votes that did not agree, each with who raised it. */
function remainingIssues(_s: ForgeSettings, history: readonly ForgeMetrics[]): string[] {
  if (history.length === 0) return [];
  return scoreRound(history, history.length)
    .votes.filter((v) => !v.agrees)
    .flatMap((v) => v.concerns.map((c) => `${v.participant}: ${c}`));
}

function check(s: ForgeSettings, history: readonly ForgeMetrics[]): CheckTree {
  const n = history.length;
  const { scored, trend, stalled, step } = evaluate(s, history);
  const r = scored.at(-1);
  const lines: CheckTree['lines'] = [{ text: `Minimum met: ${yesNo(n >= s.minRounds)} (${n} ${n >= s.minRounds ? '>=' : '<'} ${s.minRounds})` }];
  if (r) {
    const m = r.metrics;
    lines.push(
      {
        text: `Score: ${yesNo(r.overall >= s.threshold)} (${two(r.overall)} ${r.overall >= s.threshold ? '>=' : '<'} ${two(s.threshold)})`,
        notes: [
          `Agreement: ${two(m.agreementScore)}, Velocity: ${two(m.changeVelocity)}, Issues: ${two(m.issueCount)}, Similarity: ${two(m.semanticSimilarity)}, Sections: ${two(m.sectionStability)}`,
          `Votes: ${r.votes.map((v) => `${v.participant} ${v.agrees ? 'yes' : 'no'} ${v.score}`).join(', ') || 'none'}`,
        ],
      },
      { text: `Consensus: ${yesNo(consensus(s, r))} (${r.agreeing} of ${r.participants} agree, need ${s.unanimous ? 'all' : s.minConsensus})` },
      {
        text: `Stalled: ${yesNo(stalled)} (last scores: ${scored
          .slice(-3)
          .map((x) => two(x.overall))
          .join(', ')})`,
      },
      { text: `Trend: ${trend.toUpperCase()}` },
    );
  }
  // Shown from round 1 on: an unscored round's votes still say what is in dispute.
  const issues = remainingIssues(s, history);
  lines.push({ text: `Remaining issues: ${issues.length}`, notes: issues });
  if (s.maxRounds !== undefined) lines.push({ text: `Maximum reached: ${yesNo(n >= s.maxRounds)} (${n} ${n >= s.maxRounds ? '>=' : '<'} ${s.maxRounds})` });
  return { iteration: n, lines, decision: step.stop ? `STOP (${step.stop})` : 'CONTINUE' };
}

export const forgeRules = policyRules<ForgeSettings, ForgeMetrics>({
  name: 'forge',
  summary: "critiques, drafts and participants' votes per round (multi-model agreement)",
  settingFlags: { threshold: 'threshold', 'min-rounds': 'minRounds', 'min-consensus': 'minConsensus', 'max-rounds': 'maxRounds' },
  // Critiques, drafts and votes do not fit in flags: `record forge --json FILE|-`.
  recordFlags: {},
  fromFlags: () => ({}),
  verdict,
  check,
  remainingIssues,
  columns: [
    ['Score', 'score'],
    ['Agreeing', 'agreeing'],
    ['Trend', 'trend'],
    ['Stalled', 'stalled'],
  ],
});
