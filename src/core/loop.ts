import type { Severity } from '../../events/index.js';
import type { ConvergenceState, Outcome } from '../../machines/index.js';
import {
  closedRoundCount,
  isOpen,
  nextRoundIsLast,
  nextStep,
  type NextAction,
  metricPoliciesOf,
  roundLimit,
  alternatingOpenCount,
  pingPongGaps,
  claimedGaps,
  type AlternatingOpenCount,
  type PingPongGap,
} from './read-model.js';
import { LISTED_GAPS, SEVERITIES } from './rules.js';
import type { SessionView } from './view.js';
import type { AgentRequest } from '../policies/index.js';

/** An agent's own request to end the loop (atoms' redirect or stop request), as a policy's metrics carry it. */
export type StopRequest = AgentRequest;

/** The request an enabled policy's latest metrics carry, with the round it was recorded for; the first policy that has one. */
export function agentStopRequest(view: Pick<SessionView, 'policies'>): { request: StopRequest; round: number } | undefined {
  for (const policy of metricPoliciesOf(view.policies.enabled)) {
    const records = view.policies.records.get(policy.name) ?? [];
    const request = policy.agentRequest?.(
      view.policies.settings.get(policy.name),
      records.map((r) => r.metrics),
    );
    if (request) return { request, round: records.at(-1)!.round };
  }
  return undefined;
}

/**
 * The agent's request to stop or redirect that still stands: the atoms
 * policy's latest iteration asked for it, and no decision has been made
 * since (a user's answer to the warning it raised spends it; pause and
 * resume do not).
 */
export function standingStopRequest(view: SessionView): StopRequest | undefined {
  const standing = agentStopRequest(view);
  if (!standing) return undefined;
  const answered = view.decisions.some((d) => d.afterRound >= standing.round && d.kind !== 'pause' && d.kind !== 'resume');
  return answered ? undefined : standing.request;
}

/** The loop's next move, for any framework: `gapflow next --json` and the hooks. */
export interface LoopStep {
  action: NextAction;
  reason: string;
  state: ConvergenceState;
  outcome: Outcome | null;
  /** Rounds closed so far; the next round to start is `round + 1`. */
  round: number;
  roundOpen: boolean;
  /** The round limit that applies (R12; extensions included, R24); null where each policy's own maximum applies. */
  maxRounds: number | null;
  /** R24: the next round to close (the open one, or the next to start) is the last the limit allows. */
  lastRound: boolean;
  focus: string[];
  /** Ids of the gaps in an open state (not deferred, not closed), by severity: the first LISTED_GAPS of them, most severe first, as recorded. */
  openGaps: Record<Severity, string[]>;
  /** The gaps in an open state beyond those `openGaps` names (0 when it names them all). */
  openGapsNotListed: number;
  openGapCount: number;
  weightedOpen: number;
  stopRequest: StopRequest | null;
  /** Fix-break cycles, named as causes: the gaps still to work on that were reopened the session's ping-pong threshold of times or more. */
  pingPong: PingPongGap[];
  /** The open count alternating between two values over the last four round closes; null when it does not. */
  openCountAlternating: AlternatingOpenCount | null;
  /** Claims a tool disputes: gaps closed by hand as fixed that their source's last snapshot still reported (reopened), still open. */
  claimedStillReported: string[];
  /** The verification gate: its command, and its last run (null before one); null for a session without a gate. */
  verification: VerificationState | null;
}

/** The verification gate as `next --json` shows it. */
export interface VerificationState {
  command: string;
  timeoutSeconds: number;
  lastRun: {
    afterRound: number;
    gates: 'round_close' | 'approve';
    passed: boolean;
    exitCode: number | null;
    durationMs: number;
    timedOut: boolean;
    output: string;
  } | null;
}

function verificationState(view: SessionView): VerificationState | null {
  const gate = view.settings?.verify;
  if (gate === undefined) return null;
  const run = view.verification;
  const lastRun =
    run === null
      ? null
      : {
          afterRound: run.afterRound,
          gates: run.gates,
          passed: run.passed,
          exitCode: run.exitCode,
          durationMs: run.durationMs,
          timedOut: run.timedOut,
          output: run.output,
        };
  return { command: gate.command, timeoutSeconds: gate.timeoutSeconds, lastRun };
}

/**
 * The first LISTED_GAPS gaps in an open state, by severity (most severe
 * first, then as recorded), and how many more are open: a head keeps those
 * first ones and counts the rest, so the answer is the same from either.
 */
export function openGapsBySeverity(view: SessionView): { bySeverity: Record<Severity, string[]>; notListed: number } {
  const bySeverity = Object.fromEntries(SEVERITIES.map((s) => [s, [] as string[]])) as Record<Severity, string[]>;
  for (const gap of view.gaps.values()) if (isOpen(gap)) bySeverity[gap.severity].push(gap.id);
  let room = LISTED_GAPS;
  let notListed = view.gapsLeftOut.open;
  for (const severity of SEVERITIES) {
    const ids = bySeverity[severity];
    if (ids.length > room) {
      notListed += ids.length - room;
      bySeverity[severity] = ids.slice(0, room);
    }
    room -= bySeverity[severity].length;
  }
  return { bySeverity, notListed };
}

function openGapsOf(view: SessionView): Pick<LoopStep, 'openGaps' | 'openGapsNotListed'> {
  const { bySeverity, notListed } = openGapsBySeverity(view);
  return { openGaps: bySeverity, openGapsNotListed: notListed };
}

/**
 * The loop's stop order: a redirect or stop the agent asked for comes first
 * (stop), then the session's own state (`nextStep`): COMPLETE and PAUSED stop,
 * DIVERGENCE_WARNING asks the user, CONVERGING and FLAT continue.
 */
export function loopStep(view: SessionView, stopRequest?: StopRequest): LoopStep {
  const base = nextStep(view);
  const step = stopRequest
    ? { action: 'stop' as const, reason: `${stopRequest.kind === 'redirect' ? 'redirect' : 'stop'} requested: ${stopRequest.reason}` }
    : base;
  return {
    ...step,
    state: view.machine.state,
    outcome: view.machine.outcome,
    round: closedRoundCount(view),
    roundOpen: view.roundOpen,
    maxRounds: roundLimit(view),
    lastRound: view.machine.state !== 'COMPLETE' && nextRoundIsLast(view),
    focus: [...view.focus],
    ...openGapsOf(view),
    openGapCount: view.open.count,
    weightedOpen: view.open.weighted,
    stopRequest: stopRequest ?? null,
    pingPong: pingPongGaps(view),
    openCountAlternating: alternatingOpenCount(view),
    claimedStillReported: claimedGaps(view),
    verification: verificationState(view),
  };
}
