import { describe, expect, it } from 'vitest';
import { MemoryLog, recordDecided, Refusal, Session, type SessionView } from '../../src/index.js';

const bind = (agentSession: string) => ({ type: 'session.bound' as const, data: { agentSession } });

describe('recordDecided: a write decided on a view goes in only if the log has not moved since', () => {
  it('records what was decided on an unmoved log, deciding once', () => {
    const store = new MemoryLog();
    Session.create(store);
    const seen: number[] = [];
    const decided = recordDecided(
      () => Session.open(store),
      (view) => (seen.push(view.lastSeq), { record: bind('A'), at: view.lastSeq }),
    );
    expect(seen).toEqual([1]);
    expect(decided.at).toBe(1);
    expect(Session.open(store).view.agentSession).toBe('A');
  });

  it('decides again on the moved log when another writer appended between the decision and the write', () => {
    const store = new MemoryLog();
    Session.create(store);
    const seen: number[] = [];
    const decide = (view: SessionView) => {
      seen.push(view.lastSeq);
      // Another writer appends after this decision, the first time only.
      if (seen.length === 1) Session.open(store).openGap('G1', 'LOW');
      return { record: bind('A') };
    };
    recordDecided(() => Session.open(store), decide);
    expect(seen).toEqual([1, 2]);
    const view = Session.open(store).view;
    expect(view.agentSession).toBe('A');
    expect(view.lastSeq).toBe(3);
  });

  it('gives up after the last attempt, with the refusal, having written nothing of its own', () => {
    const store = new MemoryLog();
    Session.create(store);
    let calls = 0;
    const decide = () => {
      calls += 1;
      Session.open(store).openGap(`G${calls}`, 'LOW');
      return { record: bind('A') };
    };
    expect(() => recordDecided(() => Session.open(store), decide, 2)).toThrow(Refusal);
    expect(calls).toBe(2);
    expect(Session.open(store).view.agentSession).toBeNull();
  });

  it('records nothing when nothing was decided', () => {
    const store = new MemoryLog();
    Session.create(store);
    recordDecided(
      () => Session.open(store),
      () => ({ record: null }),
    );
    expect(Session.open(store).view.lastSeq).toBe(1);
  });
});
