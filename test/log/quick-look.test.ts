import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EVENT_VERSION, GapflowEvent } from '../../events/index.js';
import { createFileSession } from '../../src/index.js';
import { readAsWritten, scanBytes, sealLine } from '../../src/log/index.js';
import { baseline, tempDirs } from '../support.js';

/*
 * A sealed line of the current version gets a quick look on reads instead of
 * a full schema parse (`verify` always parses). The quick look must never
 * take a line the schema refuses, nor read one differently: whatever it
 * takes, a read at 'schema' depth takes too, to the same event.
 */

const tempDir = tempDirs('gapflow-quick-');

/** A session whose first round closes with a verdict, a step and a CRITICAL introduced: the log's lines, and the index of the round close. */
function sessionLines(): { lines: string[]; close: number } {
  const dir = tempDir();
  const session = createFileSession(dir);
  baseline(session, 'HIGH', 4);
  session.startRound();
  session.moveGap('B-HIGH-1', 'RESOLVED');
  session.openGap('N-1', 'CRITICAL');
  session.closeRound();
  const lines = readFileSync(join(dir, 'events.jsonl'), 'utf8').split('\n').slice(0, -1);
  return { lines, close: lines.findIndex((line) => line.includes('"round.closed"')) };
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Every path into `value` (the empty path included). */
function pathsOf(value: Json, at: (string | number)[] = []): (string | number)[][] {
  const inner = Array.isArray(value)
    ? value.flatMap((item, i) => pathsOf(item, [...at, i]))
    : typeof value === 'object' && value !== null
      ? Object.entries(value).flatMap(([key, item]) => pathsOf(item, [...at, key]))
      : [];
  return [at, ...inner];
}

type Change = { kind: 'set'; value: Json } | { kind: 'drop' } | { kind: 'add'; key: string; value: Json };

/** `data` with one change at `path` (a copy). */
function changed(data: Json, path: (string | number)[], change: Change): Json {
  const copy = structuredClone(data) as Json;
  if (path.length === 0) return change.kind === 'set' ? change.value : copy;
  const parent = path.slice(0, -1).reduce<Json>((node, key) => (node as Record<string | number, Json>)[key]!, copy) as Record<string | number, Json> | Json[];
  const last = path.at(-1)!;
  if (change.kind === 'set') (parent as Record<string | number, Json>)[last] = change.value;
  else if (change.kind === 'drop') {
    if (Array.isArray(parent)) parent.splice(Number(last), 1);
    else Reflect.deleteProperty(parent, last);
  } else {
    const target = (parent as Record<string | number, Json>)[last];
    if (typeof target === 'object' && target !== null && !Array.isArray(target)) target[change.key] = change.value;
  }
  return copy;
}

/** The log with its line `at` replaced by `event` (sealed in the chain), cut after it; `edit` changes the line's JSON text before it is sealed. */
function withLine(lines: readonly string[], at: number, event: Record<string, unknown>, edit: (json: string) => string = (json) => json): Buffer {
  let previous = '';
  const out: string[] = [];
  for (const line of lines.slice(0, at)) {
    out.push(`${line}\n`);
    previous = (JSON.parse(line) as { sum: string }).sum;
  }
  const { sum: _sum, ...content } = event;
  out.push(sealLine(edit(JSON.stringify(content)), previous).line);
  return Buffer.from(out.join(''), 'utf8');
}

/** Values that sit at an edge of some rule of the schema. */
const TELLING: Json[] = [
  -1,
  0,
  1,
  1.5,
  2 ** 60,
  '',
  'x'.repeat(70),
  'x'.repeat(20_001),
  'work',
  'review',
  'CONVERGING',
  'MAX_ROUNDS',
  'progress',
  'gaps',
  'G-1',
  'bad id',
  true,
  null,
  [],
  {},
  ['G-1'],
  { from: 'FLAT', to: 'STALLED' },
];

const readBoth = (bytes: Buffer) => [scanBytes(bytes, undefined, 0, 'sealed'), scanBytes(bytes, undefined, 0, 'schema')] as const;

describe('the quick look and event times', () => {
  /** A gap line of the current version at time `at`, as gapflow writes it. */
  const gapLine = (seq: number, at: string | null) => ({
    v: EVENT_VERSION,
    seq,
    id: `e-${seq}`,
    at,
    type: 'gap.opened',
    data: { id: `G-${seq}`, severity: 'LOW', title: 'A gap', blocking: true },
  });

  it('a time is taken only as the schema takes it, however often it comes, and one it took does not vouch for another', () => {
    const good = '2026-11-24T13:54:46.102Z';
    // Before any time was taken (the quick look remembers the last one it took: at first, none), the same good time twice, then times the schema refuses, each twice in a row (the quick look remembers the last time it took).
    const times = [null, '', good, good, null, '', '', '2026-02-30T13:54:46.102Z', '2026-02-30T13:54:46.102Z', `${good} `, good, '2026-11-24T24:00:00Z'];
    for (const at of times) {
      const quick = readAsWritten(gapLine(1, at), true);
      const full = GapflowEvent.safeParse(gapLine(1, at));
      expect({ at, taken: quick !== null }).toEqual({ at, taken: full.success });
    }
  });
});

describe('the quick look a sealed round close gets on reads', () => {
  it('is taken by a round close as gapflow writes it, to the event a full parse gives', () => {
    const { lines, close } = sessionLines();
    const event = JSON.parse(lines[close]!) as Record<string, unknown>;
    expect(event.v).toBe(EVENT_VERSION);
    const [quick, full] = readBoth(withLine(lines, close, event));
    expect(quick.fault).toBeNull();
    expect(quick.events).toEqual(full.events);
  });

  it.each([
    ['an infinite figure (1e999, which JSON.parse reads as Infinity)', (json: string) => json.replace(/"openEnd":\d+/, '"openEnd":1e999')],
    ['an infinite verdict figure', (json: string) => json.replace(/"figures":\{"openCount":/, '"figures":{"x":-1e999,"openCount":')],
    [
      'an own __proto__ key in a verdict’s figures (the schema’s record drops it)',
      (json: string) => json.replace(/"figures":\{"openCount":/, '"figures":{"__proto__":1,"openCount":'),
    ],
    ['a key the envelope does not have', (json: string) => json.replace(/^\{/, '{"extra":1,')],
  ])('reads a close with %s as a full parse does', (_name, edit) => {
    const { lines, close } = sessionLines();
    const event = JSON.parse(lines[close]!) as Record<string, unknown>;
    const bytes = withLine(lines, close, event, edit);
    expect(bytes.toString('utf8')).not.toBe(withLine(lines, close, event).toString('utf8'));
    const [quick, full] = readBoth(bytes);
    expect(quick.fault === null).toBe(full.fault === null);
    expect(quick.events).toEqual(full.events);
  });

  it('reads a gap line with a key the envelope does not have as a full parse does (refused)', () => {
    const { lines } = sessionLines();
    const at = lines.findIndex((line) => line.includes('"gap.opened"'));
    const bytes = withLine(lines, at, JSON.parse(lines[at]!) as Record<string, unknown>, (json) => json.replace(/^\{/, '{"extra":1,'));
    const [quick, full] = readBoth(bytes);
    expect(full.fault).not.toBeNull();
    expect(quick.fault).toEqual(full.fault);
  });

  it('never takes a close the schema refuses, for each telling value put at each place in its data, or added to each object in it', { timeout: 60_000 }, () => {
    const { lines, close } = sessionLines();
    const event = JSON.parse(lines[close]!) as Record<string, Json>;
    const paths = pathsOf(event.data!);
    const changes: Change[] = [
      { kind: 'drop' },
      ...TELLING.map((value) => ({ kind: 'set' as const, value })),
      ...['extra', 'kind', 'withdrawn', 'weightedWithdrawn', '__proto__'].flatMap((key) => TELLING.map((value) => ({ kind: 'add' as const, key, value }))),
    ];
    let tried = 0;
    for (const path of paths) {
      for (const what of changes) {
        const [quick, full] = readBoth(withLine(lines, close, { ...event, data: changed(event.data!, path, what) }));
        expect(quick.fault === null, `${JSON.stringify(path)} ${JSON.stringify(what).slice(0, 80)}`).toBe(full.fault === null);
        expect(quick.events).toEqual(full.events);
        tried++;
      }
    }
    expect(tried).toBeGreaterThan(1_000);
  });

  it('never takes a close the schema refuses, nor reads one differently (any one change anywhere in its data)', { timeout: 60_000 }, () => {
    const { lines, close } = sessionLines();
    const event = JSON.parse(lines[close]!) as Record<string, Json>;
    const paths = pathsOf(event.data!);
    const value = fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.constantFrom(...TELLING));
    const change: fc.Arbitrary<Change> = fc.oneof(
      value.map((v) => ({ kind: 'set' as const, value: v as Json })),
      fc.constant({ kind: 'drop' as const }),
      fc
        .tuple(fc.constantFrom('extra', 'kind', 'withdrawn', '__proto__', 'constructor'), value)
        .map(([key, v]) => ({ kind: 'add' as const, key, value: v as Json })),
    );
    fc.assert(
      fc.property(fc.constantFrom(...paths), change, (path, what) => {
        const data = changed(event.data!, path, what);
        const [quick, full] = readBoth(withLine(lines, close, { ...event, data }));
        expect(quick.fault === null).toBe(full.fault === null);
        expect(quick.events).toEqual(full.events);
      }),
      { numRuns: 3_000 },
    );
  });
});

describe('the quick look and control characters in shown text', () => {
  /** Shown text put in each place a line carries it: a title, a move's reason, an agent session, an event id. */
  const PLACES: { type: string; put: (event: Record<string, Json>, text: string) => Record<string, Json> }[] = [
    { type: 'gap.opened', put: (event, text) => ({ ...event, data: { ...(event.data as Record<string, Json>), title: text } }) },
    { type: 'gap.opened', put: (event, text) => ({ ...event, id: text }) },
    { type: 'gap.moved', put: (event, text) => ({ ...event, data: { ...(event.data as Record<string, Json>), reason: text } }) },
  ];

  /** A session with a move, and (`escaped`) a title holding a quote, so some line of the log has a backslash in its text. */
  function linesWithMove(escaped: boolean): string[] {
    const dir = tempDir();
    const session = createFileSession(dir);
    baseline(session, 'HIGH', 2);
    session.startRound();
    session.moveGap('B-HIGH-1', 'RESOLVED');
    if (escaped) session.openGap('N-1', 'LOW', { title: 'a "quoted" title' });
    return readFileSync(join(dir, 'events.jsonl'), 'utf8').split('\n').slice(0, -1);
  }

  const CONTROL = ['\u0000', '\u0007', '\n', '\t', '\u001f', '\u007f', '\u0085', '\u009f', '\u2028', '\u2029', '\u202e', '\u2066', '\u2069'];

  it('a line whose text holds a control character is never taken, whether or not the rest of the log has escapes; plain text is', () => {
    let refused = 0;
    for (const escaped of [false, true]) {
      const lines = linesWithMove(escaped);
      for (const { type, put } of PLACES) {
        const at = lines.findIndex((line) => line.includes(`"${type}"`));
        const event = JSON.parse(lines[at]!) as Record<string, Json>;
        for (const text of [...CONTROL.map((c) => `before${c}after`), 'plain text', 'a "quoted" one', 'back\\slash']) {
          const [quick, full] = readBoth(withLine(lines, at, put(event, text)));
          expect(quick.fault === null, `${type} ${JSON.stringify(text)} (escaped log: ${escaped})`).toBe(full.fault === null);
          expect(quick.events).toEqual(full.events);
          if (full.fault !== null) refused++;
        }
      }
    }
    // In both logs: every control character in a title and in a reason; in an event id, those below space and DEL (what an id may not hold).
    const inId = CONTROL.filter((c) => c <= '\u001f' || c === '\u007f').length;
    expect(inId).toBe(6);
    expect(refused).toBe((CONTROL.length * 2 + inId) * 2);
  });

  it('any text in a title, a reason or an id reads as a full parse reads it', { timeout: 60_000 }, () => {
    const logs = [linesWithMove(false), linesWithMove(true)];
    fc.assert(
      fc.property(fc.constantFrom(0, 1), fc.constantFrom(...PLACES), fc.string({ unit: 'binary', maxLength: 40 }), (which, { type, put }, text) => {
        const lines = logs[which]!;
        const at = lines.findIndex((line) => line.includes(`"${type}"`));
        const [quick, full] = readBoth(withLine(lines, at, put(JSON.parse(lines[at]!) as Record<string, Json>, text)));
        expect(quick.fault === null).toBe(full.fault === null);
        expect(quick.events).toEqual(full.events);
      }),
      { numRuns: 2_000 },
    );
  });
});

describe('a line is read as its whole text parses', () => {
  /** What JSON.parse makes of the whole line: an object, or null when it is not one. */
  const wholeLine = (line: string): Record<string, unknown> | null => {
    try {
      const json: unknown = JSON.parse(line);
      return typeof json === 'object' && json !== null && !Array.isArray(json) ? (json as Record<string, unknown>) : null;
    } catch {
      return null;
    }
  };

  it('a last line edited near its checksum (or anywhere) is "not a JSON object" exactly when its whole text is not one', { timeout: 60_000 }, () => {
    const { lines } = sessionLines();
    const last = lines.at(-1)!;
    const before = lines.slice(0, -1);
    const edit = fc.record({
      at: fc.oneof(fc.integer({ min: last.length - 40, max: last.length }), fc.integer({ min: 0, max: last.length })),
      cut: fc.integer({ min: 0, max: 3 }),
      put: fc.stringMatching(/^[{}[\],":\\a0 ]{0,4}$/),
    });
    const sealedEdge = ['{}', '{ }', '{"sum":"0123456789abcdef"}'];
    fc.assert(
      fc.property(fc.array(edit, { minLength: 1, maxLength: 3 }), (edits) => {
        const line = edits.reduce((text, { at, cut, put }) => text.slice(0, at) + put + text.slice(at + cut), last);
        const scan = scanBytes(Buffer.from([...before, line].join('\n') + '\n', 'utf8'));
        const whole = wholeLine(line);
        expect(scan.fault?.reason === 'not a JSON object', line).toBe(whole === null);
      }),
      { numRuns: 3_000 },
    );
    // Lines whose content without the checksum is an empty object, or whose checksum is not hex digits.
    for (const line of [
      ...sealedEdge.map((body) => body.replace(/\}$/, ',"sum":"0123456789abcdef"}')),
      '{,"sum":"0123456789abcdef"}',
      `${last.slice(0, -18)}"01234567890abc"}`,
      `${last.slice(0, -18)}0123456789abcd\\"}`,
    ]) {
      const scan = scanBytes(Buffer.from([...before, line].join('\n') + '\n', 'utf8'));
      expect(scan.fault?.reason === 'not a JSON object', line).toBe(wholeLine(line) === null);
    }
  });
});
