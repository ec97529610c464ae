import { describe, expect, it } from 'vitest';
import { Refusal, type StateChange } from '../../src/index.js';
import { baseline, newSession, playRound } from '../support.js';

describe('the library session', () => {
  it('tells subscribers of every state change, a transient STALLED included, until they unsubscribe', () => {
    const s = newSession();
    baseline(s, 'HIGH', 3);
    const heard: StateChange[] = [];
    const unsubscribe = s.subscribe(({ changes }) => heard.push(...changes));
    playRound(s, { resolve: ['B-HIGH-1'] }); // CONVERGING stays: no change
    playRound(s, {});
    playRound(s, {});
    s.makeDecision('accept_complexity');
    unsubscribe();
    s.makeDecision('pause');
    expect(heard.map((c) => `${c.round}:${c.from}->${c.to}`)).toEqual([
      '2:CONVERGING->FLAT',
      '3:FLAT->STALLED',
      '3:STALLED->DIVERGENCE_WARNING',
      '3:DIVERGENCE_WARNING->CONVERGING',
    ]);
    expect(heard[1]!.reason).toMatch(/flat_count = 2 reached stall_threshold 2/);
  });

  it('a refused request throws Refusal and changes neither the log nor the view', () => {
    const s = newSession();
    baseline(s, 'HIGH', 1);
    const view = s.view;
    const events = s.log.read().length;
    expect(() => s.moveGap('NOPE', 'RESOLVED')).toThrow(Refusal);
    expect(() => s.record({ type: 'gap.opened', data: { id: 'bad id', severity: 'HIGH' } })).toThrow(/gap.opened: data.id/);
    expect(s.view).toBe(view);
    expect(s.log.read()).toHaveLength(events);
  });

  it('a refusal carries what would make it possible, for the embedding code to phrase', () => {
    const s = newSession();
    baseline(s, 'HIGH', 1);
    playRound(s, {});
    const refusal = (() => {
      try {
        s.makeDecision('approve');
      } catch (error) {
        return error;
      }
    })();
    expect(refusal).toBeInstanceOf(Refusal);
    expect(refusal).toMatchObject({ remedy: 'give_rationale' });
  });

  it('views are frozen: a caller cannot change the session behind its back', () => {
    const s = newSession();
    baseline(s, 'HIGH', 1);
    const gap = s.view.gaps.get('B-HIGH-1')!;
    expect(() => {
      (gap as { state: string }).state = 'RESOLVED';
    }).toThrow(TypeError);
    expect(Object.isFrozen(s.view.rounds)).toBe(true);
  });

  it('stamps events at the edge with the injected clock and ids, seq contiguous from 1', () => {
    const s = newSession();
    baseline(s, 'LOW', 2);
    const events = s.log.read();
    expect(events.map((e) => e.seq)).toEqual([1, 2, 3]);
    expect(events.map((e) => e.at)).toEqual(['2026-01-12T09:00:00.000Z', '2026-01-12T09:00:01.000Z', '2026-01-12T09:00:02.000Z']);
    expect(new Set(events.map((e) => e.id)).size).toBe(3);
  });
});
