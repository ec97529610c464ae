import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { firstBadOffset, JSON_DEPTH_MAX, parseJsonText, readFindingsJson } from '../../src/sync/index.js';
import { refusalOf } from './refused.js';

/*
 * gapflow's own findings format ([{"id", "severity", "title"}]) and the JSON
 * text every JSON reader parses with: what it takes, and each refusal as
 * the one line a user reads (the file, where, what was wrong).
 */

const refusal = (read: () => unknown) => refusalOf(read);

describe('readFindingsJson', () => {
  const read = (text: string, source?: string) => readFindingsJson(text, { file: 'findings.json', ...(source === undefined ? {} : { source }) });
  const refused = (text: string, source?: string) => refusal(() => read(text, source));

  it('takes the ids as given, a severity in any case, and a title made one plain line (empty when absent)', () => {
    const text = JSON.stringify([
      { id: 'GAP-1', severity: 'high', title: 'Tabs\tand\nlines\u202e' },
      { id: 'x.y_z-2', severity: 'Untriaged' },
      { severity: 'CRITICAL', id: 'C', title: '' },
      { id: 'm', severity: 'mEdIuM', title: 'ok' },
      { id: 'l', severity: 'low' },
    ]);
    expect(read(text)).toEqual({
      source: 'json',
      format: 'json',
      findings: [
        { id: 'GAP-1', severity: 'HIGH', title: 'Tabs and lines' },
        { id: 'x.y_z-2', severity: 'UNTRIAGED', title: '' },
        { id: 'C', severity: 'CRITICAL', title: '' },
        { id: 'm', severity: 'MEDIUM', title: 'ok' },
        { id: 'l', severity: 'LOW', title: '' },
      ],
    });
  });

  it('files the snapshot under the source given, and takes an empty array as a snapshot with no findings', () => {
    expect(read('[]', 'my-script')).toEqual({ source: 'my-script', format: 'json', findings: [] });
  });

  it('refuses what is not an array of findings, naming the pointer', () => {
    expect(refused('{"id": "A", "severity": "LOW"}')).toBe('findings.json: the top level is an object, not an array of findings ({"id", "severity", "title"})');
    expect(refused('[{"id": "A", "severity": "LOW"}, "B"]')).toBe('findings.json: /1: a finding is an object ({"id", "severity", "title"}), not "B"');
    expect(refused('[[]]')).toBe('findings.json: /0: a finding is an object ({"id", "severity", "title"}), not an array');
  });

  it('refuses an unknown key rather than drop what it meant', () => {
    expect(refused('[{"id": "A", "severity": "LOW", "titel": "typo"}]')).toBe(
      'findings.json: /0/titel: unknown key "titel": a finding has id, severity and title',
    );
    expect(refused('[{"id": "A", "severity": "LOW", "a/b~c": 1}]')).toBe(
      'findings.json: /0/a~1b~0c: unknown key "a/b~c": a finding has id, severity and title',
    );
  });

  it('refuses a missing, malformed, long or repeated id', () => {
    expect(refused('[{"severity": "LOW"}]')).toBe('findings.json: /0/id: the id is nothing, not a string');
    expect(refused('[{"id": 7, "severity": "LOW"}]')).toBe('findings.json: /0/id: the id is 7, not a string');
    expect(refused('[{"id": "-lead", "severity": "LOW"}]')).toBe(
      'findings.json: /0/id: the id "-lead" is not letters, digits and . _ - starting with a letter or digit',
    );
    expect(refused('[{"id": "has space", "severity": "LOW"}]')).toBe(
      'findings.json: /0/id: the id "has space" is not letters, digits and . _ - starting with a letter or digit',
    );
    expect(refused(`[{"id": "${'a'.repeat(129)}", "severity": "LOW"}]`)).toBe(`findings.json: /0/id: the id "${'a'.repeat(38)}… is longer than 128 characters`);
    expect(refused('[{"id": "A", "severity": "LOW"}, {"id": "B", "severity": "LOW"}, {"id": "A", "severity": "HIGH"}]')).toBe(
      'findings.json: /2/id: the id "A" repeats /0/id: each finding has its own id',
    );
  });

  it("refuses a severity that is not one of gapflow's, offering the nearest", () => {
    expect(refused('[{"id": "A", "severity": "hihg"}]')).toBe(
      'findings.json: /0/severity: the severity "hihg" is not one of CRITICAL, HIGH, MEDIUM, LOW, UNTRIAGED (did you mean HIGH?)',
    );
    expect(refused('[{"id": "A", "severity": "error"}]')).toBe(
      'findings.json: /0/severity: the severity "error" is not one of CRITICAL, HIGH, MEDIUM, LOW, UNTRIAGED',
    );
    expect(refused('[{"id": "A", "severity": 3}]')).toBe('findings.json: /0/severity: the severity 3 is not one of CRITICAL, HIGH, MEDIUM, LOW, UNTRIAGED');
    expect(refused('[{"id": "A"}]')).toBe('findings.json: /0/severity: the severity nothing is not one of CRITICAL, HIGH, MEDIUM, LOW, UNTRIAGED');
  });

  it('refuses a title that is not a string, and a source name gapflow cannot use', () => {
    expect(refused('[{"id": "A", "severity": "LOW", "title": ["x"]}]')).toBe('findings.json: /0/title: the title is an array, not a string');
    expect(refused('[]', ' leading space')).toBe(
      'findings.json: the source " leading space" cannot be used: a source name is letters, digits and " ._@/+-", starting with a letter or digit',
    );
  });
});

describe('parseJsonText', () => {
  const parse = (text: string) => parseJsonText(text, 'in.json');
  const refused = (text: string) => refusal(() => parse(text));

  it('parses JSON, a leading byte order mark dropped', () => {
    expect(parse('\ufeff{"a": [1, "two", null]}')).toEqual({ a: [1, 'two', null] });
  });

  it('names the line and column of a syntax error, counting lines by \\n and columns from 1', () => {
    expect(refused('[\r\n  1,\r\n  2,,\r\n]')).toMatch(/^in\.json: line 3 column 5: not JSON: /);
    expect(refused('{"a": tru}')).toBe('in.json: line 1 column 10: not JSON: unexpected "}"');
    expect(refused('{"a": "\u0001"}')).toMatch(/^in\.json: line 1 column 8: not JSON: .*"\\u0001"/);
    expect(refused('nul')).toBe('in.json: line 1 column 4: the JSON ends early: the file is truncated');
    expect(refused('{"a": [1, 2')).toBe('in.json: line 1 column 12: the JSON ends early: the file is truncated');
    expect(refused('{"a": "unterminated')).toBe('in.json: line 1 column 20: the JSON ends early: the file is truncated');
    expect(refused('  \n ')).toBe('in.json: the text is empty, not JSON');
  });

  it(`takes nesting ${JSON_DEPTH_MAX} levels deep and refuses one more`, () => {
    expect(parse(`${'['.repeat(JSON_DEPTH_MAX)}${']'.repeat(JSON_DEPTH_MAX)}`)).toBeInstanceOf(Array);
    expect(refused(`{"a": ${'['.repeat(JSON_DEPTH_MAX)}${']'.repeat(JSON_DEPTH_MAX)}}`)).toMatch(/^in\.json: \/a(\/0)+\/?…: nested deeper than 256 levels/);
    // A million levels: JSON.parse takes it, the walk stops at the limit
    expect(refused(`${'['.repeat(1_000_000)}${']'.repeat(1_000_000)}`)).toMatch(/nested deeper than 256 levels/);
  });

  it('refuses a __proto__ key anywhere, however it is spelt, and nothing is polluted', () => {
    expect(refused('[{"ok": 1}, {"__proto__": {"polluted": 1}}]')).toBe('in.json: /1/__proto__: a "__proto__" key is refused');
    expect(refused('{"a": {"\\u005F\\u005Fproto\\u005F\\u005F": {}}}')).toBe('in.json: /a/__proto__: a "__proto__" key is refused');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    // constructor and prototype are only keys
    expect(parse('{"constructor": {"prototype": 1}}')).toEqual({ constructor: { prototype: 1 } });
  });
});

describe('firstBadOffset (where a refusal without a position from V8 points)', () => {
  const parses = (text: string) => {
    try {
      JSON.parse(text);
      return true;
    } catch {
      return false;
    }
  };
  /** Text near JSON: a JSON value's text with a few characters JSON cares about put in or taken out. */
  const nearJson = fc
    .tuple(
      fc.jsonValue().map((value) => JSON.stringify(value, null, 1)),
      fc.array(fc.tuple(fc.nat(), fc.boolean(), fc.constantFrom(...'{}[],:"\\ 0123456789.eE+-truefalsn\u0001\n\t'.split(''))), { maxLength: 3 }),
    )
    .map(([text, edits]) =>
      edits.reduce((t, [at, insert, c]) => {
        const i = at % (t.length + 1);
        return insert ? t.slice(0, i) + c + t.slice(i) : t.slice(0, i) + t.slice(i + 1);
      }, text),
    );

  it('agrees with JSON.parse on what is JSON, and points inside the text or at its end when it is not', () => {
    fc.assert(
      fc.property(nearJson, (text) => {
        const offset = firstBadOffset(text);
        expect(offset === -1).toBe(parses(text));
        expect(offset).toBeLessThanOrEqual(text.length);
      }),
      { numRuns: 2000 },
    );
  });

  it('points at the first character that cannot continue JSON', () => {
    expect(firstBadOffset('{"a": [1, 2,]}')).toBe(12);
    expect(firstBadOffset('{"a" 1}')).toBe(5);
    expect(firstBadOffset('[1] [2]')).toBe(4);
    expect(firstBadOffset('"\\x"')).toBe(2);
    expect(firstBadOffset('[-]')).toBe(2);
    expect(firstBadOffset('[1.]')).toBe(3);
    expect(firstBadOffset('[01]')).toBe(2);
    expect(firstBadOffset('{"a": 1')).toBe(7);
    expect(firstBadOffset(' {"a": [true, false, null, -1.5e+3, "\\u00e9"]} ')).toBe(-1);
  });
});
