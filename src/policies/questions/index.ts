import { two, yesNo } from '../tree.js';
import { policyRules, type CheckTree, type PolicyVerdict } from '../types.js';
import type { QuestionsSettings, QuestionsMetrics } from './schema.js';

export type { QuestionsSettings, QuestionsMetrics } from './schema.js';

/** The questions presets (docs/policies.md#settings). */
export const QUESTIONS_PRESETS = {
  conservative: { minIterations: 3, maxIterations: 7, stabilityThreshold: 3, questionThreshold: 2, confidenceThreshold: 0.9 },
  balanced: { minIterations: 2, maxIterations: 5, stabilityThreshold: 2, questionThreshold: 3, confidenceThreshold: 0.8 },
  aggressive: { minIterations: 1, maxIterations: 3, stabilityThreshold: 2, questionThreshold: 5, confidenceThreshold: 0.7 },
} as const;

/** The questions policy's tracked figures after the last iteration (its `convergence:` frontmatter block). */
export interface QuestionsFigures {
  iteration: number;
  openQuestions: number;
  previousOpen: number | null;
  /** Reset to 0 when the count changed, incremented when it did not. */
  stableCount: number;
  /** high / (high + medium + open); 0 for an empty spec. */
  highConfidenceRatio: number;
  /** The open count toggled between two values over the last four iterations (which the stable count cannot see). */
  oscillating: boolean;
}

export function questionsFigures(history: readonly QuestionsMetrics[]): QuestionsFigures {
  let stableCount = 0;
  for (let i = 1; i < history.length; i++) stableCount = history[i]!.open === history[i - 1]!.open ? stableCount + 1 : 0;
  const last = history.at(-1)!;
  const total = last.high + last.medium + last.open;
  const recent = history.slice(-4).map((m) => m.open);
  const oscillating = recent.length === 4 && recent[0] !== recent[1] && recent[0] === recent[2] && recent[1] === recent[3];
  return {
    iteration: history.length,
    openQuestions: last.open,
    previousOpen: history.at(-2)?.open ?? null,
    stableCount,
    highConfidenceRatio: total === 0 ? 0 : last.high / total,
    oscillating,
  };
}

type Step = { verdict: PolicyVerdict['verdict']; reason: string; detail: string; stop: string | null };

/** The questions policy's decision flow, in its order (docs/policies.md#verdicts); before the minimum and after the early stops, progress means fewer open questions. */
function questionsStep(s: QuestionsSettings, f: QuestionsFigures): Step {
  const fell = f.previousOpen === null || f.openQuestions < f.previousOpen;
  const continuing = (reason: string, detail: string): Step => {
    if (f.previousOpen === null)
      return { verdict: 'progress', reason: 'first_iteration', detail: `first iteration: ${f.openQuestions} open questions`, stop: null };
    // Before the fall: a fall inside an oscillation is its downward half, not progress.
    if (f.oscillating) {
      return {
        verdict: 'flat',
        reason: 'oscillating',
        detail: `${detail}; open questions oscillate between two counts (${f.previousOpen} <-> ${f.openQuestions})`,
        stop: null,
      };
    }
    if (fell) return { verdict: 'progress', reason, detail: `${detail}; open questions fell ${f.previousOpen} -> ${f.openQuestions}`, stop: null };
    return {
      verdict: 'flat',
      reason: reason === 'minimum_not_met' ? reason : 'questions_not_fewer',
      detail: `${detail}; open questions did not fall (${f.previousOpen} -> ${f.openQuestions})`,
      stop: null,
    };
  };
  if (f.iteration < s.minIterations) return continuing('minimum_not_met', `minimum not met (${f.iteration} < ${s.minIterations})`);
  if (f.iteration >= s.maxIterations) {
    return { verdict: 'limit', reason: 'maximum_reached', detail: `maximum reached (${f.iteration} >= ${s.maxIterations})`, stop: 'maximum reached' };
  }
  if (f.stableCount >= s.stabilityThreshold) {
    return {
      verdict: 'converged',
      reason: 'questions_stable',
      detail: `open questions unchanged for ${f.stableCount} iterations (need ${s.stabilityThreshold})`,
      stop: 'research exhausted',
    };
  }
  if (f.openQuestions <= s.questionThreshold) {
    return {
      verdict: 'converged',
      reason: 'few_questions',
      detail: `${f.openQuestions} open questions <= ${s.questionThreshold}`,
      stop: 'few enough for human',
    };
  }
  if (f.highConfidenceRatio > s.confidenceThreshold) {
    return {
      verdict: 'converged',
      reason: 'high_confidence',
      detail: `high-confidence ratio ${two(f.highConfidenceRatio)} > ${two(s.confidenceThreshold)}`,
      stop: 'spec mostly verified',
    };
  }
  return continuing('questions_fell', `${f.openQuestions} open questions, ratio ${two(f.highConfidenceRatio)}`);
}

function verdict(s: QuestionsSettings, history: readonly QuestionsMetrics[]): PolicyVerdict {
  const f = questionsFigures(history);
  const step = questionsStep(s, f);
  return {
    verdict: step.verdict,
    reason: step.reason,
    detail: step.detail,
    figures: { ...f, highConfidenceRatio: Math.round(f.highConfidenceRatio * 100) / 100 },
  };
}

function check(s: QuestionsSettings, history: readonly QuestionsMetrics[]): CheckTree {
  const f = questionsFigures(history);
  const last = history.at(-1)!;
  const n = f.iteration;
  const stable = f.stableCount >= s.stabilityThreshold;
  const low = f.openQuestions <= s.questionThreshold;
  const high = f.highConfidenceRatio > s.confidenceThreshold;
  const changed = f.previousOpen === null ? 'n/a' : yesNo(f.previousOpen !== f.openQuestions);
  const stableNotes = [`Previous: ${f.previousOpen ?? 'none'}, Current: ${f.openQuestions}, Changed: ${changed}`];
  if (f.oscillating)
    stableNotes.push(
      `Oscillating: YES (${history
        .slice(-4)
        .map((m) => m.open)
        .join(', ')})`,
    );
  const step = questionsStep(s, f);
  return {
    iteration: n,
    lines: [
      { text: `Minimum met: ${yesNo(n >= s.minIterations)} (${n} ${n >= s.minIterations ? '>=' : '<'} ${s.minIterations})` },
      { text: `Maximum reached: ${yesNo(n >= s.maxIterations)} (${n} ${n >= s.maxIterations ? '>=' : '<'} ${s.maxIterations})` },
      { text: `Questions stable: ${yesNo(stable)} (count: ${f.stableCount}, need: ${s.stabilityThreshold})`, notes: stableNotes },
      { text: `Low questions: ${yesNo(low)} (${f.openQuestions} ${low ? '<=' : '>'} ${s.questionThreshold})` },
      {
        text: `High confidence: ${yesNo(high)} (${two(f.highConfidenceRatio)} ${high ? '>' : f.highConfidenceRatio === s.confidenceThreshold ? '<=' : '<'} ${two(s.confidenceThreshold)})`,
        notes: [`High: ${last.high}, Medium: ${last.medium}, Open: ${last.open}`],
      },
    ],
    decision: step.stop ? `STOP (${step.stop})` : 'CONTINUE',
  };
}

/** The questions policy's `convergence:` frontmatter block, as `gapflow state --format frontmatter` prints it. */
export function questionsFrontmatter(s: QuestionsSettings, history: readonly QuestionsMetrics[]): string {
  const lines = ['---', 'convergence:'];
  if (history.length === 0) {
    lines.push('  iteration: 0');
  } else {
    const f = questionsFigures(history);
    const step = questionsStep(s, f);
    lines.push(
      `  iteration: ${f.iteration}`,
      `  open_questions_count: ${f.openQuestions}`,
      `  questions_stable_count: ${f.stableCount}`,
      `  high_confidence_ratio: ${two(f.highConfidenceRatio)}`,
      `  verdict: ${step.verdict}`,
      `  reason: ${step.reason}`,
    );
  }
  lines.push('---');
  return `${lines.join('\n')}\n`;
}

const whole = (v: unknown) => (typeof v === 'string' && /^\s*\d+\s*$/.test(v) ? Number(v) : v);

export const questionsRules = policyRules<QuestionsSettings, QuestionsMetrics>({
  name: 'questions',
  summary: 'open questions and confidence per iteration (spec research)',
  settingFlags: {
    preset: 'preset',
    'min-iterations': 'minIterations',
    'max-iterations': 'maxIterations',
    'stability-threshold': 'stabilityThreshold',
    'question-threshold': 'questionThreshold',
    'confidence-threshold': 'confidenceThreshold',
  },
  recordFlags: {
    open: { type: 'string', value: 'whole', placeholder: 'N' },
    high: { type: 'string', value: 'whole', placeholder: 'H' },
    medium: { type: 'string', value: 'whole', placeholder: 'M' },
  },
  fromFlags: (v) => ({ open: whole(v.open), high: whole(v.high), medium: whole(v.medium) }),
  verdict,
  check,
  columns: [
    ['Open', 'openQuestions'],
    ['Stable Count', 'stableCount'],
    ['High-Confidence Ratio', 'highConfidenceRatio'],
  ],
  // An unchanged open count is flat, and it is also how the stability stop
  // counts: with the session's default threshold (2) the loop would stall
  // before the stop could fire. One more than the stability threshold lets
  // the stop come first; an explicit --stall-threshold still wins.
  soloStallThreshold: (s) => s.stabilityThreshold + 1,
  stateFormats: { frontmatter: questionsFrontmatter },
});
