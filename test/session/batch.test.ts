import { describe, expect, it } from 'vitest';
import { Refusal, replay } from '../../src/index.js';
import { newSession } from '../support.js';

describe('Session.recordAll: a batch lands whole or not at all', () => {
  it('decides each request against the view the ones before it leave, and appends them in one go', () => {
    const s = newSession();
    s.openGap('GAP-1', 'HIGH');
    const { groups } = s.recordAll([
      { body: { type: 'round.started', data: { round: 1 } } },
      { body: { type: 'gap.moved', data: { id: 'GAP-1', to: 'RESOLVED' } }, id: 'mine' },
      { body: { type: 'gap.opened', data: { id: 'GAP-2', severity: 'LOW' } } },
    ]);
    expect(groups.map((g) => g.map((e) => e.seq))).toEqual([[3], [4], [5]]);
    expect(groups[1]![0]!.id).toBe('mine');
    expect(s.log.read().map((e) => e.seq)).toEqual([1, 2, 3, 4, 5]);
    expect(replay(s.log.read()).open.count).toBe(1);
  });

  it('a refused request leaves log and view as they were and is named by where()', () => {
    const s = newSession();
    s.openGap('GAP-1', 'HIGH');
    const before = s.log.read();
    const view = s.view;
    const attempt = () =>
      s.recordAll(
        [
          { body: { type: 'round.started', data: { round: 1 } } },
          { body: { type: 'gap.moved', data: { id: 'GAP-1', to: 'RESOLVED' } } },
          { body: { type: 'gap.moved', data: { id: 'GAP-1', to: 'RESOLVED' } } },
        ],
        (i) => `item ${i + 1}`,
      );
    expect(attempt).toThrow(Refusal);
    expect(attempt).toThrow(/^item 3: gap\.moved GAP-1: gap GAP-1 is already RESOLVED/);
    expect(s.log.read()).toEqual(before);
    expect(s.view).toBe(view);
  });
});

describe('session.bound', () => {
  it('records the agent session; a new one replaces it; the same one twice is refused', () => {
    const s = newSession();
    s.record({ type: 'session.bound', data: { agentSession: 'A' } });
    expect(s.view.agentSession).toBe('A');
    expect(() => s.record({ type: 'session.bound', data: { agentSession: 'A' } })).toThrow(/already bound to agent session A/);
    s.record({ type: 'session.bound', data: { agentSession: 'B' } });
    expect(replay(s.log.read()).agentSession).toBe('B');
  });

  it('is refused after COMPLETE, like every event', () => {
    const s = newSession();
    s.openGap('GAP-1', 'LOW');
    s.startRound();
    s.closeRound();
    s.makeDecision('abandon');
    expect(() => s.record({ type: 'session.bound', data: { agentSession: 'A' } })).toThrow(/COMPLETE/);
  });

  it('is refused with an empty or multi-line id', () => {
    const s = newSession();
    expect(() => s.record({ type: 'session.bound', data: { agentSession: '' } })).toThrow(Refusal);
    expect(() => s.record({ type: 'session.bound', data: { agentSession: 'a\nb' } })).toThrow(/control characters/);
  });
});
