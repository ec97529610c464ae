import { describe, expect, it } from 'vitest';
import { Refusal, replay } from '../../src/index.js';
import { importedSession, type TimedRequest } from '../../src/session/index.js';

const NOW = new Date('2026-03-01T00:00:00Z');

/** A recorded session over four days: started, a gap found, a round that takes it up, a gap found after it. */
function recorded(): TimedRequest[] {
  return [
    { body: { type: 'session.started', data: { maxRounds: 5 } }, at: '2026-01-10T07:00:00Z' },
    { body: { type: 'gap.opened', data: { id: 'GAP-1', severity: 'HIGH' } }, at: '2026-01-10T09:30:00+02:00' },
    { body: { type: 'round.started', data: { round: 1 } }, at: '2026-01-11T11:00:00Z' },
    { body: { type: 'gap.moved', data: { id: 'GAP-1', to: 'IN_PROGRESS' } }, at: '2026-01-11T12:00:00Z' },
    { body: { type: 'round.closed', data: { round: 1 } }, at: '2026-01-12T08:00:00Z' },
    { body: { type: 'gap.opened', data: { id: 'GAP-2', severity: 'LOW' } }, at: '2026-01-13T08:00:00Z' },
  ];
}

function refusalOf(attempt: () => unknown): string {
  try {
    attempt();
  } catch (error) {
    expect(error).toBeInstanceOf(Refusal);
    return (error as Error).message;
  }
  throw new Error('expected a refusal');
}

describe('importedSession: a recorded session keeps its dates (R30)', () => {
  it('given lines with times, each event carries its own line time, an automatic round.started its request time', () => {
    const { events } = importedSession(recorded(), undefined, { now: NOW });
    expect(events.map((e) => [e.type, e.at])).toEqual([
      ['session.started', '2026-01-10T07:00:00.000Z'],
      // 09:30 at +02:00 is 07:30 UTC: the same instant, written as the log writes every time.
      ['gap.opened', '2026-01-10T07:30:00.000Z'],
      ['round.started', '2026-01-11T11:00:00.000Z'],
      ['gap.moved', '2026-01-11T12:00:00.000Z'],
      ['round.closed', '2026-01-12T08:00:00.000Z'],
      // A gap found after round 1 closed opens round 2 with it: the round starts when its first line happened.
      ['round.started', '2026-01-13T08:00:00.000Z'],
      ['gap.opened', '2026-01-13T08:00:00.000Z'],
    ]);
  });

  it('given the same lines, the figures are those of the same session recorded live', () => {
    const { events, view } = importedSession(recorded(), undefined, { now: NOW });
    expect(view.open.count).toBe(2);
    expect(replay(events)).toEqual(view);
  });

  it('takes two lines at the same instant (time may stand still, not go back)', () => {
    const lines = recorded();
    lines[2] = { ...lines[2]!, at: '2026-01-10T07:30:00Z' };
    lines[3] = { ...lines[3]!, at: '2026-01-10T07:30:00Z' };
    expect(() => importedSession(lines, undefined, { now: NOW })).not.toThrow();
  });

  it('refuses a time earlier than the line before it, naming the line and the value', () => {
    const lines = recorded();
    lines[4] = { ...lines[4]!, at: '2026-01-11T11:59:59Z' };
    const message = refusalOf(() => importedSession(lines, (i) => `f.jsonl line ${i + 1}`, { now: NOW }));
    expect(message).toContain('f.jsonl line 5');
    expect(message).toContain('2026-01-11T11:59:59Z');
    expect(message).toMatch(/backwards/);
  });

  it('refuses a time in the future', () => {
    const lines = recorded();
    lines[5] = { ...lines[5]!, at: '2026-03-01T00:00:01Z' };
    const message = refusalOf(() => importedSession(lines, undefined, { now: NOW }));
    expect(message).toMatch(/^line 6: .*2026-03-01T00:00:01Z.*future/);
  });

  it('refuses a line without a time, and one whose time is not a date-time with an offset', () => {
    const missing = recorded();
    delete missing[1]!.at;
    expect(refusalOf(() => importedSession(missing, undefined, { now: NOW }))).toMatch(/^line 2: no "at"/);
    const local = recorded();
    local[1] = { ...local[1]!, at: '2026-01-10 09:30' };
    expect(refusalOf(() => importedSession(local, undefined, { now: NOW }))).toMatch(/^line 2: at "2026-01-10 09:30" is not a date-time/);
  });

  it('refuses a history that does not begin with session.started', () => {
    expect(refusalOf(() => importedSession(recorded().slice(1), undefined, { now: NOW }))).toMatch(/^line 1: .*begins with session.started/);
  });

  it('refuses a line the rules refuse, named as its line', () => {
    const lines = recorded();
    lines[3] = { ...lines[3]!, body: { type: 'gap.moved', data: { id: 'GAP-9', to: 'RESOLVED' } } };
    expect(refusalOf(() => importedSession(lines, undefined, { now: NOW }))).toMatch(/^line 4: .*GAP-9/);
  });
});
