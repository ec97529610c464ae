import { describe, expect, it } from 'vitest';
import type { BodyInputOf } from '../../events/index.js';
import type { ConvergenceState, DecisionKind } from '../../src/index.js';
import { decision, given, open, resolve, round, start, startRound, type Given } from './given.js';

/*
 * decide for user decisions (R11): each is possible only in the states the
 * ruling names, is made between rounds (pause and resume excepted), and
 * records what the machine decided.
 */

type DecisionData = BodyInputOf<'decision.made'>['data'];

const made = (kind: DecisionKind, outcome: object, extra: Omit<DecisionData, 'kind'> = {}) => ({
  type: 'decision.made' as const,
  data: { kind, ...extra, outcome },
});

/** M-1, M-2 (MEDIUM) and L-1 (LOW) in the baseline: nothing severe, so approve needs nothing more. */
const baselineGaps = [open('M-1', 'MEDIUM'), open('M-2', 'MEDIUM'), open('L-1', 'LOW')];

/** Each state a decision can be asked in, reached the way a session reaches it. */
const SCENARIOS: Record<'CONVERGING' | 'FLAT' | 'DIVERGENCE_WARNING' | 'PAUSED' | 'COMPLETE', () => Given> = {
  // Round 1 resolves a LOW: weighted net +1.
  CONVERGING: () => given(start(), ...baselineGaps, ...round(1, resolve('L-1'))),
  // Round 1 does nothing: weighted net 0, flat_count 1.
  FLAT: () => given(start(), ...baselineGaps, ...round(1)),
  // Round 1 opens a CRITICAL (R5).
  DIVERGENCE_WARNING: () => given(start(), ...baselineGaps, ...round(1, open('C1', 'CRITICAL'))),
  PAUSED: () => given(start(), ...baselineGaps, ...round(1), decision('pause')),
  COMPLETE: () => given(start(), ...baselineGaps, ...round(1), decision('abandon')),
};

/** R11, restated: where each decision makes sense. */
const ALLOWED_IN: Record<DecisionKind, ConvergenceState[]> = {
  narrow_scope: ['DIVERGENCE_WARNING'],
  accept_complexity: ['DIVERGENCE_WARNING'],
  prioritize_critical: ['DIVERGENCE_WARNING'],
  pause: ['CONVERGING', 'FLAT', 'DIVERGENCE_WARNING'],
  resume: ['PAUSED'],
  force_complete: ['DIVERGENCE_WARNING'],
  abandon: ['CONVERGING', 'FLAT', 'DIVERGENCE_WARNING', 'PAUSED'],
  approve: ['CONVERGING', 'FLAT'],
  // R24: any state but COMPLETE.
  extend_rounds: ['CONVERGING', 'FLAT', 'DIVERGENCE_WARNING', 'PAUSED'],
  // R26: a focus while the loop runs, or as the answer to a warning.
  prioritize: ['CONVERGING', 'FLAT', 'DIVERGENCE_WARNING'],
};

const WORD: Record<DecisionKind, string> = {
  narrow_scope: 'narrow scope',
  accept_complexity: 'accept complexity',
  prioritize_critical: 'prioritize critical',
  pause: 'pause',
  resume: 'resume',
  force_complete: 'force complete',
  abandon: 'abandon',
  approve: 'approve',
  extend_rounds: 'extend rounds',
  prioritize: 'prioritize',
};

/** What each decision asks, where it is allowed: the gaps narrow scope must name. */
const REQUEST: Record<DecisionKind, Omit<DecisionData, 'kind'>> = {
  narrow_scope: { gaps: ['M-1'] },
  accept_complexity: {},
  prioritize_critical: {},
  pause: {},
  resume: {},
  force_complete: {},
  abandon: {},
  approve: {},
  extend_rounds: { rounds: 2 },
  prioritize: { gaps: ['M-1'] },
};

/** R11, restated: what each allowed decision leads to from `state` (PAUSED was paused from FLAT, flat_count 1). */
function expectedOutcome(kind: DecisionKind, state: ConvergenceState): { machine: object; steps: object[] } {
  const to = (target: ConvergenceState, machine: object) => ({ machine: { state: target, ...machine }, steps: [{ from: state, to: target }] });
  switch (kind) {
    case 'narrow_scope':
    case 'accept_complexity':
    case 'prioritize_critical':
      return to('CONVERGING', { flatCount: 0, outcome: null });
    case 'pause':
      return to('PAUSED', { pausedFrom: state });
    case 'resume':
      return to('FLAT', { pausedFrom: null, flatCount: 1 });
    case 'force_complete':
      return to('COMPLETE', { outcome: 'STALL_EXIT' });
    case 'abandon':
      return to('COMPLETE', { outcome: 'ABANDONED' });
    case 'approve':
      return to('COMPLETE', { outcome: 'GOOD_ENOUGH' });
    case 'prioritize':
      return state === 'DIVERGENCE_WARNING' ? to('CONVERGING', { flatCount: 0, outcome: null }) : { machine: { state }, steps: [] };
    case 'extend_rounds':
      // The default limit of 10, raised by the 2 asked for; the machine stays where it was.
      return { machine: { state }, steps: [], maxRounds: 12 } as { machine: object; steps: object[] };
  }
}

const KINDS = Object.keys(WORD) as DecisionKind[];
const STATES = ['CONVERGING', 'FLAT', 'DIVERGENCE_WARNING', 'PAUSED'] as const;
const cases = STATES.flatMap((state) => KINDS.map((kind) => [WORD[kind], state, kind, ALLOWED_IN[kind].includes(state)] as const));

/** The decisions a refusal lists after "possible now:". */
function listedPossible(message: string): string[] {
  const list = /possible now: (.*)$/.exec(message)?.[1] ?? '';
  return list.split(', ').filter(Boolean).sort();
}

describe('R11: each decision only where it makes sense', () => {
  it.each(cases.filter(([, , , ok]) => ok))('%s is allowed in %s and records where the machine went', (_, state, kind) => {
    // Prioritize critical names every open CRITICAL gap when none is named.
    const completed = kind === 'prioritize_critical' ? { gaps: ['C1'] } : REQUEST[kind];
    SCENARIOS[state]()
      .when(decision(kind, REQUEST[kind]))
      .then([made(kind, expectedOutcome(kind, state), completed)]);
  });

  it.each(cases.filter(([, , , ok]) => !ok))('%s is refused in %s, and the refusal lists what is possible now', (word, state, kind) => {
    const refused = SCENARIOS[state]().when(decision(kind, REQUEST[kind])).refusal();
    expect(refused.message).toContain(`${word} is not possible in ${state}; possible now: `);
    const possible = KINDS.filter((k) => ALLOWED_IN[k].includes(state)).map((k) => WORD[k]);
    expect(listedPossible(refused.message)).toEqual(possible.sort());
  });

  it.each(KINDS)('R12: %s is refused once the session is COMPLETE, naming its outcome', (kind) => {
    SCENARIOS.COMPLETE()
      .when(decision(kind, REQUEST[kind]))
      .thenRefuses(/the session is COMPLETE \(ABANDONED\); nothing more can be recorded/, null);
  });
});

describe('R8: decisions are made between rounds, except pause and resume', () => {
  const roundOpen = () => SCENARIOS.CONVERGING().and(startRound(2));

  it.each(KINDS.filter((k) => k !== 'pause' && k !== 'resume' && k !== 'extend_rounds'))('%s while a round is open is refused (remedy close_round)', (kind) => {
    roundOpen()
      .when(decision(kind, REQUEST[kind]))
      .thenRefuses(/round 2 is open; decisions are made between rounds/, 'close_round');
  });

  it('pause may interrupt an open round, remembering the state it was in', () => {
    roundOpen()
      .when(decision('pause'))
      .then([made('pause', { machine: { state: 'PAUSED', pausedFrom: 'CONVERGING' } })]);
  });

  it('resume inside the interrupted round returns to that state', () => {
    roundOpen()
      .and(decision('pause'))
      .when(decision('resume'))
      .then([made('resume', { machine: { state: 'CONVERGING', pausedFrom: null }, steps: [{ from: 'PAUSED', to: 'CONVERGING' }] })]);
  });
});

describe('R11: pause and resume', () => {
  it.each(['CONVERGING', 'FLAT', 'DIVERGENCE_WARNING'] as const)('resume returns to %s, where pause was made, with flat_count kept', (state) => {
    const paused = SCENARIOS[state]().and(decision('pause'));
    const before = SCENARIOS[state]().view.machine.flatCount;
    paused.when(decision('resume')).then([made('resume', { machine: { state, pausedFrom: null, flatCount: before }, steps: [{ from: 'PAUSED', to: state }] })]);
  });
});

describe('R11: the divergence decisions', () => {
  /** Two flat rounds with N = 2: a stall, flat_count 2, DIVERGENCE_WARNING; no CRITICAL open. */
  const stalled = () => given(start(), ...baselineGaps, ...round(1), ...round(2));

  it.each(['narrow_scope', 'accept_complexity'] as const)('%s resets flat_count and goes to CONVERGING', (kind) => {
    expect(stalled().view.machine).toMatchObject({ state: 'DIVERGENCE_WARNING', flatCount: 2 });
    stalled()
      .when(decision(kind, REQUEST[kind]))
      .then([made(kind, { machine: { state: 'CONVERGING', flatCount: 0 }, steps: [{ from: 'DIVERGENCE_WARNING', to: 'CONVERGING' }] }, REQUEST[kind])]);
  });

  it('narrow scope must name the gaps to defer (remedy name_gaps)', () => {
    stalled()
      .when(decision('narrow_scope'))
      .thenRefuses(/name the gaps to defer/, 'name_gaps');
  });

  it('narrow scope defers only open gaps, known ones, each named once', () => {
    // Round 1: a HIGH resolved (4) against three HIGH and a LOW opened (13): weighted net -9, divergence.
    const session = () =>
      given(
        start(),
        ...baselineGaps,
        open('H-1', 'HIGH'),
        ...round(1, resolve('H-1'), open('H-2', 'HIGH'), open('H-3', 'HIGH'), open('H-4', 'HIGH'), open('L-2', 'LOW')),
      );
    expect(session().view.machine.state).toBe('DIVERGENCE_WARNING');
    session()
      .when(decision('narrow_scope', { gaps: ['H-1'] }))
      .thenRefuses(/gap H-1 is RESOLVED; only open gaps can be deferred/);
    session()
      .when(decision('narrow_scope', { gaps: ['NOPE'] }))
      .thenRefuses(/unknown gap NOPE/);
    session()
      .when(decision('narrow_scope', { gaps: ['M-1', 'M-1'] }))
      .thenRefuses(/a gap is named twice/);
  });

  it('prioritize critical with no gaps named focuses on every open CRITICAL gap', () => {
    given(start(), ...baselineGaps, ...round(1, open('C1', 'CRITICAL'), open('C2', 'CRITICAL')))
      .when(decision('prioritize_critical'))
      .then([made('prioritize_critical', { machine: { state: 'CONVERGING', flatCount: 0 } }, { gaps: ['C1', 'C2'] })]);
  });

  it('prioritize critical names only open CRITICAL gaps', () => {
    SCENARIOS.DIVERGENCE_WARNING()
      .when(decision('prioritize_critical', { gaps: ['M-1'] }))
      .thenRefuses(/gap M-1 is MEDIUM, OPEN; only open CRITICAL gaps can be prioritized/);
  });

  it('prioritize critical is refused when no CRITICAL gap is open', () => {
    stalled()
      .when(decision('prioritize_critical'))
      .thenRefuses(/no CRITICAL gap is open/);
  });

  it('accept complexity and force complete take no gaps', () => {
    stalled()
      .when(decision('accept_complexity', { gaps: ['M-1'] }))
      .thenRefuses(/accept complexity takes no gaps/);
    stalled()
      .when(decision('force_complete', { gaps: ['M-1'] }))
      .thenRefuses(/force complete takes no gaps/);
  });
});

describe('R11: approve', () => {
  /** Round 1 is flat (nothing happens), so approve is possible; `severe` are baseline gaps (never "introduced"). */
  const flatWith = (...severe: ['C-1' | 'H-1', 'CRITICAL' | 'HIGH'][]) =>
    given(start(), ...severe.map(([id, sev]) => open(id, sev)), open('M-1', 'MEDIUM'), ...round(1));

  it('with no CRITICAL or HIGH gap open, approve completes as GOOD_ENOUGH (a resolved HIGH does not count)', () => {
    given(start(), open('H-1', 'HIGH'), open('M-1', 'MEDIUM'), ...round(1, resolve('H-1')))
      .when(decision('approve'))
      .then([made('approve', { machine: { state: 'COMPLETE', outcome: 'GOOD_ENOUGH' }, steps: [{ from: 'CONVERGING', to: 'COMPLETE' }] })]);
  });

  it('over an open CRITICAL gap, approve without acknowledging the risk is refused (remedy acknowledge_risk)', () => {
    flatWith(['C-1', 'CRITICAL'])
      .when(decision('approve'))
      .thenRefuses(/CRITICAL gaps are not closed \(C-1\)/, 'acknowledge_risk');
  });

  it('over an open CRITICAL gap, approve with the acknowledgment completes as USER_APPROVED and records the gap', () => {
    flatWith(['C-1', 'CRITICAL'])
      .when(decision('approve', { acknowledgment: 'critical_risk' }))
      .then([made('approve', { machine: { state: 'COMPLETE', outcome: 'USER_APPROVED' } }, { acknowledgment: 'critical_risk', gaps: ['C-1'] })]);
  });

  it('over an open HIGH gap, approve without a rationale is refused (remedy give_rationale), blank included', () => {
    flatWith(['H-1', 'HIGH'])
      .when(decision('approve'))
      .thenRefuses(/HIGH gaps are not closed \(H-1\)/, 'give_rationale');
    flatWith(['H-1', 'HIGH'])
      .when(decision('approve', { rationale: '   ' }))
      .thenRefuses(/HIGH gaps are not closed/, 'give_rationale');
  });

  it('over an open HIGH gap, approve with a rationale completes as USER_APPROVED and records both', () => {
    flatWith(['H-1', 'HIGH'])
      .when(decision('approve', { rationale: 'the last HIGH is cosmetic' }))
      .then([made('approve', { machine: { state: 'COMPLETE', outcome: 'USER_APPROVED' } }, { rationale: 'the last HIGH is cosmetic', gaps: ['H-1'] })]);
  });

  it('over CRITICAL and HIGH gaps, approve needs both the acknowledgment and a rationale', () => {
    const both = () => flatWith(['H-1', 'HIGH'], ['C-1', 'CRITICAL']);
    both()
      .when(decision('approve', { acknowledgment: 'critical_risk' }))
      .thenRefuses(/HIGH gaps are not closed/, 'give_rationale');
    both()
      .when(decision('approve', { rationale: 'known' }))
      .thenRefuses(/CRITICAL gaps are not closed/, 'acknowledge_risk');
    both()
      .when(decision('approve', { acknowledgment: 'critical_risk', rationale: 'known' }))
      .then([made('approve', { machine: { outcome: 'USER_APPROVED' } }, { acknowledgment: 'critical_risk', rationale: 'known', gaps: ['C-1', 'H-1'] })]);
  });

  it('approve records the gaps it accepts itself; a caller cannot name others', () => {
    flatWith(['H-1', 'HIGH'])
      .when(decision('approve', { gaps: ['M-1'], rationale: 'x' }))
      .thenRefuses(/approve records the CRITICAL and HIGH gaps it accepts itself \(H-1\)/);
    flatWith(['H-1', 'HIGH'])
      .when(decision('approve', { gaps: [], rationale: 'x' }))
      .thenRefuses(/approve records the CRITICAL and HIGH gaps it accepts itself/);
  });

  it('an acknowledgment goes only with approve', () => {
    SCENARIOS.FLAT()
      .when(decision('abandon', { acknowledgment: 'critical_risk' }))
      .thenRefuses(/an acknowledgment goes only with approve/);
  });
});
