import { describe, expect, it } from 'vitest';
import { createActor } from 'xstate';
import { convergenceMachine, type ConvergenceConfig, type RoundVerdict, type Verdict } from '../../machines/index.js';

const config: ConvergenceConfig = { stallThreshold: 2, divergenceThreshold: 8, maxRounds: 10, criticalOverride: true };

/** Round closes that carry a combined verdict; the gap figures are chosen to contradict it, so only the verdict can decide. */
function run(verdicts: (Verdict | RoundVerdict)[]) {
  const actor = createActor(convergenceMachine, { input: config }).start();
  const seen = verdicts.map((v, i) => {
    const verdict = typeof v === 'string' ? { verdict: v, reason: 'test' } : v;
    actor.send({ type: 'ROUND_CLOSED', round: i + 1, weightedNet: 0, openCount: 0, criticalIntroduced: true, verdict });
    return String(actor.getSnapshot().value);
  });
  const snapshot = actor.getSnapshot();
  actor.stop();
  return { seen, snapshot };
}

describe('ROUND_CLOSED with a combined verdict: the policy guards decide, the gap guards stand aside', () => {
  it('converged: COMPLETE with CONVERGED', () => {
    expect(run(['converged']).snapshot.context.outcome).toBe('CONVERGED');
  });
  it('limit: COMPLETE with MAX_ROUNDS; a limit for stop_requested: COMPLETE with STOPPED', () => {
    expect(run(['limit']).snapshot.context.outcome).toBe('MAX_ROUNDS');
    expect(run([{ verdict: 'limit', reason: 'stop_requested' }]).snapshot.context.outcome).toBe('STOPPED');
  });
  it('diverging: DIVERGENCE_WARNING', () => {
    expect(run(['diverging']).seen).toEqual(['DIVERGENCE_WARNING']);
  });
  it('progress: CONVERGING with the flat count reset (despite a CRITICAL introduced and nothing open in the figures)', () => {
    const { seen, snapshot } = run(['flat', 'progress']);
    expect(seen).toEqual(['FLAT', 'CONVERGING']);
    expect(snapshot.context.flatCount).toBe(0);
  });
  it('flat: FLAT, and the stall threshold-th flat round in a row passes STALLED to DIVERGENCE_WARNING', () => {
    const { seen, snapshot } = run(['flat', 'flat']);
    expect(seen).toEqual(['FLAT', 'DIVERGENCE_WARNING']);
    expect(snapshot.context.flatCount).toBe(2);
  });
});
