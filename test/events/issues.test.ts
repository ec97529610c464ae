import { describe, expect, it } from 'vitest';
import { EventRequest, formatIssue, GapflowEvent, readIssue, upcast } from '../../events/index.js';

describe('formatIssue', () => {
  it('writes control characters from the input escaped, so the message stays one safe line', () => {
    const hostile = { v: 4, seq: 6, id: 'e6', at: '2026-01-12T09:00:06.000Z', type: 'session.started', data: { 'a\nb\u001b[2J': 0 } };
    const parsed = GapflowEvent.safeParse(upcast(hostile));
    expect(parsed.success).toBe(false);
    const message = formatIssue(parsed.error!);
    expect(message).toBe('data: unknown field "a\\nb\\u001b[2J"');
    // eslint-disable-next-line no-control-regex -- a control character is exactly what must not be there
    expect(message).not.toMatch(/[\u0000-\u001f]/);
  });

  it('without the input reported, lists what the field takes', () => {
    const parsed = GapflowEvent.safeParse({
      v: 5,
      seq: 2,
      id: 'e2',
      at: '2026-01-12T09:00:06.000Z',
      type: 'gap.opened',
      data: { id: 'G-1', severity: 'URGENT', title: '', blocking: true },
    });
    expect(parsed.success).toBe(false);
    expect(formatIssue(parsed.error!)).toBe('data.severity: expected one of CRITICAL, HIGH, MEDIUM, LOW, UNTRIAGED');
  });
});

describe('readIssue: the field, the value given, what it takes, the nearest', () => {
  const read = (input: unknown) => {
    const parsed = EventRequest.safeParse(input, { reportInput: true });
    expect(parsed.success).toBe(false);
    return readIssue(parsed.error!, { fields: (path) => (path.join('.') === 'data' ? ['id', 'severity', 'title', 'spawnedBy', 'blocking'] : undefined) });
  };

  it('a word not in its list: echoed, the list, and the nearest word', () => {
    const { message, bad } = read({ type: 'gap.opened', data: { id: 'G-1', severity: 'MEDUIM' } });
    expect(message).toBe('data.severity: "MEDUIM" is not one of CRITICAL, HIGH, MEDIUM, LOW, UNTRIAGED (did you mean MEDIUM?)');
    expect(bad).toEqual({ field: 'data.severity', value: 'MEDUIM', valid: ['CRITICAL', 'HIGH', 'MEDIUM', 'LOW', 'UNTRIAGED'], suggestion: 'MEDIUM' });
  });

  it('a word nothing is near: the list, no guess', () => {
    expect(read({ type: 'gap.opened', data: { id: 'G-1', severity: 'whenever' } }).bad.suggestion).toBeNull();
  });

  it('an unknown event type: the types, and the nearest', () => {
    const { message, bad } = read({ type: 'gap.openned', data: {} });
    expect(message).toMatch(
      /^type: "gap\.openned" is not one of session\.started, .*metrics\.recorded, verification\.ran, findings\.synced \(did you mean gap\.opened\?\)$/,
    );
    expect(bad.field).toBe('type');
  });

  it('a missing word: said to be missing, with what it takes', () => {
    expect(read({ type: 'gap.opened', data: { id: 'G-1' } }).message).toBe('data.severity: missing; it takes one of CRITICAL, HIGH, MEDIUM, LOW, UNTRIAGED');
  });

  it('an unknown field: named, with the fields there are and the nearest', () => {
    const { message, bad } = read({ type: 'gap.opened', data: { id: 'G-1', severity: 'LOW', titel: 'x' } });
    expect(message).toBe('data: unknown field "titel"; fields: id, severity, title, spawnedBy, blocking (did you mean title?)');
    expect(bad).toMatchObject({ field: 'data.titel', value: 'titel', suggestion: 'title' });
  });

  it('a value out of range or of the wrong kind: echoed with the bound or the kind', () => {
    expect(read({ type: 'round.closed', data: { round: 0 } }).message).toBe('data.round: 0 is too small: at least 1');
    expect(read({ type: 'round.closed', data: { round: 'two' } }).message).toBe('data.round: "two" is not a number');
    expect(read({ type: 'gap.opened', data: { id: 'G 1', severity: 'LOW' } }).message).toMatch(/^data\.id: a gap id is letters.*, not "G 1"$/);
  });

  it('a long value is echoed cut short, its length said', () => {
    const { message } = read({ type: 'gap.opened', data: { id: 'G-1', severity: 'LOW', title: 'x'.repeat(600) } });
    expect(message).toMatch(/^data\.title: "x{38}… \(600 characters\) is too long: at most 500 characters$/);
  });
});
