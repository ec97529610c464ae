import { describe, expect, it } from 'vitest';
import { loopStep, nextStep } from '../../src/core/index.js';
import { closeRound, decision, fact, given, metrics, open, round, start, startRound } from './given.js';

/*
 * R24: `extend rounds N` raises max_rounds by N, in any state but COMPLETE,
 * and is recorded with the limit it left; the next-step answer warns when
 * the next round to close is the last one and names the extension.
 */

const extend = (rounds: number, extra: { rationale?: string } = {}) => decision('extend_rounds', { rounds, ...extra });
const made = (rounds: number, outcome: object) => ({ type: 'decision.made' as const, data: { kind: 'extend_rounds' as const, rounds, outcome } });

/** Three baseline MEDIUM gaps; rounds that change nothing are flat, so they never converge on their own. */
const session = (maxRounds: number) => given(start({ maxRounds, stallThreshold: 5 }), open('M-1', 'MEDIUM'), open('M-2', 'MEDIUM'), open('M-3', 'MEDIUM'));

describe('R24: extending the round limit', () => {
  it('records the rounds added and the limit it leaves, and changes no state', () => {
    session(3)
      .and(...round(1))
      .when(extend(2))
      .then([made(2, { machine: { state: 'FLAT', flatCount: 1 }, steps: [], maxRounds: 3 + 2 })]);
  });

  it('the session runs past its old limit: round 3 of max 3 would have ended it, round 5 of max 5 does', () => {
    const extended = session(3).and(...round(1), extend(2), ...round(2), ...round(3));
    expect(extended.view.machine.state).not.toBe('COMPLETE');
    expect(extended.view.config.maxRounds).toBe(5);
    const ended = extended.and(...round(4), ...round(5));
    expect(ended.view.machine).toMatchObject({ state: 'COMPLETE', outcome: 'MAX_ROUNDS' });
    // Without the extension the same rounds end at round 3.
    expect(session(3).and(...round(1), ...round(2), ...round(3)).view.machine).toMatchObject({ state: 'COMPLETE', outcome: 'MAX_ROUNDS' });
  });

  it('extensions add up', () => {
    expect(session(3).and(extend(2), extend(4)).view.config.maxRounds).toBe(3 + 2 + 4);
  });

  it('an extension before round 1 survives the thresholds round 1 resolves (an auto preset included)', () => {
    // auto sets max_rounds to max(10, ceil(0.6 × baseline)) when round 1 starts; with 3 baseline gaps that is 10.
    const auto = given(start({ preset: 'auto' }), open('M-1', 'MEDIUM'), extend(3)).and(startRound(1));
    expect(auto.view.config.maxRounds).toBe(Math.max(10, Math.ceil(0.6 * 1)) + 3);
  });

  describe('before round 1 under preset auto, the extension adds to the limit round 1 settles', () => {
    // 20 baseline gaps: auto settles max_rounds at max(10, ceil(0.6 × 20)) = 12 when round 1 starts; before that it shows 10.
    const twenty = Array.from({ length: 20 }, (_, i) => open(`L-${i + 1}`, 'LOW'));
    const auto = () => given(start({ preset: 'auto' }), ...twenty);

    it('records no limit, since none is settled yet', () => {
      const [body] = auto().when(extend(3)).decided();
      expect(body).toMatchObject({ type: 'decision.made', data: { kind: 'extend_rounds', rounds: 3 } });
      expect(body!.data).toHaveProperty('outcome');
      expect((body!.data as { outcome: object }).outcome).not.toHaveProperty('maxRounds');
    });

    it('says the limit is provisional until round 1, then names the settled one (12 + 3 + 2)', () => {
      const before = auto().and(extend(3), extend(2));
      expect(before.view.decisions.map((d) => d.effect)).toEqual([
        "user extended the round limit by 3 rounds; max_rounds 13 for now: round 1 settles preset auto's limit, and the rounds are added to it",
        "user extended the round limit by 2 rounds; max_rounds 15 for now: round 1 settles preset auto's limit, and the rounds are added to it",
      ]);
      const after = before.and(startRound(1));
      expect(after.view.config.maxRounds).toBe(12 + 3 + 2);
      expect(after.view.decisions.map((d) => d.effect)).toEqual([
        'user extended the round limit by 3 rounds; max_rounds 15 from round 1 (preset auto settled 12 when it started)',
        'user extended the round limit by 2 rounds; max_rounds 17 from round 1 (preset auto settled 12 when it started)',
      ]);
    });

    it('a line that recorded the provisional limit (10 + 3) reads as the limit the session ran under (12 + 3)', () => {
      const recorded = fact({
        type: 'decision.made',
        data: {
          kind: 'extend_rounds',
          rounds: 3,
          outcome: { machine: { state: 'CONVERGING', flatCount: 0, outcome: null, pausedFrom: null }, steps: [], maxRounds: 13 },
        },
      });
      const view = auto().and(recorded, startRound(1)).view;
      expect(view.config.maxRounds).toBe(15);
      expect(view.decisions[0]!.effect).toMatch(/max_rounds 15 from round 1/);
    });

    it('an extension after round 1 starts records the settled limit plus its rounds', () => {
      auto()
        .and(extend(3), startRound(1))
        .when(extend(1))
        .then([made(1, { steps: [], maxRounds: 12 + 3 + 1 })]);
    });

    it('with max_rounds given, auto settles nothing about the limit: the extension records it at once', () => {
      given(start({ preset: 'auto', maxRounds: 6 }), ...twenty)
        .when(extend(2))
        .then([made(2, { steps: [], maxRounds: 8 })]);
    });
  });

  it('may be made while the last round is open, and that round then does not end the session', () => {
    const open2 = session(2).and(...round(1), startRound(2));
    open2.when(extend(1)).then([made(1, { machine: { state: 'FLAT' }, steps: [], maxRounds: 3 })]);
    const closed = open2.and(extend(1), closeRound(2));
    expect(closed.view.machine.state).not.toBe('COMPLETE');
  });

  it('is allowed while PAUSED and at a divergence warning, and leaves each where it was', () => {
    session(4)
      .and(...round(1), decision('pause'))
      .when(extend(1))
      .then([made(1, { machine: { state: 'PAUSED', pausedFrom: 'FLAT' }, steps: [] })]);
    session(4)
      .and(...round(1, open('C-1', 'CRITICAL')))
      .when(extend(1))
      .then([made(1, { machine: { state: 'DIVERGENCE_WARNING' }, steps: [] })]);
  });

  it('is refused once the session is COMPLETE', () => {
    session(1)
      .and(...round(1))
      .when(extend(1))
      .thenRefuses(/the session is COMPLETE \(MAX_ROUNDS\); nothing more can be recorded/);
  });

  it('needs the number of rounds, takes no gaps, and the number goes with no other decision', () => {
    session(3)
      .when(decision('extend_rounds'))
      .thenRefuses(/extend rounds needs the number of rounds to add/);
    session(3)
      .when(decision('extend_rounds', { rounds: 1, gaps: ['M-1'] }))
      .thenRefuses(/extend rounds takes no gaps/);
    session(3)
      .and(...round(1))
      .when(decision('pause', { rounds: 1 }))
      .thenRefuses(/a number of rounds goes only with extend rounds/);
  });

  it('the number must be a whole number from 1 (the schema refuses 0)', () => {
    session(3)
      .when(decision('extend_rounds', { rounds: 0 }))
      .thenRefuses(/data\.rounds/);
  });

  it('is refused in a session whose rounds have no limit of their own', () => {
    given(start({ policies: ['quality'] }))
      .when(extend(2))
      .thenRefuses(/no round limit of its own/);
  });

  it('in a session of metric policies with a max_rounds set, it raises that limit', () => {
    const quality = given(start({ policies: ['quality'], maxRounds: 2 }), metrics('quality', { score: 50 }));
    quality.when(extend(1)).then([made(1, { steps: [], maxRounds: 3 })]);
  });
});

describe('R24: next warns before the last round', () => {
  it('with the next round to start being the last, the reason says so and names the extension', () => {
    const view = session(2).and(...round(1)).view;
    const step = loopStep(view);
    expect(step).toMatchObject({ action: 'continue', lastRound: true, maxRounds: 2 });
    expect(step.reason).toMatch(
      /round 2 is the last: closing it ends the session at max_rounds \(2\) unless the user extends the limit \(decide extend-rounds N\)/,
    );
  });

  it('while the last round is open, it still warns', () => {
    const view = session(2).and(...round(1), startRound(2)).view;
    expect(loopStep(view).lastRound).toBe(true);
    expect(nextStep(view).reason).toMatch(/round 2 is the last/);
  });

  it('earlier rounds carry no warning, and an extension takes it away', () => {
    const early = session(3).and(...round(1)).view;
    expect(loopStep(early).lastRound).toBe(false);
    expect(nextStep(early).reason).not.toMatch(/is the last/);
    const extended = session(2).and(...round(1), extend(1)).view;
    expect(loopStep(extended)).toMatchObject({ lastRound: false, maxRounds: 3 });
    expect(nextStep(extended).reason).not.toMatch(/is the last/);
  });

  it('no warning once the session is COMPLETE', () => {
    const done = session(1).and(...round(1)).view;
    expect(done.machine.state).toBe('COMPLETE');
    expect(loopStep(done).lastRound).toBe(false);
  });
});
