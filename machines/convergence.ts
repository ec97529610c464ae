import { assign, setup } from 'xstate';
import type { Outcome, ResumableState, Verdict } from '../events/index.js';

// The machine's words are the event vocabulary's: a round close records the state it reached.
export { CONVERGENCE_STATES, VERDICTS } from '../events/index.js';
export type { ConvergenceState, Outcome, ResumableState, Verdict } from '../events/index.js';

/** The thresholds a session runs under (seed 003 "Threshold Configuration"). */
export interface ConvergenceConfig {
  stallThreshold: number;
  divergenceThreshold: number;
  maxRounds: number;
  criticalOverride: boolean;
}

export interface ConvergenceContext extends ConvergenceConfig {
  flatCount: number;
  outcome: Outcome | null;
  pausedFrom: ResumableState | null;
}

/** The combined verdict of a round's policies, with the reason code of the policy that decided it. */
export interface RoundVerdict {
  verdict: Verdict;
  reason: string;
}

/** What the projection tells the machine when a round closes: only figures it derived from events. */
export interface RoundClosedEvent {
  type: 'ROUND_CLOSED';
  round: number;
  weightedNet: number;
  openCount: number;
  /** A gap was opened, reopened or escalated as CRITICAL this round (RULINGS R5). */
  criticalIntroduced: boolean;
  /**
   * The combined verdict of every enabled policy, gaps included, when the
   * session runs any policy besides gaps. Absent in a gaps-only session,
   * where the gap guards read the figures themselves, as they always have.
   */
  verdict?: RoundVerdict;
}

export type ConvergenceEvent =
  | RoundClosedEvent
  | { type: 'NARROW_SCOPE' }
  | { type: 'ACCEPT_COMPLEXITY' }
  | { type: 'PRIORITIZE_CRITICAL' }
  | { type: 'PAUSE' }
  | { type: 'RESUME' }
  | { type: 'FORCE_COMPLETE' }
  | { type: 'ABANDON' }
  | { type: 'APPROVE'; openCriticalOrHigh: number };

/**
 * Every way a round close can go, in priority order: an empty inventory ends
 * the session (R12) before the round limit does (R12), and both beat the
 * round's own verdict; a CRITICAL introduction (R5) and divergence (R2) beat
 * progress; a flat round either stalls (R1) or counts toward a stall.
 */
const roundClosed = [
  {
    guard: 'nothingLeftOpen',
    target: 'COMPLETE',
    actions: { type: 'recordOutcome', params: { outcome: 'CONVERGED' } },
  },
  {
    guard: 'lastRoundClosed',
    target: 'COMPLETE',
    actions: { type: 'recordOutcome', params: { outcome: 'MAX_ROUNDS' } },
  },
  { guard: 'criticalIntroduced', target: 'DIVERGENCE_WARNING' },
  { guard: 'weightedNetBelowDivergence', target: 'DIVERGENCE_WARNING' },
  { guard: 'weightedNetPositive', target: 'CONVERGING', actions: 'resetFlatCount' },
  // With policies besides gaps, their combined verdict (src/policies) decides instead; one verdict, one branch.
  {
    guard: 'policiesConverged',
    target: 'COMPLETE',
    actions: { type: 'recordOutcome', params: { outcome: 'CONVERGED' } },
  },
  {
    guard: 'policyStopRequested',
    target: 'COMPLETE',
    actions: { type: 'recordOutcome', params: { outcome: 'STOPPED' } },
  },
  {
    guard: 'policyLimitReached',
    target: 'COMPLETE',
    actions: { type: 'recordOutcome', params: { outcome: 'MAX_ROUNDS' } },
  },
  { guard: 'policiesDiverging', target: 'DIVERGENCE_WARNING' },
  { guard: 'policiesProgressing', target: 'CONVERGING', actions: 'resetFlatCount' },
  { guard: 'flatCountReachesStall', target: 'STALLED', actions: 'countFlatRound' },
  { target: 'FLAT', actions: 'countFlatRound' },
] as const;

const recover = { target: 'CONVERGING', actions: 'resetFlatCount' } as const;
const abandon = {
  target: 'COMPLETE',
  actions: { type: 'recordOutcome', params: { outcome: 'ABANDONED' } },
} as const;
const pauseFrom = (state: ResumableState) =>
  ({ target: 'PAUSED', actions: { type: 'rememberPausedFrom', params: { state } } }) as const;
const approve = [
  {
    guard: 'nothingSevereOpen',
    target: 'COMPLETE',
    actions: { type: 'recordOutcome', params: { outcome: 'GOOD_ENOUGH' } },
  },
  { target: 'COMPLETE', actions: { type: 'recordOutcome', params: { outcome: 'USER_APPROVED' } } },
] as const;

/** A round close the gap guards judge: one without a combined verdict (a gaps-only session). */
function gapsDecide(event: ConvergenceEvent): event is RoundClosedEvent {
  return event.type === 'ROUND_CLOSED' && event.verdict === undefined;
}

function verdictOf(event: ConvergenceEvent): Verdict | null {
  return event.type === 'ROUND_CLOSED' ? (event.verdict?.verdict ?? null) : null;
}

export const convergenceMachine = setup({
  types: {
    context: {} as ConvergenceContext,
    events: {} as ConvergenceEvent,
    input: {} as ConvergenceConfig,
  },
  guards: {
    nothingLeftOpen: ({ event }) => gapsDecide(event) && event.openCount === 0,
    lastRoundClosed: ({ context, event }) => gapsDecide(event) && event.round >= context.maxRounds,
    criticalIntroduced: ({ context, event }) => gapsDecide(event) && context.criticalOverride && event.criticalIntroduced,
    weightedNetBelowDivergence: ({ context, event }) => gapsDecide(event) && event.weightedNet < -context.divergenceThreshold,
    weightedNetPositive: ({ event }) => gapsDecide(event) && event.weightedNet > 0,
    policiesConverged: ({ event }) => verdictOf(event) === 'converged',
    policyStopRequested: ({ event }) =>
      verdictOf(event) === 'limit' && event.type === 'ROUND_CLOSED' && event.verdict?.reason === 'stop_requested',
    policyLimitReached: ({ event }) => verdictOf(event) === 'limit',
    policiesDiverging: ({ event }) => verdictOf(event) === 'diverging',
    policiesProgressing: ({ event }) => verdictOf(event) === 'progress',
    flatCountReachesStall: ({ context }) => context.flatCount + 1 >= context.stallThreshold,
    nothingSevereOpen: ({ event }) => event.type === 'APPROVE' && event.openCriticalOrHigh === 0,
    pausedFromFlat: ({ context }) => context.pausedFrom === 'FLAT',
    pausedFromDivergence: ({ context }) => context.pausedFrom === 'DIVERGENCE_WARNING',
  },
  actions: {
    countFlatRound: assign({ flatCount: ({ context }) => context.flatCount + 1 }),
    resetFlatCount: assign({ flatCount: 0 }),
    recordOutcome: assign((_, params: { outcome: Outcome }) => ({ outcome: params.outcome })),
    rememberPausedFrom: assign((_, params: { state: ResumableState }) => ({ pausedFrom: params.state })),
    forgetPausedFrom: assign({ pausedFrom: null }),
  },
}).createMachine({
  id: 'convergence',
  initial: 'CONVERGING',
  context: ({ input }) => ({ ...input, flatCount: 0, outcome: null, pausedFrom: null }),
  states: {
    CONVERGING: {
      description: 'Weighted progress each round; the loop goes on.',
      on: { ROUND_CLOSED: roundClosed, PAUSE: pauseFrom('CONVERGING'), ABANDON: abandon, APPROVE: approve },
    },
    FLAT: {
      description: 'No weighted progress for flat_count consecutive rounds, fewer than stall_threshold.',
      on: { ROUND_CLOSED: roundClosed, PAUSE: pauseFrom('FLAT'), ABANDON: abandon, APPROVE: approve },
    },
    STALLED: {
      description: 'stall_threshold flat rounds in a row; recorded, then straight on to the warning.',
      always: { target: 'DIVERGENCE_WARNING' },
    },
    DIVERGENCE_WARNING: {
      description: 'The user must decide before another round can start.',
      on: {
        NARROW_SCOPE: recover,
        ACCEPT_COMPLEXITY: recover,
        PRIORITIZE_CRITICAL: recover,
        FORCE_COMPLETE: {
          target: 'COMPLETE',
          actions: { type: 'recordOutcome', params: { outcome: 'STALL_EXIT' } },
        },
        PAUSE: pauseFrom('DIVERGENCE_WARNING'),
        ABANDON: abandon,
      },
    },
    PAUSED: {
      description: 'Saved for later; resume returns to the state it was paused in.',
      on: {
        RESUME: [
          { guard: 'pausedFromFlat', target: 'FLAT', actions: 'forgetPausedFrom' },
          { guard: 'pausedFromDivergence', target: 'DIVERGENCE_WARNING', actions: 'forgetPausedFrom' },
          { target: 'CONVERGING', actions: 'forgetPausedFrom' },
        ],
        ABANDON: abandon,
      },
    },
    COMPLETE: {
      description: 'Final: the outcome says how the session ended.',
      type: 'final',
    },
  },
});
