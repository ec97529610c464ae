import { describe, expect, it } from 'vitest';
import { EVENT_VERSION, GapflowEvent, hiddenTextProblem } from '../../events/index.js';

/*
 * Which characters a request's text may not hold, and how the refusal names
 * them; and that the schema reading log lines takes them as it always did.
 */

describe('hiddenTextProblem', () => {
  it('names the field and the code point of the first hidden character', () => {
    expect(hiddenTextProblem({ id: 'G-1', title: 'a\u{E0069}b' })).toMatch(/^title: U\+E0069 \(a Unicode tag character\) is not allowed; /);
    expect(hiddenTextProblem({ reason: 'x\u202Ey' })).toMatch(/^reason: U\+202E \(a bidirectional control\)/);
    expect(hiddenTextProblem({ rationale: 'x\u00ADy' })).toMatch(/^rationale: U\+00AD \(an invisible format character\)/);
    // Unassigned code points of the tag block render as nothing too.
    expect(hiddenTextProblem({ title: 'x\u{E0002}' })).toMatch(/^title: U\+E0002 \(a Unicode tag character\)/);
  });

  it('finds them however deep: split parts, metrics payloads, keys', () => {
    expect(hiddenTextProblem({ into: [{ id: 'A' }, { id: 'B', title: '\u200B' }] })).toMatch(/^into\[1\]\.title: U\+200B/);
    expect(hiddenTextProblem({ policy: 'forge', metrics: { votes: [{ concerns: ['ok', 'n\u2066o'] }] } })).toMatch(
      /^metrics\.votes\[0\]\.concerns\[1\]: U\+2066/,
    );
    expect(hiddenTextProblem({ metrics: { ['k\u200F']: 1 } })).toMatch(/^metrics \(a key\): U\+200F/);
  });

  it('nesting deeper than the call stack goes is walked, not overflowed', () => {
    let deep: unknown = 'x\u{E0041}';
    for (let i = 0; i < 200_000; i++) deep = [deep];
    expect(hiddenTextProblem({ metrics: { deep } })).toMatch(/U\+E0041/);
  });

  it('visible text in any script passes: accents, CJK, Arabic, emoji, markup', () => {
    expect(hiddenTextProblem({ title: 'Überprüfung 解析 مرحبا 🙂 <b>*x*</b>', n: 3, ok: true, none: null })).toBeNull();
  });
});

describe('a log line holding one still parses (history is never re-judged)', () => {
  it('a gap.opened line whose title is tag characters and a right-to-left mark', () => {
    const line = {
      v: EVENT_VERSION,
      seq: 2,
      id: 'e2',
      at: '2026-01-12T09:00:00.000Z',
      type: 'gap.opened',
      data: { id: 'G-1', severity: 'LOW', title: 'ok\u{E0069}\u200F', blocking: true },
    };
    expect(GapflowEvent.safeParse(line).success).toBe(true);
  });
});
