import { describe, expect, it } from 'vitest';
import { formatIssue, GapflowEvent, upcast } from '../../events/index.js';

describe('formatIssue', () => {
  it('writes control characters zod echoes from the input escaped, so the message stays one safe line', () => {
    const hostile = { v: 4, seq: 6, id: 'e6', at: '2026-01-12T09:00:06.000Z', type: 'session.started', data: { 'a\nb\u001b[2J': 0 } };
    const parsed = GapflowEvent.safeParse(upcast(hostile));
    expect(parsed.success).toBe(false);
    const message = formatIssue(parsed.error!);
    expect(message).toBe('data: Unrecognized key: "a\\u000ab\\u001b[2J"');
  });

  it('leaves an ordinary message as zod words it', () => {
    const parsed = GapflowEvent.safeParse({ v: 4, seq: 2, id: 'e2', at: '2026-01-12T09:00:06.000Z', type: 'gap.opened', data: { id: 'G-1', severity: 'URGENT', title: '', blocking: true } });
    expect(parsed.success).toBe(false);
    expect(formatIssue(parsed.error!)).toMatch(/^data\.severity: Invalid option: expected one of /);
  });
});
