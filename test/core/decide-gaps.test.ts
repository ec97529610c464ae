import { describe, expect, it } from 'vitest';
import type { BodyInputOf } from '../../events/index.js';
import type { GapState } from '../../src/index.js';
import { decision, given, move, open, resolve, round, severity, start, startRound } from './given.js';

/*
 * decide for gap events: R8 (a gap event between rounds starts the next
 * round, except where no round can start), R10 (the lifecycle), R7 (severity
 * changes), R22 (ids are unique).
 */

/** Round 1 played with nothing in it: weighted net 0, so FLAT with flat_count 1 (R1), and no round open. */
const betweenRounds = () => given(start(), open('G1', 'HIGH'), open('G2', 'LOW'), ...round(1));

/** Round 1 introduces a CRITICAL: DIVERGENCE_WARNING under the critical override (R5). */
const inWarning = () => given(start(), open('G1', 'HIGH'), open('G2', 'LOW'), ...round(1, open('C1', 'CRITICAL')));

const gapEvents: [string, BodyInputOf<'gap.opened' | 'gap.moved' | 'gap.severity_changed'>][] = [
  ['gap.opened', open('G3', 'MEDIUM')],
  ['gap.moved', move('G1', 'IN_PROGRESS')],
  ['gap.severity_changed', severity('G2', 'MEDIUM')],
];

describe('R8: a gap event between rounds starts the next round', () => {
  it.each(gapEvents)('%s between rounds is recorded after its own round.started for the next round', (_, request) => {
    betweenRounds()
      .when(request)
      .then([{ type: 'round.started', data: { round: 2 } }, request]);
  });

  it.each(gapEvents)('%s before round 1 is baseline: no round starts (the first is started explicitly)', (_, request) => {
    given(start(), open('G1', 'HIGH'), open('G2', 'LOW')).when(request).then([request]);
  });

  it.each(gapEvents)('%s inside an open round starts nothing', (_, request) => {
    given(start(), open('G1', 'HIGH'), open('G2', 'LOW'), startRound(1)).when(request).then([request]);
  });

  it.each(gapEvents)('%s in DIVERGENCE_WARNING is refused: a decision is due first (remedy decide)', (_, request) => {
    inWarning()
      .when(request)
      .thenRefuses(/no round can start in DIVERGENCE_WARNING: a decision is due first/, 'decide');
  });

  it.each(gapEvents)('%s while PAUSED between rounds is refused: resume first (remedy resume)', (_, request) => {
    betweenRounds()
      .and(decision('pause'))
      .when(request)
      .thenRefuses(/PAUSED: resume it first/, 'resume');
  });

  it.each(gapEvents)('%s while PAUSED inside a round is refused too (remedy resume)', (_, request) => {
    given(start(), open('G1', 'HIGH'), open('G2', 'LOW'), startRound(1), decision('pause'))
      .when(request)
      .thenRefuses(/PAUSED; resume it first/, 'resume');
  });

  it.each(gapEvents)('%s after COMPLETE is refused with the outcome named and no remedy (R12: nothing after COMPLETE)', (_, request) => {
    betweenRounds()
      .and(decision('abandon'))
      .when(request)
      .thenRefuses(/COMPLETE \(ABANDONED\); nothing more can be recorded/, null);
  });
});

/*
 * R10, restated from the ruling (not from the code's table): the workflow's
 * moves, any state to WONT_FIX, any open state to RESOLVED or USER_DEFERRED,
 * a closed state back to OPEN or NEEDS_REVISION; never to the same state.
 * R20 adds DUPLICATE: a closed state any open or deferred gap may move to.
 * (SPLIT, which only a split reaches, is in gap-moves.test.ts.)
 */
const OPEN_STATES: GapState[] = ['OPEN', 'IN_PROGRESS', 'BLOCKED', 'PROPOSED', 'NEEDS_REVISION'];
const CLOSED_STATES: GapState[] = ['ACCEPTED', 'RESOLVED', 'WONT_FIX', 'DUPLICATE'];
const ALL_STATES: GapState[] = [...OPEN_STATES, 'USER_DEFERRED', ...CLOSED_STATES];
const WORKFLOW: [GapState, GapState][] = [
  ['OPEN', 'IN_PROGRESS'],
  ['IN_PROGRESS', 'PROPOSED'],
  ['IN_PROGRESS', 'BLOCKED'],
  ['BLOCKED', 'IN_PROGRESS'],
  ['PROPOSED', 'ACCEPTED'],
  ['PROPOSED', 'NEEDS_REVISION'],
  ['NEEDS_REVISION', 'PROPOSED'],
  ['NEEDS_REVISION', 'BLOCKED'],
  ['ACCEPTED', 'RESOLVED'],
  ['OPEN', 'USER_DEFERRED'],
  ['USER_DEFERRED', 'OPEN'],
];

function lifecycleAllows(from: GapState, to: GapState): boolean {
  if (from === to) return false;
  if (WORKFLOW.some(([a, b]) => a === from && b === to)) return true;
  if (to === 'WONT_FIX') return true;
  if (OPEN_STATES.includes(from) && (to === 'RESOLVED' || to === 'USER_DEFERRED')) return true;
  // R20: an open or deferred gap may be withdrawn as a duplicate (a closed one was counted already).
  if (to === 'DUPLICATE') return !CLOSED_STATES.includes(from);
  return CLOSED_STATES.includes(from) && (to === 'OPEN' || to === 'NEEDS_REVISION');
}

const allowedFrom = (from: GapState) => ALL_STATES.filter((to) => lifecycleAllows(from, to));

/** Workflow moves that bring a fresh gap from OPEN to `state`. */
const PATH: Record<GapState, GapState[]> = {
  OPEN: [],
  IN_PROGRESS: ['IN_PROGRESS'],
  BLOCKED: ['IN_PROGRESS', 'BLOCKED'],
  PROPOSED: ['IN_PROGRESS', 'PROPOSED'],
  NEEDS_REVISION: ['IN_PROGRESS', 'PROPOSED', 'NEEDS_REVISION'],
  USER_DEFERRED: ['USER_DEFERRED'],
  ACCEPTED: ['IN_PROGRESS', 'PROPOSED', 'ACCEPTED'],
  RESOLVED: ['RESOLVED'],
  WONT_FIX: ['WONT_FIX'],
  DUPLICATE: ['DUPLICATE'],
  SPLIT: [],
};

/** A move of G1 to `to`; a duplicate names G2 as the gap it duplicates. */
const moveG1 = (to: GapState) => move('G1', to, to === 'DUPLICATE' ? { of: 'G2' } : {});

/** G1 (HIGH) in `state`, reached before round 1, beside G2 (LOW, OPEN). */
const gapIn = (state: GapState) => given(start(), open('G1', 'HIGH'), open('G2', 'LOW'), ...PATH[state].map(moveG1));

/** The moves a refusal lists after "moves allowed from X:". */
function listedMoves(message: string): string[] {
  const list = /moves allowed from [A-Z_]+: (.*)$/.exec(message)?.[1] ?? '';
  return list.split(', ').filter(Boolean).sort();
}

describe('R10: the gap lifecycle', () => {
  const pairs = ALL_STATES.flatMap((from) => ALL_STATES.map((to) => [from, to, lifecycleAllows(from, to)] as const));

  it.each(pairs.filter(([, , ok]) => ok))('%s -> %s is allowed', (from, to) => {
    gapIn(from)
      .when(moveG1(to))
      .then([moveG1(to)]);
  });

  it.each(pairs.filter(([, , ok]) => !ok))('%s -> %s is refused, naming the gap, its state and the moves allowed from it', (from, to) => {
    const refused = gapIn(from).when(moveG1(to)).refusal();
    expect(refused.message).toMatch(new RegExp(`gap G1 is( already)? ${from}; moves allowed from ${from}: `));
    expect(listedMoves(refused.message)).toEqual(allowedFrom(from).sort());
  });

  it('a move to the state the gap is already in is refused as "already" that state', () => {
    gapIn('IN_PROGRESS')
      .when(move('G1', 'IN_PROGRESS'))
      .thenRefuses(/gap G1 is already IN_PROGRESS; moves allowed from IN_PROGRESS: /);
  });

  it('a move of an unknown gap is refused naming it', () => {
    gapIn('OPEN')
      .when(move('NOPE', 'RESOLVED'))
      .thenRefuses(/unknown gap NOPE/);
  });

  it('a move to BLOCKED may name the known gap it waits on, and the event keeps it', () => {
    gapIn('IN_PROGRESS')
      .when(move('G1', 'BLOCKED', { blockedBy: 'G2' }))
      .then([{ type: 'gap.moved', data: { id: 'G1', to: 'BLOCKED', blockedBy: 'G2' } }]);
  });

  it('blocked-by goes only with a move to BLOCKED', () => {
    gapIn('IN_PROGRESS')
      .when(move('G1', 'PROPOSED', { blockedBy: 'G2' }))
      .thenRefuses(/blocked-by goes only with a move to BLOCKED/);
  });

  it('a gap cannot be blocked by itself', () => {
    gapIn('IN_PROGRESS')
      .when(move('G1', 'BLOCKED', { blockedBy: 'G1' }))
      .thenRefuses(/gap G1 cannot wait on itself/);
  });

  it('blocked-by must name a known gap', () => {
    gapIn('IN_PROGRESS')
      .when(move('G1', 'BLOCKED', { blockedBy: 'NOPE' }))
      .thenRefuses(/blocked-by gap NOPE is unknown/);
  });
});

describe('R22: gap ids are unique', () => {
  it('opening a gap whose id exists is refused, naming its severity and state', () => {
    gapIn('OPEN')
      .when(open('G1', 'LOW'))
      .thenRefuses(/gap G1 already exists \(HIGH, OPEN\)/);
  });

  it('an id is never reused, not even once its gap is closed', () => {
    gapIn('RESOLVED')
      .when(open('G1', 'LOW'))
      .thenRefuses(/gap G1 already exists \(HIGH, RESOLVED\)/);
  });

  it('a gap spawned by a known gap is recorded with it', () => {
    gapIn('OPEN')
      .when(open('G3', 'MEDIUM', { spawnedBy: 'G1' }))
      .then([{ type: 'gap.opened', data: { id: 'G3', severity: 'MEDIUM', spawnedBy: 'G1', title: '', blocking: true } }]);
  });

  it('a gap spawned by an unknown gap is refused', () => {
    gapIn('OPEN')
      .when(open('G3', 'MEDIUM', { spawnedBy: 'NOPE' }))
      .thenRefuses(/spawned-by gap NOPE is unknown/);
  });
});

describe('R7: severity changes', () => {
  it.each(OPEN_STATES)('an open gap (%s) may change severity', (state) => {
    gapIn(state)
      .when(severity('G1', 'CRITICAL'))
      .then([severity('G1', 'CRITICAL')]);
  });

  it('a deferred gap may change severity (R29: only its half weight changes)', () => {
    gapIn('USER_DEFERRED')
      .when(severity('G1', 'LOW'))
      .then([severity('G1', 'LOW')]);
  });

  it.each(CLOSED_STATES)('a closed gap (%s) cannot change severity: reopen it first', (state) => {
    gapIn(state)
      .when(severity('G1', 'LOW'))
      .thenRefuses(new RegExp(`gap G1 is ${state}; reopen it before changing its severity`));
  });

  it('a change to the severity the gap already has is refused', () => {
    gapIn('OPEN')
      .when(severity('G1', 'HIGH'))
      .thenRefuses(/gap G1 is already HIGH/);
  });

  it('a severity change of an unknown gap is refused', () => {
    gapIn('OPEN')
      .when(severity('NOPE', 'HIGH'))
      .thenRefuses(/unknown gap NOPE/);
  });

  it('a resolved gap, reopened, may change severity again (in the round the reopen started)', () => {
    // Round 1 resolves G1 while G2 stays open (weighted net +4: CONVERGING); the reopen starts round 2.
    given(start(), open('G1', 'HIGH'), open('G2', 'LOW'), ...round(1, resolve('G1')), move('G1', 'OPEN'))
      .when(severity('G1', 'LOW'))
      .then([severity('G1', 'LOW')]);
  });
});
