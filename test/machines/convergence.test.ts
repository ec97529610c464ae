import { describe, expect, it } from 'vitest';
import { createActor, initialTransition, transition } from 'xstate';
import {
  convergence,
  leafOf,
  recordOf,
  snapshotOf,
  type ConvergenceConfig,
  type ConvergenceEvent,
  type MachineState,
  type Verdict,
} from '../../machines/index.js';

const convergenceMachine = convergence();

/*
 * The machine's own rules: a round close goes where its one verdict says
 * (the policies and the round limit decided it; the gap rules' table is the gap
 * policy's, tested once, in test/policies/gaps/transitions.test.ts), the stall is counted
 * here (R1, R4), and the user's decisions move it (R11).
 */

const config: ConvergenceConfig = { stallThreshold: 2, divergenceThreshold: 8, maxRounds: 10, criticalOverride: true };

function close(verdict: Verdict, reason = 'test'): ConvergenceEvent {
  return { type: 'ROUND_CLOSED', round: 1, verdict: { verdict, reason } };
}

/** Runs events through a live actor, returning the leaf state after each. */
function run(events: ConvergenceEvent[], input: ConvergenceConfig = config) {
  const actor = createActor(convergenceMachine, { input }).start();
  const seen = events.map((event) => {
    actor.send(event);
    return leafOf(actor.getSnapshot().value);
  });
  const snapshot = actor.getSnapshot();
  actor.stop();
  return { seen, snapshot };
}

describe('a round close goes where its verdict says', () => {
  it('converged: COMPLETE with CONVERGED', () => {
    expect(run([close('converged')]).snapshot.context.outcome).toBe('CONVERGED');
  });

  it('stopped: COMPLETE with STOPPED; limit: COMPLETE with MAX_ROUNDS', () => {
    expect(run([close('stopped', 'stop_requested')]).snapshot.context.outcome).toBe('STOPPED');
    expect(run([close('limit')]).snapshot.context.outcome).toBe('MAX_ROUNDS');
  });

  it('diverging: DIVERGENCE_WARNING, from CONVERGING or FLAT', () => {
    expect(run([close('diverging')]).seen).toEqual(['DIVERGENCE_WARNING']);
    expect(run([close('flat'), close('diverging')]).seen).toEqual(['FLAT', 'DIVERGENCE_WARNING']);
  });

  it('progress: CONVERGING, and a FLAT session has its flat count reset', () => {
    const { seen, snapshot } = run([close('flat'), close('progress')]);
    expect(seen).toEqual(['FLAT', 'CONVERGING']);
    expect(snapshot.context.flatCount).toBe(0);
  });

  it('flat: FLAT while the flat count stays under stall_threshold (R1)', () => {
    const { seen, snapshot } = run([close('flat'), close('flat')], { ...config, stallThreshold: 3 });
    expect(seen).toEqual(['FLAT', 'FLAT']);
    expect(snapshot.context.flatCount).toBe(2);
  });

  it('the stall_threshold-th flat round in a row passes STALLED on to DIVERGENCE_WARNING at once (R1, R4)', () => {
    const { seen, snapshot } = run([close('flat'), close('flat')]);
    expect(seen).toEqual(['FLAT', 'DIVERGENCE_WARNING']);
    expect(snapshot.context.flatCount).toBe(config.stallThreshold);
    expect(run([close('flat')], { ...config, stallThreshold: 1 }).seen).toEqual(['DIVERGENCE_WARNING']);
  });

  it('no round closes in DIVERGENCE_WARNING or PAUSED', () => {
    for (const events of [[close('diverging')], [{ type: 'PAUSE' } as const]]) {
      const [warned] = events.reduce(([s], e) => transition(convergenceMachine, s, e), initialTransition(convergenceMachine, config));
      expect(warned.can(close('progress'))).toBe(false);
    }
  });
});

describe("the user's decisions (R11)", () => {
  const warn = close('diverging');

  it('narrow scope, accept complexity and prioritize critical go from DIVERGENCE_WARNING to CONVERGING with the flat count reset', () => {
    for (const type of ['NARROW_SCOPE', 'ACCEPT_COMPLEXITY', 'PRIORITIZE_CRITICAL'] as const) {
      const { seen, snapshot } = run([close('flat'), warn, { type }]);
      expect(seen.at(-1)).toBe('CONVERGING');
      expect(snapshot.context.flatCount).toBe(0);
    }
  });

  it('force complete ends a warning as STALL_EXIT; abandon ends any state but COMPLETE as ABANDONED', () => {
    expect(run([warn, { type: 'FORCE_COMPLETE' }]).snapshot.context.outcome).toBe('STALL_EXIT');
    for (const before of [[], [close('flat')], [warn], [{ type: 'PAUSE' }]] as ConvergenceEvent[][]) {
      expect(run([...before, { type: 'ABANDON' }]).snapshot.context.outcome).toBe('ABANDONED');
    }
  });

  it('pause from CONVERGING, FLAT or DIVERGENCE_WARNING; resume returns there through the history state', () => {
    expect(run([{ type: 'PAUSE' }, { type: 'RESUME' }]).seen).toEqual(['PAUSED', 'CONVERGING']);
    expect(run([close('flat'), { type: 'PAUSE' }, { type: 'RESUME' }]).seen).toEqual(['FLAT', 'PAUSED', 'FLAT']);
    expect(run([warn, { type: 'PAUSE' }, { type: 'RESUME' }]).seen).toEqual(['DIVERGENCE_WARNING', 'PAUSED', 'DIVERGENCE_WARNING']);
  });

  it('approve completes as GOOD_ENOUGH with nothing severe open, else USER_APPROVED; not from DIVERGENCE_WARNING', () => {
    expect(run([{ type: 'APPROVE', openCriticalOrHigh: 0 }]).snapshot.context.outcome).toBe('GOOD_ENOUGH');
    expect(run([close('flat'), { type: 'APPROVE', openCriticalOrHigh: 2 }]).snapshot.context.outcome).toBe('USER_APPROVED');
    expect(run([warn, { type: 'APPROVE', openCriticalOrHigh: 0 }]).seen.at(-1)).toBe('DIVERGENCE_WARNING');
  });

  it('COMPLETE is final: nothing moves it', () => {
    const [complete] = transition(convergenceMachine, initialTransition(convergenceMachine, config)[0], { type: 'ABANDON' });
    expect(complete.status).toBe('done');
    for (const event of [close('progress'), { type: 'RESUME' }, { type: 'PAUSE' }, { type: 'ABANDON' }, { type: 'NARROW_SCOPE' }] as ConvergenceEvent[]) {
      expect(complete.can(event)).toBe(false);
      const [next] = transition(convergenceMachine, complete, event);
      expect(leafOf(next.value)).toBe('COMPLETE');
      expect(next.context.outcome).toBe('ABANDONED');
    }
  });
});

describe('the small record of the machine’s state', () => {
  it('a snapshot rebuilt from its record goes on as the live one does, a pause included', () => {
    const scripts: ConvergenceEvent[][] = [[close('flat')], [close('flat'), { type: 'PAUSE' }], [close('diverging'), { type: 'PAUSE' }], [{ type: 'PAUSE' }]];
    for (const script of scripts) {
      const live = run(script).snapshot;
      const record: MachineState = recordOf(live);
      const rebuilt = snapshotOf(record, config);
      expect(recordOf(rebuilt)).toEqual(record);
      for (const next of [{ type: 'RESUME' }, close('flat'), close('progress')] as ConvergenceEvent[]) {
        expect(recordOf(transition(convergenceMachine, rebuilt, next)[0])).toEqual(recordOf(transition(convergenceMachine, live, next)[0]));
      }
    }
  });

  it('while PAUSED the record keeps where RESUME returns; otherwise none', () => {
    expect(recordOf(run([close('flat'), { type: 'PAUSE' }]).snapshot)).toEqual({ state: 'PAUSED', flatCount: 1, outcome: null, pausedFrom: 'FLAT' });
    expect(recordOf(run([close('flat'), { type: 'PAUSE' }, { type: 'RESUME' }]).snapshot).pausedFrom).toBeNull();
  });
});

describe('the machine as data', () => {
  it('every guard and action is referenced by name and implemented, and no event is handled by a state and one inside it', () => {
    const { guards, actions } = convergenceMachine.implementations;
    const named = (ref: unknown): string | undefined =>
      typeof ref === 'string' ? ref : typeof ref === 'object' && ref !== null && 'type' in ref ? String(ref.type) : undefined;
    const handled = new Map<string, string[]>();
    // Sibling states may each handle an event their own way (PRIORITIZE sets a focus in LOOPING, answers the warning in
    // DIVERGENCE_WARNING); a state and one of its ancestors both handling it would hide one behind the other.
    const visit = (node: typeof convergenceMachine.root, above: ReadonlySet<string>): void => {
      for (const [event, list] of node.transitions) {
        expect(above.has(event), `${event} handled by ${node.id} and a state around it`).toBe(false);
        handled.set(event, [...(handled.get(event) ?? []), node.id]);
        for (const t of list) {
          if (t.guard !== undefined) expect(Object.keys(guards)).toContain(named(t.guard));
          for (const action of t.actions) expect(Object.keys(actions)).toContain(named(action));
        }
      }
      const inside = new Set([...above, ...node.transitions.keys()]);
      Object.values(node.states).forEach((child) => visit(child, inside));
    };
    visit(convergenceMachine.root, new Set());
    expect(handled.get('PRIORITIZE')).toHaveLength(2);
    expect([...handled.keys()].sort()).toEqual([
      'ABANDON',
      'ACCEPT_COMPLEXITY',
      'APPROVE',
      'EXTEND_ROUNDS',
      'FORCE_COMPLETE',
      'NARROW_SCOPE',
      'PAUSE',
      'PRIORITIZE',
      'PRIORITIZE_CRITICAL',
      'RESUME',
      'ROUND_CLOSED',
    ]);
    const config = JSON.stringify(convergenceMachine.config, (_, value: unknown) => (typeof value === 'function' ? 'FUNCTION' : value));
    // The initial context is built from input (the one function a machine needs); nothing else is inline.
    expect(config.match(/FUNCTION/g)).toHaveLength(1);
    expect(config).toContain('"context":"FUNCTION"');
  });
});
