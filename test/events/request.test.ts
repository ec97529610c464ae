import { describe, expect, it } from 'vitest';
import { parseRequest } from '../../events/index.js';

/* Where a request's text enters: the typed body the core's `decide` trusts, or the words of what is wrong with it. */
describe('parseRequest', () => {
  it('reads a request in any spelling into the typed body, defaults filled in', () => {
    const parsed = parseRequest({ type: 'GAP.OPENED', data: { id: 'G-1', severity: 'high' } });
    expect(parsed).toEqual({
      body: { type: 'gap.opened', data: { id: 'G-1', severity: 'HIGH', title: '', blocking: true } },
    });
  });

  it('gives no body for a malformed request: the line naming it and the field, and the value it is wrong about', () => {
    const parsed = parseRequest({ type: 'gap.opened', data: { id: 'G-1', severity: 'MEDUIM' } });
    expect('body' in parsed).toBe(false);
    expect(parsed.message).toMatch(/^gap\.opened G-1: data\.severity: "MEDUIM" is not one of .*\(did you mean MEDIUM\?\)$/);
    expect(parsed.message === undefined ? undefined : parsed.bad).toMatchObject({ field: 'data.severity', value: 'MEDUIM', suggestion: 'MEDIUM' });
  });

  it('names a hidden character before the schema reads the request', () => {
    const parsed = parseRequest({ type: 'gap.opened', data: { id: 'G-1', severity: 'LOW', title: 'ok\u{E0069}' } });
    expect(parsed.message).toBe(
      'gap.opened G-1: title: U+E0069 (a Unicode tag character) is not allowed; write the text without invisible or direction-changing characters',
    );
  });

  it('names what it can of input that is no request at all', () => {
    expect(parseRequest(42).message).toMatch(/^event: /);
  });
});
