import { assign, setup } from 'xstate';
import type { Outcome, RoundKind, Verdict } from '../events/index.js';

// The machine's words are the event vocabulary's: a round close records the state it reached.
export { CONVERGENCE_STATES, VERDICTS } from '../events/index.js';
export type { ConvergenceState, Outcome, ResumableState, Verdict } from '../events/index.js';

/** The thresholds a session runs under (docs/rules.md#thresholds-and-presets). */
export interface ConvergenceConfig {
  stallThreshold: number;
  divergenceThreshold: number;
  maxRounds: number;
  criticalOverride: boolean;
}

/** What the machine itself needs of the thresholds: the policies and R12 judged the rest into the verdict. */
export type MachineInput = Pick<ConvergenceConfig, 'stallThreshold'>;

export interface ConvergenceContext extends MachineInput {
  flatCount: number;
  outcome: Outcome | null;
}

/** The round's combined verdict (every enabled policy's, round limit applied), with the reason code that decided it. */
export interface RoundVerdict {
  verdict: Verdict;
  reason: string;
}

/** What the machine hears when a round closes: the one verdict its guards read (the round's number is for whoever watches). */
export interface RoundClosedEvent {
  type: 'ROUND_CLOSED';
  round: number;
  verdict: RoundVerdict;
  /** R25: what the round was for; left out, a work round. A flat round of another kind is not counted toward a stall. */
  kind?: RoundKind;
}

export type ConvergenceEvent =
  | RoundClosedEvent
  | { type: 'NARROW_SCOPE' }
  | { type: 'ACCEPT_COMPLEXITY' }
  | { type: 'PRIORITIZE_CRITICAL' }
  | { type: 'PRIORITIZE' }
  | { type: 'EXTEND_ROUNDS' }
  | { type: 'PAUSE' }
  | { type: 'RESUME' }
  | { type: 'FORCE_COMPLETE' }
  | { type: 'ABANDON' }
  | { type: 'APPROVE'; openCriticalOrHigh: number };

/**
 * The transition to COMPLETE that records each outcome. A table, not a
 * helper that builds one: the machine is made when this module loads, and
 * loading it should run none of gapflow's own functions (a gap write loads
 * it and never steps it).
 */
const complete = {
  CONVERGED: { target: '#COMPLETE', actions: { type: 'recordOutcome', params: { outcome: 'CONVERGED' } } },
  STOPPED: { target: '#COMPLETE', actions: { type: 'recordOutcome', params: { outcome: 'STOPPED' } } },
  MAX_ROUNDS: { target: '#COMPLETE', actions: { type: 'recordOutcome', params: { outcome: 'MAX_ROUNDS' } } },
  GOOD_ENOUGH: { target: '#COMPLETE', actions: { type: 'recordOutcome', params: { outcome: 'GOOD_ENOUGH' } } },
  USER_APPROVED: { target: '#COMPLETE', actions: { type: 'recordOutcome', params: { outcome: 'USER_APPROVED' } } },
  STALL_EXIT: { target: '#COMPLETE', actions: { type: 'recordOutcome', params: { outcome: 'STALL_EXIT' } } },
  ABANDONED: { target: '#COMPLETE', actions: { type: 'recordOutcome', params: { outcome: 'ABANDONED' } } },
} as const satisfies Record<Outcome, { target: '#COMPLETE'; actions: { type: 'recordOutcome'; params: { outcome: Outcome } } }>;

/**
 * How a round close goes, from its verdict alone: the policies (src/policies)
 * and the round limit (R12) already decided it; only the stall (R1) is the
 * machine's own count.
 */
const roundClosed = [
  { guard: 'roundConverged', ...complete.CONVERGED },
  { guard: 'stopRequested', ...complete.STOPPED },
  { guard: 'roundLimitReached', ...complete.MAX_ROUNDS },
  { guard: 'roundDiverged', target: '#DIVERGENCE_WARNING' },
  { guard: 'roundProgressed', target: '#CONVERGING', actions: 'resetFlatCount' },
  // R25: a flat review or consolidation round neither raises nor resets flat_count: the state stays.
  { guard: 'flatRoundNotWork', actions: 'keepState' },
  { guard: 'flatCountReachesStall', target: '#STALLED', actions: 'countFlatRound' },
  { target: '#FLAT', actions: 'countFlatRound' },
] as const;

const recover = { target: '#CONVERGING', actions: 'resetFlatCount' } as const;

const verdictIs = (event: ConvergenceEvent, verdict: Verdict) => event.type === 'ROUND_CLOSED' && event.verdict.verdict === verdict;

/*
 * States nest by what they allow: a session that has not ended (ONGOING) can
 * be abandoned; one that is not paused (ACTIVE) can be paused, and resumes
 * through its history state where it was; one whose rounds run (LOOPING) can
 * close a round or be approved. Each leaf keeps the name the log records.
 */
function build() {
  return setup({
    types: {
      context: {} as ConvergenceContext,
      events: {} as ConvergenceEvent,
      input: {} as MachineInput,
    },
    guards: {
      roundConverged: ({ event }) => verdictIs(event, 'converged'),
      stopRequested: ({ event }) => verdictIs(event, 'stopped'),
      roundLimitReached: ({ event }) => verdictIs(event, 'limit'),
      roundDiverged: ({ event }) => verdictIs(event, 'diverging'),
      roundProgressed: ({ event }) => verdictIs(event, 'progress'),
      flatRoundNotWork: ({ event }) => verdictIs(event, 'flat') && event.type === 'ROUND_CLOSED' && event.kind !== undefined && event.kind !== 'work',
      flatCountReachesStall: ({ context }) => context.flatCount + 1 >= context.stallThreshold,
      nothingSevereOpen: ({ event }) => event.type === 'APPROVE' && event.openCriticalOrHigh === 0,
    },
    actions: {
      countFlatRound: assign({ flatCount: ({ context }) => context.flatCount + 1 }),
      resetFlatCount: assign({ flatCount: 0 }),
      recordOutcome: assign((_, params: { outcome: Outcome }) => ({ outcome: params.outcome })),
      // Taken where the session is, state and flat count as they were: a decision whose effect is the session's, not the
      // machine's (a higher round limit, a focus), or a flat round that is not work (R25). Named, so the step is one XState takes.
      keepState: () => undefined,
    },
  }).createMachine({
    id: 'convergence',
    initial: 'ONGOING',
    context: ({ input }) => ({ stallThreshold: input.stallThreshold, flatCount: 0, outcome: null }),
    states: {
      ONGOING: {
        initial: 'ACTIVE',
        on: { ABANDON: complete.ABANDONED, EXTEND_ROUNDS: { actions: 'keepState' } },
        states: {
          ACTIVE: {
            initial: 'LOOPING',
            on: { PAUSE: '#PAUSED' },
            states: {
              LOOPING: {
                initial: 'CONVERGING',
                on: {
                  ROUND_CLOSED: roundClosed,
                  APPROVE: [{ guard: 'nothingSevereOpen', ...complete.GOOD_ENOUGH }, complete.USER_APPROVED],
                  PRIORITIZE: { actions: 'keepState' },
                },
                states: {
                  CONVERGING: { id: 'CONVERGING', description: 'Weighted progress each round; the loop goes on.' },
                  FLAT: { id: 'FLAT', description: 'No progress for flat_count consecutive rounds, fewer than stall_threshold.' },
                },
              },
              STALLED: {
                id: 'STALLED',
                description: 'stall_threshold flat rounds in a row; recorded, then straight on to the warning.',
                always: { target: '#DIVERGENCE_WARNING' },
              },
              DIVERGENCE_WARNING: {
                id: 'DIVERGENCE_WARNING',
                description: 'The user must decide before another round can start.',
                on: {
                  NARROW_SCOPE: recover,
                  ACCEPT_COMPLEXITY: recover,
                  PRIORITIZE_CRITICAL: recover,
                  PRIORITIZE: recover,
                  FORCE_COMPLETE: complete.STALL_EXIT,
                },
              },
              RESUMED: { id: 'RESUMED', type: 'history', history: 'deep' },
            },
          },
          PAUSED: {
            id: 'PAUSED',
            description: 'Saved for later; resume returns to the state it was paused in.',
            on: { RESUME: '#RESUMED' },
          },
        },
      },
      COMPLETE: {
        id: 'COMPLETE',
        description: 'Final: the outcome says how the session ended.',
        type: 'final',
      },
    },
  });
}

/** The convergence statechart's type: what `convergence()` returns. */
export type ConvergenceMachine = ReturnType<typeof build>;

let built: ConvergenceMachine | undefined;

/**
 * The convergence statechart, built on first use and then kept: building it
 * costs a call ~1.5 ms, and a gap write never steps it. The package's door
 * (src/api) exports it built, as `convergenceMachine`.
 */
export function convergence(): ConvergenceMachine {
  built ??= build();
  return built;
}
