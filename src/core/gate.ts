import type { BodyOf, Decided, Outcome } from '../../events/index.js';
import type { Refuse } from './decide.js';
import type { SessionView } from './view.js';

/*
 * The verification gate: a session started with `verify` completes as done
 * (converged, or approved) only when its command passed, run at that moment.
 * The core never runs it: the edge runs it and records the run as
 * `verification.ran` just before the request that completes, and replay
 * reads that record. A stop that is no claim of done (the round limit, a
 * stop request, a forced completion of a stalled loop, abandoning) is not
 * gated: a broken check must not trap a session that is ending anyway.
 */

/**
 * The `init` flags that set the gate, declared here beside the rule, as a
 * policy declares its own (the CLI names none: atoms' `record` flags happen
 * to share these words), and the time limit without the second.
 */
export const GATE_FLAG = 'verify';
export const GATE_TIMEOUT_FLAG = 'verify-timeout';
export const GATE_DEFAULT_TIMEOUT_SECONDS = 600;

/** The outcomes that say the work is done, which the gate guards. */
export const GATED_OUTCOMES: ReadonlySet<Outcome> = new Set<Outcome>(['CONVERGED', 'GOOD_ENOUGH', 'USER_APPROVED']);

/** What the decided events would complete that the gate guards: the close or approval it gates; null when nothing. */
export function gatedCompletion(view: SessionView, decided: readonly Decided[]): 'round_close' | 'approve' | null {
  if (view.settings?.verify === undefined) return null;
  for (const fact of decided) {
    if (fact.type !== 'round.closed' && fact.type !== 'decision.made') continue;
    const { machine } = fact.data.outcome;
    if (machine.state === 'COMPLETE' && machine.outcome !== null && GATED_OUTCOMES.has(machine.outcome))
      return fact.type === 'round.closed' ? 'round_close' : 'approve';
  }
  return null;
}

/** The run recorded just now (the log's last event), if the last event is one. */
export function freshRun(view: SessionView): SessionView['verification'] {
  return view.verification !== null && view.verification.seq === view.lastSeq ? view.verification : null;
}

/** A run in words: `exit 1 after 2.1 s`, `timed out after 30 s`. */
export function runWords(run: NonNullable<SessionView['verification']>): string {
  if (run.timedOut) return `timed out after ${formatSeconds(run.durationMs)}`;
  return run.exitCode === null
    ? `could not run or was killed after ${formatSeconds(run.durationMs)}`
    : `exit ${run.exitCode} after ${formatSeconds(run.durationMs)}`;
}

/**
 * Refuses `decided` when it completes a gated session as done and the log's
 * last event is not a passing run of its check: `run_verification`, so the
 * edge runs it and tries again; after a failing run, the refusal says how it
 * failed and that the session stays where it is.
 */
export function refuseUnverified(view: SessionView, decided: readonly Decided[], refuse: Refuse): void {
  const gates = gatedCompletion(view, decided);
  if (gates === null) return;
  const run = freshRun(view);
  if (run?.passed) return;
  const command = view.settings!.verify!.command;
  if (run !== null) {
    // The state, not the round: a batch that starts the round it closes leaves none open when it is refused.
    refuse(`the verification check failed (${runWords(run)}): ${command}; the session stays ${view.machine.state} until it passes`, 'run_verification');
  }
  refuse(
    `this session completes only when its verification check passes (${command}); the check runs just before (gapflow's commands run it themselves)`,
    'run_verification',
  );
}

/** A `verification.ran` request: only in a session with a gate, and for its own command. */
export function decideVerification(view: SessionView, body: BodyOf<'verification.ran'>, refuse: Refuse): Decided[] {
  const gate = view.settings?.verify;
  if (gate === undefined) refuse('this session has no verification check (set one at init with --verify)');
  if (body.data.command !== gate.command)
    refuse(`the session's verification check is ${JSON.stringify(gate.command)}, not ${JSON.stringify(body.data.command.slice(0, 200))}`);
  return [body];
}

/** Milliseconds as people read a duration: `7 ms`, `2.1 s`, `95 s`. */
export function formatSeconds(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const seconds = ms / 1000;
  return `${seconds < 10 ? Number(seconds.toFixed(1)) : Math.round(seconds)} s`;
}

/**
 * Metrics whose record would close the round and complete the session
 * right after a failing run: recorded, and the round left open (the run
 * says why); the close waits for a check that passes.
 */
export function withoutUnverifiedClose(view: SessionView, decided: Decided[]): Decided[] {
  const run = freshRun(view);
  if (run === null || run.passed || gatedCompletion(view, decided) !== 'round_close') return decided;
  return decided.filter((fact) => fact.type !== 'round.closed');
}
