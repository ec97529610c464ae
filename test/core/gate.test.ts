import { describe, expect, it } from 'vitest';
import { loopStep, nextStep } from '../../src/core/index.js';
import type { BodyInputOf } from '../../events/index.js';
import { closeRound, decision, given, metrics, open, resolve, round, start, startRound } from './given.js';

/*
 * The verification gate: a session started with `verify` completes as done
 * (converged by its rounds, or approved) only when a passing run of its
 * check is the log's last event. The core never runs the command: the edge
 * records the run (`verification.ran`) and the core reads it. A failing run
 * leaves the session where it was; stops that claim nothing is done (the
 * round limit, a forced completion, abandoning) are not gated.
 */

const CHECK = 'npm test';
const gated = (extra: BodyInputOf<'session.started'>['data'] = {}) => start({ verify: { command: CHECK, timeoutSeconds: 60 }, ...extra });
const ran = (
  exitCode: number | null,
  extra: { timedOut?: boolean; gates?: 'round_close' | 'approve'; output?: string } = {},
): BodyInputOf<'verification.ran'> => ({
  type: 'verification.ran',
  data: { command: CHECK, exitCode, durationMs: 1200, timedOut: extra.timedOut ?? false, output: extra.output ?? '', gates: extra.gates ?? 'round_close' },
});

/** One LOW gap, resolved in round 1, which is left open: closing it would converge. */
const readyToConverge = () => given(gated(), open('A', 'LOW'), startRound(1), resolve('A'));

describe('the verification gate', () => {
  it('a close that would converge is refused until the check has run, asking the edge to run it', () => {
    readyToConverge()
      .when(closeRound(1))
      .thenRefuses(/completes only when its verification check passes \(npm test\)/, 'run_verification');
  });

  it('a passing run just before it lets the close complete the session as converged', () => {
    readyToConverge()
      .and(ran(0))
      .when(closeRound(1))
      .then([{ type: 'round.closed', data: { round: 1, outcome: { machine: { state: 'COMPLETE', outcome: 'CONVERGED' } } } }]);
  });

  it('a failing run keeps the session live, the round open, and the refusal says how the check failed', () => {
    const failed = readyToConverge().and(ran(1, { output: 'FAIL test/a.test.ts' }));
    failed
      .when(closeRound(1))
      .thenRefuses(/the verification check failed \(exit 1 after 1\.2 s\): npm test; the session stays CONVERGING until it passes/, 'run_verification');
    expect(failed.view.machine.state).toBe('CONVERGING');
    expect(failed.view.roundOpen).toBe(true);
    expect(failed.view.verification).toMatchObject({ passed: false, exitCode: 1, output: 'FAIL test/a.test.ts', afterRound: 0 });
    expect(nextStep(failed.view).reason).toContain(
      'the verification check failed (exit 1 after 1.2 s), so the session did not complete: fix what it reports, then close the round again',
    );
    expect(loopStep(failed.view).verification).toMatchObject({ command: CHECK, lastRun: { passed: false, exitCode: 1, gates: 'round_close' } });
  });

  it('a run that timed out fails, whatever its exit code', () => {
    const timedOut = readyToConverge().and(ran(null, { timedOut: true }));
    timedOut.when(closeRound(1)).thenRefuses(/the verification check failed \(timed out after 1\.2 s\)/, 'run_verification');
  });

  it('a passing run is spent by anything recorded after it: the check must pass at the moment of completion', () => {
    readyToConverge()
      .and(ran(0), open('B', 'LOW'), resolve('B'))
      .when(closeRound(1))
      .thenRefuses(/completes only when its verification check passes/, 'run_verification');
  });

  it('an approval is gated too; a failing run leaves the session where it was', () => {
    const flat = given(gated({ stallThreshold: 5 }), open('A', 'LOW'), ...round(1));
    flat.when(decision('approve')).thenRefuses(/completes only when its verification check passes/, 'run_verification');
    const failed = flat.and(ran(2, { gates: 'approve' }));
    failed.when(decision('approve')).thenRefuses(/the verification check failed \(exit 2 after 1\.2 s\): npm test; the session stays FLAT until it passes/);
    expect(failed.view.machine.state).toBe('FLAT');
    expect(nextStep(failed.view).reason).toContain('then approve again');
    flat
      .and(ran(0, { gates: 'approve' }))
      .when(decision('approve'))
      .then([{ type: 'decision.made', data: { kind: 'approve', outcome: { machine: { state: 'COMPLETE', outcome: 'GOOD_ENOUGH' } } } }]);
  });

  it('stops that claim nothing is done are not gated: the round limit, a forced completion, abandoning', () => {
    given(gated({ maxRounds: 1 }), open('A', 'LOW'), startRound(1))
      .when(closeRound(1))
      .then([{ type: 'round.closed', data: { round: 1, outcome: { machine: { state: 'COMPLETE', outcome: 'MAX_ROUNDS' } } } }]);
    given(gated(), open('A', 'LOW'))
      .when(decision('abandon'))
      .then([{ type: 'decision.made', data: { kind: 'abandon', outcome: { machine: { state: 'COMPLETE', outcome: 'ABANDONED' } } } }]);
    const warned = given(gated(), open('A', 'LOW'), ...round(1, open('C', 'CRITICAL')));
    expect(warned.view.machine.state).toBe('DIVERGENCE_WARNING');
    warned
      .when(decision('force_complete'))
      .then([{ type: 'decision.made', data: { kind: 'force_complete', outcome: { machine: { state: 'COMPLETE', outcome: 'STALL_EXIT' } } } }]);
  });

  it('a session without a check is not gated, and refuses a recorded run', () => {
    given(start(), open('A', 'LOW'), startRound(1), resolve('A'))
      .when(closeRound(1))
      .then([{ type: 'round.closed', data: { round: 1, outcome: { machine: { state: 'COMPLETE', outcome: 'CONVERGED' } } } }]);
    given(start())
      .when(ran(0))
      .thenRefuses(/this session has no verification check/);
    given(gated())
      .when({ ...ran(0), data: { ...ran(0).data, command: 'true' } })
      .thenRefuses(/the session's verification check is "npm test", not "true"/);
  });

  it('metrics that would close the round and complete it after a failing run are recorded, and the round stays open', () => {
    const quality = given(gated({ policies: ['quality'] }), metrics('quality', { score: 90 }));
    expect(quality.view.rounds).toHaveLength(1);
    quality.when(metrics('quality', { score: 90 })).thenRefuses(/completes only when its verification check passes/, 'run_verification');
    const failed = quality.and(ran(1));
    const decided = failed.when(metrics('quality', { score: 90 })).decided();
    expect(decided.map((fact) => fact.type)).toEqual(['round.started', 'metrics.recorded']);
    const passed = quality
      .and(ran(0))
      .when(metrics('quality', { score: 90 }))
      .decided();
    expect(passed.map((fact) => fact.type)).toEqual(['round.started', 'metrics.recorded', 'round.closed']);
    expect(passed.at(-1)).toMatchObject({ data: { outcome: { machine: { state: 'COMPLETE', outcome: 'CONVERGED' } } } });
  });
});
