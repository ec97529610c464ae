import { yesNo } from '../tree.js';
import { policyRules, type AgentRequest, type CheckTree, type Figure, type PolicyVerdict } from '../types.js';
import type { AtomsSettings, AtomsMetrics } from './schema.js';

export type { AtomsSettings, AtomsMetrics } from './schema.js';

export type AtomsProgress = 'progress' | 'stall' | 'expansion';

export interface AtomsFigures {
  iteration: number;
  pending: number;
  resolved: number;
  previousPending: number | null;
  /** Atoms' progress evaluation; the first iteration counts as progress. */
  progress: AtomsProgress;
  /** Consecutive stalled or expanding iterations (an expansion counts as a stall). */
  stallCount: number;
  baseCase: boolean;
}

function evaluate(prev: number | null, curr: number): AtomsProgress {
  if (prev === null || curr < prev) return 'progress';
  return curr === prev ? 'stall' : 'expansion';
}

/** The base case is externally verified when a command was given (exit 0); without one, nothing pending is the base case. */
function baseCase(m: AtomsMetrics): boolean {
  return m.verify ? m.verify.exitCode === 0 : m.pending === 0;
}

export function atomsFigures(history: readonly AtomsMetrics[]): AtomsFigures {
  let stallCount = 0;
  let progress: AtomsProgress = 'progress';
  history.forEach((m, i) => {
    progress = evaluate(i === 0 ? null : history[i - 1]!.pending, m.pending);
    stallCount = progress === 'progress' ? 0 : stallCount + 1;
  });
  const last = history.at(-1)!;
  return {
    iteration: history.length,
    pending: last.pending,
    resolved: last.resolved,
    previousPending: history.at(-2)?.pending ?? null,
    progress,
    stallCount,
    baseCase: baseCase(last),
  };
}

type Step = Pick<PolicyVerdict, 'verdict' | 'reason' | 'detail'> & { stop: string | null };

/**
 * What the check tree says at max_stall_count. Atoms as first described stopped there; gapflow
 * does not end a session on a stall on its own: the stall is flat rounds
 * reaching the stall threshold (atoms alone: max_stall_count), and the
 * session asks the user (DIVERGENCE_WARNING), so the tree says the same.
 */
const AT_STALL_LIMIT = 'ASK USER (max_stall_count reached: a stall; the session waits for the user to decide)';

/** Atoms' stop conditions in priority order: redirect, manual stop, base case, stall, iteration limit; then the progress evaluation. */
function atomsStep(s: AtomsSettings, last: AtomsMetrics, f: AtomsFigures): Step {
  if (last.redirectRequested) {
    return { verdict: 'diverging', reason: 'redirect_requested', detail: 'redirect requested: the loop is interrupted for a new direction', stop: 'redirect' };
  }
  if (last.stopRequested) return { verdict: 'stopped', reason: 'stop_requested', detail: 'manual stop requested', stop: 'manual stop' };
  if (f.baseCase) {
    const how = last.verify ? `verify \`${last.verify.command}\` exited 0` : 'no atoms pending';
    return { verdict: 'converged', reason: 'base_case', detail: `base case satisfied: ${how}`, stop: 'completion' };
  }
  if (f.stallCount >= s.maxStallCount) {
    return { verdict: 'flat', reason: 'max_stall_count', detail: `stall_count ${f.stallCount} >= max_stall_count ${s.maxStallCount}`, stop: null };
  }
  if (f.iteration >= s.maxIterations) {
    return {
      verdict: 'limit',
      reason: 'max_iterations',
      detail: `iteration ${f.iteration} >= max_iterations ${s.maxIterations}`,
      stop: 'max_iterations reached',
    };
  }
  if (f.previousPending === null) return { verdict: 'progress', reason: 'first_iteration', detail: `first iteration: ${f.pending} pending`, stop: null };
  const moved = `pending ${f.previousPending} -> ${f.pending}`;
  if (f.progress === 'progress') return { verdict: 'progress', reason: 'dag_shrinking', detail: `${moved}: the DAG is shrinking`, stop: null };
  const stall = `stall_count ${f.stallCount}/${s.maxStallCount}`;
  if (f.progress === 'stall') return { verdict: 'flat', reason: 'dag_stalled', detail: `${moved}: stalled, ${stall}`, stop: null };
  return { verdict: 'flat', reason: 'dag_expanding', detail: `${moved}: expanding (over-decomposition counts as a stall), ${stall}`, stop: null };
}

function verdict(s: AtomsSettings, history: readonly AtomsMetrics[]): PolicyVerdict {
  const f = atomsFigures(history);
  const last = history.at(-1)!;
  const { stop: _stop, ...step } = atomsStep(s, last, f);
  const verify: Record<string, Figure> = last.verify
    ? {
        verifyCommand: last.verify.command,
        verifyExitCode: last.verify.exitCode,
        verifyMs: Math.round(last.verify.durationMs),
        verifyTimedOut: last.verify.timedOut,
      }
    : {};
  return { ...step, figures: { ...f, stopRequested: last.stopRequested, redirectRequested: last.redirectRequested, ...verify } };
}

function check(s: AtomsSettings, history: readonly AtomsMetrics[]): CheckTree {
  const f = atomsFigures(history);
  const last = history.at(-1)!;
  const step = atomsStep(s, last, f);
  const base = last.verify
    ? `verify \`${last.verify.command}\`: ${last.verify.timedOut ? 'timed out' : `exit ${last.verify.exitCode ?? 'none (killed)'}`} in ${Math.round(last.verify.durationMs)} ms`
    : `pending ${f.pending}${f.pending === 0 ? ' = 0' : ' > 0'}, no verify command`;
  const prev = f.previousPending === null ? 'first iteration' : `pending ${f.pending}, previous ${f.previousPending}`;
  return {
    iteration: f.iteration,
    lines: [
      { text: `Redirect requested: ${yesNo(last.redirectRequested)}` },
      { text: `Stop requested: ${yesNo(last.stopRequested)}` },
      { text: `Base case: ${yesNo(f.baseCase)} (${base})` },
      { text: `Progress: ${f.progress.toUpperCase()} (${prev})`, notes: [`Resolved: ${f.resolved}`] },
      { text: `Stall limit: ${yesNo(f.stallCount >= s.maxStallCount)} (stall_count ${f.stallCount}, max ${s.maxStallCount})` },
      { text: `Maximum reached: ${yesNo(f.iteration >= s.maxIterations)} (${f.iteration} ${f.iteration >= s.maxIterations ? '>=' : '<'} ${s.maxIterations})` },
    ],
    // A redirect interrupts the loop for a new direction; it is not a stop.
    decision: step.reason === 'max_stall_count' ? AT_STALL_LIMIT : step.stop ? `${last.redirectRequested ? 'INTERRUPT' : 'STOP'} (${step.stop})` : 'CONTINUE',
  };
}

/** The agent's requests, read from the latest iteration: a redirect (an interrupt) or a manual stop, or nothing. */
function agentRequest(history: readonly AtomsMetrics[]): AgentRequest | undefined {
  const latest = history.at(-1);
  if (latest?.redirectRequested) return { kind: 'redirect', reason: 'redirect_requested: the loop is interrupted for a new direction' };
  if (latest?.stopRequested) return { kind: 'stop', reason: 'stop_requested: manual stop' };
  return undefined;
}

const whole = (v: unknown) => (typeof v === 'string' && /^\s*\d+\s*$/.test(v) ? Number(v) : v);

export const atomsRules = policyRules<AtomsSettings, AtomsMetrics>({
  name: 'atoms',
  summary: 'pending and resolved atoms of a shrinking DAG, stop and redirect flags, a verified base case',
  settingFlags: { 'max-stall-count': 'maxStallCount', 'max-iterations': 'maxIterations' },
  recordFlags: {
    pending: { type: 'string', value: 'whole', placeholder: 'P' },
    resolved: { type: 'string', value: 'whole', placeholder: 'R' },
    'stop-requested': { type: 'boolean' },
    'redirect-requested': { type: 'boolean' },
  },
  fromFlags: (v) => ({
    pending: whole(v.pending),
    resolved: whole(v.resolved),
    stopRequested: v['stop-requested'] === true,
    redirectRequested: v['redirect-requested'] === true,
  }),
  verdict,
  check,
  columns: [
    ['Pending', 'pending'],
    ['Resolved', 'resolved'],
    ['Progress', 'progress'],
    ['Stall Count', 'stallCount'],
    ['Base Case', 'baseCase'],
  ],
  soloStallThreshold: (s) => s.maxStallCount,
  agentRequest: (_settings, history) => agentRequest(history),
  // Atoms' externally verified base case: the command's exit status decides it, so it runs once, at the edge.
  recordCommand: {
    flag: 'verify',
    timeoutFlag: 'verify-timeout',
    defaultTimeoutSeconds: 300,
    withRun: (metrics, run) => ({ ...metrics, verify: run }),
  },
});
