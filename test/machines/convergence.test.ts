import { describe, expect, it } from 'vitest';
import { createActor, initialTransition, transition } from 'xstate';
import { convergenceMachine, type ConvergenceConfig, type ConvergenceEvent } from '../../machines/index.js';

const config: ConvergenceConfig = { stallThreshold: 2, divergenceThreshold: 8, maxRounds: 10, criticalOverride: true };

function close(weightedNet: number, extra: Partial<Extract<ConvergenceEvent, { type: 'ROUND_CLOSED' }>> = {}): ConvergenceEvent {
  return { type: 'ROUND_CLOSED', round: 1, weightedNet, openCount: 5, criticalIntroduced: false, ...extra };
}

/** Runs events through a live actor, returning the state value after each. */
function run(events: ConvergenceEvent[], input: ConvergenceConfig = config) {
  const actor = createActor(convergenceMachine, { input }).start();
  const seen = events.map((event) => {
    actor.send(event);
    return String(actor.getSnapshot().value);
  });
  const snapshot = actor.getSnapshot();
  actor.stop();
  return { seen, snapshot };
}

// Seed 003, "State Transition Rules (Formal)": one test per row, as corrected by RULINGS R1 and R2.
describe('seed 003 state transition rules', () => {
  it('CONVERGING stays CONVERGING when weighted_net > 0', () => {
    expect(run([close(1)]).seen).toEqual(['CONVERGING']);
  });

  it('CONVERGING goes FLAT with flat_count 1 when -D <= weighted_net <= 0', () => {
    for (const net of [0, -1, -config.divergenceThreshold]) {
      const { seen, snapshot } = run([close(net)]);
      expect(seen).toEqual(['FLAT']);
      expect(snapshot.context.flatCount).toBe(1);
    }
  });

  it('CONVERGING goes to DIVERGENCE_WARNING when weighted_net < -D', () => {
    expect(run([close(-config.divergenceThreshold - 1)]).seen).toEqual(['DIVERGENCE_WARNING']);
  });

  it('CONVERGING goes to DIVERGENCE_WARNING on a new CRITICAL even with positive net', () => {
    expect(run([close(20, { criticalIntroduced: true })]).seen).toEqual(['DIVERGENCE_WARNING']);
  });

  it('FLAT goes back to CONVERGING and resets flat_count when weighted_net > 0', () => {
    const { seen, snapshot } = run([close(0), close(3)]);
    expect(seen).toEqual(['FLAT', 'CONVERGING']);
    expect(snapshot.context.flatCount).toBe(0);
  });

  it('FLAT stays FLAT while flat_count stays under stall_threshold', () => {
    const { seen, snapshot } = run([close(0), close(-2)], { ...config, stallThreshold: 3 });
    expect(seen).toEqual(['FLAT', 'FLAT']);
    expect(snapshot.context.flatCount).toBe(2);
  });

  it('FLAT reaches STALLED at flat_count = stall_threshold, which moves on to DIVERGENCE_WARNING at once', () => {
    const { seen, snapshot } = run([close(0), close(0)]);
    expect(seen).toEqual(['FLAT', 'DIVERGENCE_WARNING']);
    expect(snapshot.context.flatCount).toBe(config.stallThreshold);
  });

  it('FLAT goes to DIVERGENCE_WARNING when weighted_net < -D or a CRITICAL is new', () => {
    expect(run([close(0), close(-9)]).seen).toEqual(['FLAT', 'DIVERGENCE_WARNING']);
    expect(run([close(0), close(0, { criticalIntroduced: true })]).seen).toEqual(['FLAT', 'DIVERGENCE_WARNING']);
  });

  const warn = close(-20);
  it('DIVERGENCE_WARNING goes to CONVERGING on narrow scope, accept complexity and prioritize critical', () => {
    for (const type of ['NARROW_SCOPE', 'ACCEPT_COMPLEXITY', 'PRIORITIZE_CRITICAL'] as const) {
      const { seen, snapshot } = run([close(0), warn, { type }]);
      expect(seen.at(-1)).toBe('CONVERGING');
      expect(snapshot.context.flatCount).toBe(0);
    }
  });

  it('DIVERGENCE_WARNING goes to PAUSED on pause, and resume returns there', () => {
    expect(run([warn, { type: 'PAUSE' }, { type: 'RESUME' }]).seen).toEqual(['DIVERGENCE_WARNING', 'PAUSED', 'DIVERGENCE_WARNING']);
  });

  it('DIVERGENCE_WARNING goes to COMPLETE on force complete (STALL_EXIT) or abandon (ABANDONED)', () => {
    expect(run([warn, { type: 'FORCE_COMPLETE' }]).snapshot.context.outcome).toBe('STALL_EXIT');
    expect(run([warn, { type: 'ABANDON' }]).snapshot.context.outcome).toBe('ABANDONED');
  });
});

describe('convergence machine beyond the table', () => {
  it('a stall threshold of 1 stalls on the first flat round', () => {
    expect(run([close(0)], { ...config, stallThreshold: 1 }).seen).toEqual(['DIVERGENCE_WARNING']);
  });

  it('ignores a new CRITICAL when critical_override is off', () => {
    expect(run([close(5, { criticalIntroduced: true })], { ...config, criticalOverride: false }).seen).toEqual(['CONVERGING']);
  });

  it('an empty inventory completes as CONVERGED before any other verdict (R12)', () => {
    const { snapshot } = run([close(-50, { openCount: 0, criticalIntroduced: true, round: 10 })]);
    expect(snapshot.value).toBe('COMPLETE');
    expect(snapshot.context.outcome).toBe('CONVERGED');
  });

  it('closing round max_rounds completes as MAX_ROUNDS whatever the verdict (R12)', () => {
    const { snapshot } = run([close(-50, { round: 10, criticalIntroduced: true })]);
    expect(snapshot.context.outcome).toBe('MAX_ROUNDS');
    expect(run([close(0, { round: 9 })]).seen).toEqual(['FLAT']);
  });

  it('pause remembers FLAT and CONVERGING too', () => {
    expect(run([close(0), { type: 'PAUSE' }, { type: 'RESUME' }]).seen).toEqual(['FLAT', 'PAUSED', 'FLAT']);
    expect(run([{ type: 'PAUSE' }, { type: 'RESUME' }]).seen).toEqual(['PAUSED', 'CONVERGING']);
  });

  it('approve completes as GOOD_ENOUGH with nothing severe open, else USER_APPROVED', () => {
    expect(run([{ type: 'APPROVE', openCriticalOrHigh: 0 }]).snapshot.context.outcome).toBe('GOOD_ENOUGH');
    expect(run([{ type: 'APPROVE', openCriticalOrHigh: 2 }]).snapshot.context.outcome).toBe('USER_APPROVED');
  });

  it('COMPLETE is final: nothing moves it', () => {
    const [complete] = transition(convergenceMachine, initialTransition(convergenceMachine, config)[0], { type: 'ABANDON' });
    expect(complete.status).toBe('done');
    for (const event of [close(5), { type: 'RESUME' }, { type: 'PAUSE' }, { type: 'NARROW_SCOPE' }] as ConvergenceEvent[]) {
      const [next] = transition(convergenceMachine, complete, event);
      expect(next.value).toBe('COMPLETE');
      expect(next.context.outcome).toBe('ABANDONED');
    }
  });

  it('every guard and action is referenced by name and implemented, so Stately tools can read the config', () => {
    const { guards, actions } = convergenceMachine.implementations;
    const named = (ref: unknown): string | undefined =>
      typeof ref === 'string' ? ref : typeof ref === 'object' && ref !== null && 'type' in ref ? String(ref.type) : undefined;
    let transitions = 0;
    for (const node of Object.values(convergenceMachine.states)) {
      for (const list of [...node.transitions.values(), node.always ?? []]) {
        for (const transition of list) {
          transitions += 1;
          if (transition.guard !== undefined) expect(Object.keys(guards)).toContain(named(transition.guard));
          for (const action of transition.actions) expect(Object.keys(actions)).toContain(named(action));
        }
      }
    }
    expect(transitions).toBeGreaterThanOrEqual(20);
    const config = JSON.stringify(convergenceMachine.config, (_, value: unknown) => (typeof value === 'function' ? 'FUNCTION' : value));
    // The initial context is built from input (the one function a machine needs); nothing else is inline.
    expect(config.match(/FUNCTION/g)).toHaveLength(1);
    expect(config).toContain('"context":"FUNCTION"');
  });
});
