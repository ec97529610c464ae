import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Finding, type ReadOptions, readSarif } from '../../src/sync/index.js';
import { eslintSarif, expectedFromEslint, idOf, removeProject, tempProject, writeFiles } from './producers.js';
import { refusalOf } from './refused.js';

/*
 * readSarif against real producers: ESLint 9 + @microsoft/eslint-formatter-sarif
 * run here over a module edited between runs, and CodeQL 2.23.0's output
 * (a trimmed fixture). The ids each run should give are worked out here
 * from the identity rule sarif.ts states, with this file's own sha256, so a
 * set difference between two runs says what a sync would open and resolve.
 */

const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'sync', 'sarif');
const CODEQL = readFileSync(join(FIXTURES, 'codeql-2.23.0-trimmed.sarif'), 'utf8');

const ids = (findings: readonly Finding[]) => new Set(findings.map((finding) => finding.id));
const minus = <T>(a: Set<T>, b: Set<T>) => new Set([...a].filter((x) => !b.has(x)));

const UNUSED = "'unused' is assigned a value but never used.";
const SPARE = "'spare' is assigned a value but never used.";
const EQEQEQ = "Expected '===' and instead saw '=='.";

/** The parts of a SARIF log these tests edit. */
interface EditableLog {
  runs: {
    tool: { driver: { rules: { properties: Record<string, unknown>; defaultConfiguration?: unknown }[] } };
    results: {
      level?: string;
      suppressions?: { status?: string }[];
      locations: { physicalLocation: { region: { startLine: number; startColumn?: number } } }[];
    }[];
  }[];
}

const refusal = (read: () => unknown) => refusalOf(read);

describe('readSarif over ESLint 9 runs made here (@microsoft/eslint-formatter-sarif)', () => {
  let dir: string;
  beforeAll(() => {
    dir = tempProject();
  });
  afterAll(() => removeProject(dir));

  const options = (): ReadOptions => ({ file: 'eslint.sarif', root: dir });

  it('keeps an id through shifted lines, drops it when fixed, makes one for a new finding, and gives back the same id when the finding returns', {
    timeout: 60_000,
  }, async () => {
    // Given a module with an unused variable and a loose comparison, and a second file with the same comparison
    writeFiles(dir, {
      'src/area.js': ['export function area(w, h) {', '  const unused = 1;', '  if (w == h) return w * w;', '  return w * h;', '}', ''].join('\n'),
      'src/other.js': 'export const same = (a, b) => a == b;\n',
    });
    const files = ['src/area.js', 'src/other.js'];
    const run1 = await eslintSarif(dir, files);
    const first = readSarif(run1.sarif, options());
    // Then the snapshot is ESLint's tool, its findings are ESLint's messages, with the ids the identity rule gives
    expect(first.source).toBe('ESLint');
    expect(first.format).toBe('sarif');
    expect(first.findings).toEqual(expectedFromEslint(run1, dir));
    const unusedId = idOf('ESLint', 'no-unused-vars', ['no-unused-vars', 'location', 'src/area.js', UNUSED]);
    const areaEq = idOf('ESLint', 'eqeqeq', ['eqeqeq', 'location', 'src/area.js', EQEQEQ]);
    const otherEq = idOf('ESLint', 'eqeqeq', ['eqeqeq', 'location', 'src/other.js', EQEQEQ]);
    expect(first.findings).toEqual([
      { id: unusedId, severity: 'HIGH', title: `${UNUSED} (src/area.js:2)` },
      { id: areaEq, severity: 'MEDIUM', title: `${EQEQEQ} (src/area.js:3)` },
      { id: otherEq, severity: 'MEDIUM', title: `${EQEQEQ} (src/other.js:1)` },
    ]);

    // When the unused variable is removed (the comparison moves up a line)
    writeFiles(dir, { 'src/area.js': ['export function area(w, h) {', '  if (w == h) return w * w;', '  return w * h;', '}', ''].join('\n') });
    const run2 = await eslintSarif(dir, files);
    const second = readSarif(run2.sarif, options());
    // Then only that finding is gone; the moved one keeps its id, its title names the new line
    expect(second.findings).toEqual(expectedFromEslint(run2, dir));
    expect(minus(ids(first.findings), ids(second.findings))).toEqual(new Set([unusedId]));
    expect(minus(ids(second.findings), ids(first.findings))).toEqual(new Set());
    expect(second.findings.find((f) => f.id === areaEq)?.title).toBe(`${EQEQEQ} (src/area.js:2)`);

    // When blank lines go in above everything and a new unused variable appears
    writeFiles(dir, {
      'src/area.js': ['', '', '', 'export function area(w, h) {', '  const spare = 2;', '  if (w == h) return w * w;', '  return w * h;', '}', ''].join('\n'),
    });
    const run3 = await eslintSarif(dir, files);
    const third = readSarif(run3.sarif, options());
    // Then the new finding is the only new id, and nothing resolves
    const spareId = idOf('ESLint', 'no-unused-vars', ['no-unused-vars', 'location', 'src/area.js', SPARE]);
    expect(third.findings).toEqual(expectedFromEslint(run3, dir));
    expect(minus(ids(third.findings), ids(second.findings))).toEqual(new Set([spareId]));
    expect(minus(ids(second.findings), ids(third.findings))).toEqual(new Set());
    expect(third.findings.find((f) => f.id === areaEq)?.title).toBe(`${EQEQEQ} (src/area.js:6)`);

    // When the first unused variable comes back, lower down than it was
    writeFiles(dir, {
      'src/area.js': [
        '',
        '',
        '',
        'export function area(w, h) {',
        '  const spare = 2;',
        '  const unused = 1;',
        '  if (w == h) return w * w;',
        '  return w * h;',
        '}',
        '',
      ].join('\n'),
    });
    const run4 = await eslintSarif(dir, files);
    const fourth = readSarif(run4.sarif, options());
    // Then it comes back with the id it had in the first run
    expect(fourth.findings).toEqual(expectedFromEslint(run4, dir));
    expect(minus(ids(fourth.findings), ids(third.findings))).toEqual(new Set([unusedId]));
    expect(fourth.findings.find((f) => f.id === unusedId)?.title).toBe(`${UNUSED} (src/area.js:6)`);
  });

  it('numbers repeated identities in the order ESLint reports them, so two equal messages in one file are two findings', { timeout: 60_000 }, async () => {
    // Given a file with two loose comparisons: one rule, one file, one message
    writeFiles(dir, { 'src/twice.js': ['export function g(a, b) {', '  if (a == b) return 1;', '  if (a == 0) return 2;', '  return 3;', '}', ''].join('\n') });
    const run = await eslintSarif(dir, ['src/twice.js']);
    const snapshot = readSarif(run.sarif, options());
    // Then the second is the first's identity with 1 appended
    const identity = ['eqeqeq', 'location', 'src/twice.js', EQEQEQ];
    expect(snapshot.findings.map((f) => f.id)).toEqual([idOf('ESLint', 'eqeqeq', identity), idOf('ESLint', 'eqeqeq', [...identity, 1])]);
    expect(snapshot.findings).toEqual(expectedFromEslint(run, dir));

    // When the first is fixed, the one left takes the first id (which of two equal findings went cannot be told)
    writeFiles(dir, {
      'src/twice.js': ['export function g(a, b) {', '  if (a === b) return 1;', '  if (a == 0) return 2;', '  return 3;', '}', ''].join('\n'),
    });
    const after = readSarif((await eslintSarif(dir, ['src/twice.js'])).sarif, options());
    expect(after.findings).toEqual([{ id: idOf('ESLint', 'eqeqeq', identity), severity: 'MEDIUM', title: `${EQEQEQ} (src/twice.js:3)` }]);
  });

  it("refuses a run where a file failed to parse, naming the invocation and ESLint's message: its findings are not a whole snapshot", {
    timeout: 60_000,
  }, async () => {
    // Given a good file with findings and a file ESLint cannot parse
    writeFiles(dir, {
      'src/fine.js': 'export const f = (a) => a == 1;\n',
      'src/broken.js': 'export const = 1;\n',
    });
    const run = await eslintSarif(dir, ['src/fine.js', 'src/broken.js']);
    const fatal = run.results.flatMap((result) => result.messages).find((message) => message.fatal);
    expect(fatal?.message).toMatch(/^Parsing error: /);
    // Then the log is refused, not read as "the broken file's findings are all fixed"
    expect(refusal(() => readSarif(run.sarif, options()))).toBe(
      `eslint.sarif: /runs/0/invocations/0: the tool's run failed: ${fatal!.message}; its findings are not a whole snapshot`,
    );
  });

  it('leaves out a suppressed finding, keeps the one beside it, and counts a suppression under review or rejected as none', { timeout: 60_000 }, async () => {
    // Given a loose comparison under an eslint-disable comment and one without
    writeFiles(dir, {
      'src/legacy.js': [
        'export function h(a) {',
        '  // eslint-disable-next-line eqeqeq -- legacy code',
        '  if (a == 1) return 1;',
        '  return a == 2;',
        '}',
        '',
      ].join('\n'),
    });
    const run = await eslintSarif(dir, ['src/legacy.js']);
    const log = JSON.parse(run.sarif) as EditableLog;
    // (the formatter writes both, the suppressed one with an inSource suppression, the other with an empty list)
    expect(log.runs[0]!.results.map((r) => r.suppressions)).toEqual([[], [{ kind: 'inSource', justification: 'legacy code' }]]);
    const kept = idOf('ESLint', 'eqeqeq', ['eqeqeq', 'location', 'src/legacy.js', EQEQEQ]);
    // Then the snapshot holds the unsuppressed one only, as ESLint's own messages do
    const snapshot = readSarif(run.sarif, options());
    expect(snapshot.findings).toEqual([{ id: kept, severity: 'MEDIUM', title: `${EQEQEQ} (src/legacy.js:4)` }]);
    expect(snapshot.findings).toEqual(expectedFromEslint(run, dir));
    // And the same when the formatter is told to leave suppressed results out
    expect(readSarif((await eslintSarif(dir, ['src/legacy.js'], { ignoreSuppressed: true })).sarif, options()).findings).toEqual(snapshot.findings);
    // And an accepted suppression holds; one still under review, or rejected, does not (it may yet be refused: the finding stands)
    log.runs[0]!.results[1]!.suppressions![0]!.status = 'accepted';
    expect(readSarif(JSON.stringify(log), options()).findings).toEqual(snapshot.findings);
    for (const status of ['underReview', 'rejected']) {
      log.runs[0]!.results[1]!.suppressions![0]!.status = status;
      expect(readSarif(JSON.stringify(log), options()).findings.map((f) => f.id)).toEqual([
        kept,
        idOf('ESLint', 'eqeqeq', ['eqeqeq', 'location', 'src/legacy.js', EQEQEQ, 1]),
      ]);
    }
  });

  it('names files by the absolute URI when no root is given or the file is outside it, and by the decoded relative path inside it', {
    timeout: 60_000,
  }, async () => {
    writeFiles(dir, { 'src/with space.js': 'export const s = (a) => a == 1;\n' });
    const run = await eslintSarif(dir, ['src/with space.js']);
    const uri = pathToFileURL(join(dir, 'src/with space.js')).href;
    expect(run.sarif).toContain('with%20space.js');
    expect(readSarif(run.sarif, { file: 'x', root: dir }).findings[0]).toEqual({
      id: idOf('ESLint', 'eqeqeq', ['eqeqeq', 'location', 'src/with space.js', EQEQEQ]),
      severity: 'MEDIUM',
      title: `${EQEQEQ} (src/with space.js:1)`,
    });
    const absolute = {
      id: idOf('ESLint', 'eqeqeq', ['eqeqeq', 'location', uri, EQEQEQ]),
      severity: 'MEDIUM',
      title: `${EQEQEQ} (${join(dir, 'src/with space.js')}:1)`,
    };
    expect(readSarif(run.sarif, { file: 'x' }).findings[0]).toEqual(absolute);
    expect(readSarif(run.sarif, { file: 'x', root: join(dir, 'elsewhere') }).findings[0]).toEqual(absolute);
  });
});

describe('readSarif over CodeQL 2.23.0 output (a trimmed real log)', () => {
  const XSS_MESSAGE = Array.from({ length: 5 }, (_, n) => `Cross-site scripting vulnerability due to [user-provided value](${n + 1}).`).join(' ');
  const XSS_PATH = 'wp-content/plugins/astra-addon/addons/blog-pro/assets/js/unminified/jquery-history.js';
  const RANGE_MESSAGE = 'Suspicious character range that is equivalent to \\[A-Z\\\\[\\\\\\\\]^_`a-z\\].';
  const rangeIdentity = [
    'js/overly-large-range',
    'partialFingerprints',
    '%SRCROOT%/about-us/index.html',
    'primaryLocationLineHash',
    'c1fb750ea2be7401:1',
    'primaryLocationStartColumnFingerprint',
    '181',
  ];
  const xssIdentity = [
    'js/xss',
    'partialFingerprints',
    `%SRCROOT%/${XSS_PATH}`,
    'primaryLocationLineHash',
    '3775e7da77a07b67:1',
    'primaryLocationStartColumnFingerprint',
    '54',
  ];
  const modified = (change: (log: EditableLog) => void) => {
    const log = JSON.parse(CODEQL) as EditableLog;
    change(log);
    return JSON.stringify(log);
  };

  it('takes the identity from the partial fingerprints with the rule and file, and the severity from security-severity (5.0 medium, 7.8 high)', () => {
    const snapshot = readSarif(CODEQL, { file: 'codeql.sarif' });
    expect(snapshot.source).toBe('CodeQL');
    expect(snapshot.findings).toEqual([
      { id: idOf('CodeQL', 'js-overly-large-range', rangeIdentity), severity: 'MEDIUM', title: `${RANGE_MESSAGE} (about-us/index.html:416)` },
      { id: idOf('CodeQL', 'js-xss', xssIdentity), severity: 'HIGH', title: `${XSS_MESSAGE} (${XSS_PATH}:1388)` },
    ]);
  });

  it('gives the same id when the finding moves to another line, and another when the tool is filed under another source', () => {
    const moved = modified((log) => {
      log.runs[0]!.results[0]!.locations[0]!.physicalLocation.region.startLine = 420;
    });
    const [range] = readSarif(moved, { file: 'codeql.sarif' }).findings;
    expect(range).toEqual({
      id: idOf('CodeQL', 'js-overly-large-range', rangeIdentity),
      severity: 'MEDIUM',
      title: `${RANGE_MESSAGE} (about-us/index.html:420)`,
    });
    expect(readSarif(CODEQL, { file: 'codeql.sarif', source: 'codeql-nightly' }).findings[0]!.id).toBe(
      idOf('codeql-nightly', 'js-overly-large-range', rangeIdentity),
    );
  });

  it('takes the level from the rule\'s defaultConfiguration when no security-severity is given (warning, error), then "warning", and applies the overrides', () => {
    const noScores = modified((log) => {
      for (const rule of log.runs[0]!.tool.driver.rules) delete rule.properties['security-severity'];
    });
    expect(readSarif(noScores, { file: 'c' }).findings.map((f) => f.severity)).toEqual(['MEDIUM', 'HIGH']);
    expect(readSarif(noScores, { file: 'c', severity: { warning: 'LOW', error: 'CRITICAL' } }).findings.map((f) => f.severity)).toEqual(['LOW', 'CRITICAL']);
    const noDefaults = modified((log) => {
      for (const rule of log.runs[0]!.tool.driver.rules) {
        delete rule.properties['security-severity'];
        delete rule.defaultConfiguration;
      }
      log.runs[0]!.results[1]!.level = 'note';
    });
    expect(readSarif(noDefaults, { file: 'c' }).findings.map((f) => f.severity)).toEqual(['MEDIUM', 'LOW']);
    // The overrides apply to the security-severity bands too
    expect(readSarif(CODEQL, { file: 'c', severity: { medium: 'LOW', high: 'CRITICAL' } }).findings.map((f) => f.severity)).toEqual(['LOW', 'CRITICAL']);
  });

  it('gives a repeated partial fingerprint (two hits on one line, as CodeQL writes them) its occurrence number', () => {
    const twice = modified((log) => {
      const copy = structuredClone(log.runs[0]!.results[0]!);
      copy.locations[0]!.physicalLocation.region.startColumn = 190;
      log.runs[0]!.results.push(copy);
    });
    expect(readSarif(twice, { file: 'c' }).findings.map((f) => f.id)).toEqual([
      idOf('CodeQL', 'js-overly-large-range', rangeIdentity),
      idOf('CodeQL', 'js-xss', xssIdentity),
      idOf('CodeQL', 'js-overly-large-range', [...rangeIdentity, 1]),
    ]);
  });

  it('reads 50,000 results', { timeout: 60_000 }, () => {
    const rules = [{ id: 'big-rule', defaultConfiguration: { level: 'error' } }];
    const results = Array.from({ length: 50_000 }, (_, n) => ({
      ruleId: 'big-rule',
      ruleIndex: 0,
      message: { text: `finding ${n}` },
      locations: [{ physicalLocation: { artifactLocation: { uri: `src/f${n % 100}.js`, index: n % 100 }, region: { startLine: n + 1 } } }],
    }));
    const text = JSON.stringify({ version: '2.1.0', runs: [{ tool: { driver: { name: 'Big', rules } }, results }] });
    const snapshot = readSarif(text, { file: 'big.sarif' });
    expect(snapshot.findings).toHaveLength(50_000);
    expect(ids(snapshot.findings).size).toBe(50_000);
    expect(snapshot.findings[49_999]).toEqual({
      id: idOf('Big', 'big-rule', ['big-rule', 'location', 'src/f99.js', 'finding 49999']),
      severity: 'HIGH',
      title: 'finding 49999 (src/f99.js:50000)',
    });
  });
});

/** A one-run log of `results` from a tool named `name` with `rules`. */
function log(results: unknown[], rules: unknown[] = [], extra: Record<string, unknown> = {}, name = 'Tool'): string {
  return JSON.stringify({ version: '2.1.0', runs: [{ tool: { driver: { name, rules } }, results, ...extra }] });
}

describe('readSarif: what is a finding, its severity and its message', () => {
  const at = (uri: string, startLine?: number) => [{ physicalLocation: { artifactLocation: { uri }, ...(startLine ? { region: { startLine } } : {}) } }];

  it('counts only results of kind "fail" (the default) whose level is not "none"', () => {
    const results = ['pass', 'notApplicable', 'informational', 'review', 'open', 'fail', undefined].map((kind, n) => ({
      kind,
      ruleId: 'r',
      message: { text: `m${n}` },
    }));
    results.push({ kind: undefined, ruleId: 'r', message: { text: 'quiet' }, level: 'none' } as never);
    expect(readSarif(log(results), { file: 'k' }).findings.map((f) => f.title)).toEqual(['m5', 'm6']);
  });

  it('bands security-severity as GitHub does (9.0 and over critical), from the rule first and then the result, else the level', () => {
    const scores: [unknown, string][] = [
      ['10', 'CRITICAL'],
      ['9.0', 'CRITICAL'],
      [9.5, 'CRITICAL'],
      ['8.9', 'HIGH'],
      ['7.0', 'HIGH'],
      ['6.9', 'MEDIUM'],
      ['4.0', 'MEDIUM'],
      ['3.9', 'LOW'],
      ['0.1', 'LOW'],
      [' 5.5 ', 'MEDIUM'],
      // not a score in 0.1 to 10: the level (here "note", LOW) decides
      ['0.0', 'LOW'],
      ['0.05', 'LOW'],
      ['10.5', 'LOW'],
      ['-1', 'LOW'],
      ['high', 'LOW'],
      ['1e1', 'LOW'],
      ['NaN', 'LOW'],
      ['', 'LOW'],
      [null, 'LOW'],
      [{ score: 9 }, 'LOW'],
    ];
    const rules = scores.map(([score], n) => ({ id: `r${n}`, properties: { 'security-severity': score } }));
    const results = scores.map((_, n) => ({ ruleId: `r${n}`, level: 'note', message: { text: `m${n}` } }));
    expect(readSarif(log(results, rules), { file: 's' }).findings.map((f) => f.severity)).toEqual(scores.map(([, severity]) => severity));
    // The result's own score when its rule has none; the rule's wins when both have one
    const withResultScore = [
      { ruleId: 'plain', message: { text: 'a' }, properties: { 'security-severity': '9.1' } },
      { ruleId: 'r0', message: { text: 'b' }, properties: { 'security-severity': '1.0' } },
    ];
    expect(readSarif(log(withResultScore, [{ id: 'plain' }, ...rules]), { file: 's' }).findings.map((f) => f.severity)).toEqual(['CRITICAL', 'CRITICAL']);
  });

  it('finds the rule by rule.index, ruleIndex, or id (cut at its last "/"), in an extension when rule.toolComponent names one', () => {
    const rules = [
      { id: 'CA5350', defaultConfiguration: { level: 'error' } },
      { id: 'quiet', defaultConfiguration: { level: 'note' } },
    ];
    const extensions = [{ name: 'pack', rules: [{ id: 'ext-rule', properties: { 'security-severity': '9.8' } }] }];
    const results = [
      { ruleId: 'CA5350/md5', message: { text: 'by a hierarchical id' } },
      { ruleIndex: 1, message: { text: 'by ruleIndex' } },
      { rule: { index: 0, toolComponent: { index: 0 } }, message: { text: 'in an extension by index' } },
      { rule: { id: 'ext-rule', toolComponent: { name: 'pack' } }, message: { text: 'in an extension by name' } },
      { ruleId: 'unknown', message: { text: 'a rule the tool does not list' } },
    ];
    const text = JSON.stringify({ version: '2.1.0', runs: [{ tool: { driver: { name: 'T', rules }, extensions }, results }] });
    const findings = readSarif(text, { file: 'r' }).findings;
    expect(findings.map((f) => f.severity)).toEqual(['HIGH', 'LOW', 'CRITICAL', 'CRITICAL', 'MEDIUM']);
    expect(findings.map((f) => f.id)).toEqual([
      idOf('T', 'CA5350-md5', ['CA5350/md5', 'location', '', 'by a hierarchical id']),
      idOf('T', 'quiet', ['quiet', 'location', '', 'by ruleIndex']),
      idOf('T', 'ext-rule', ['ext-rule', 'location', '', 'in an extension by index']),
      idOf('T', 'ext-rule', ['ext-rule', 'location', '', 'in an extension by name']),
      idOf('T', 'unknown', ['unknown', 'location', '', 'a rule the tool does not list']),
    ]);
  });

  it("takes the message from its text, else its id in the rule's message strings with {n} filled, else the rule's description, else the rule id", () => {
    const rules = [
      {
        id: 'with-strings',
        messageStrings: { default: { text: 'Variable {0} is unused in {1}; {{braces}} stay' } },
        shortDescription: { text: 'Unused variable' },
      },
      { id: 'described', shortDescription: { text: 'A description' } },
      { id: 'bare' },
    ];
    const results = [
      { ruleId: 'with-strings', message: { id: 'default', arguments: ['x', 'f'] } },
      { ruleId: 'with-strings', message: { id: 'constructor' } },
      { ruleId: 'described', message: { id: 'toString' } },
      { ruleId: 'bare', message: {} },
      { ruleId: 'with-strings', message: { text: 'Text {0} with {{', arguments: ['wins'] } },
    ];
    expect(readSarif(log(results, rules), { file: 'm' }).findings.map((f) => f.title)).toEqual([
      'Variable x is unused in f; {braces} stay',
      'Unused variable',
      'A description',
      'bare',
      'Text wins with {',
    ]);
  });

  it('prefers fingerprints (keys sorted) to partial ones and to the location, and adds the location line to the title only', () => {
    const results = [
      { ruleId: 'r', message: { text: 'one' }, fingerprints: { 'b/v1': '2', 'a/v1': '1' }, partialFingerprints: { x: 'y' }, locations: at('src/a.js', 3) },
      { ruleId: 'r', message: { text: 'two' }, fingerprints: { 'a/v1': '1', 'b/v1': '2' }, locations: at('src/b.js', 9) },
      { ruleId: 'r', message: { text: 'three' }, locations: at('src/c.js') },
    ];
    const findings = readSarif(log(results), { file: 'f' }).findings;
    expect(findings).toEqual([
      { id: idOf('Tool', 'r', ['r', 'fingerprints', 'a/v1', '1', 'b/v1', '2']), severity: 'MEDIUM', title: 'one (src/a.js:3)' },
      { id: idOf('Tool', 'r', ['r', 'fingerprints', 'a/v1', '1', 'b/v1', '2', 1]), severity: 'MEDIUM', title: 'two (src/b.js:9)' },
      { id: idOf('Tool', 'r', ['r', 'location', 'src/c.js', 'three']), severity: 'MEDIUM', title: 'three (src/c.js)' },
    ]);
  });

  it('makes a hostile message a plain title: control characters, line breaks and direction overrides become spaces, a long one is cut', () => {
    const results = [
      { ruleId: 'r', message: { text: 'evil\u001b[31m\nnext\u202eline\u0000end' }, locations: at('a.js', 1) },
      { ruleId: 'r', message: { text: 'x'.repeat(100_000) } },
    ];
    const [evil, long] = readSarif(log(results), { file: 'h' }).findings;
    expect(evil!.title).toBe('evil [31m next line end (a.js:1)');
    expect(long!.title).toBe(`${'x'.repeat(499)}…`);
  });

  it('reads several runs of one tool as one snapshot, and runs of several tools when --source names the source', () => {
    const text = JSON.stringify({
      version: '2.1.0',
      runs: [
        { tool: { driver: { name: 'ESLint' } }, results: [{ ruleId: 'a', message: { text: 'x' } }] },
        { tool: { driver: { name: 'ESLint' } }, results: [{ ruleId: 'a', message: { text: 'x' } }] },
      ],
    });
    expect(readSarif(text, { file: 'r' }).findings.map((f) => f.id)).toEqual([
      idOf('ESLint', 'a', ['a', 'location', '', 'x']),
      idOf('ESLint', 'a', ['a', 'location', '', 'x', 1]),
    ]);
    const mixed = text.replace('"name":"ESLint"', '"name":"CodeQL"');
    expect(readSarif(mixed, { file: 'r', source: 'lint+scan' }).source).toBe('lint+scan');
  });

  it('takes an empty results array as a whole snapshot with no findings', () => {
    expect(readSarif(log([]), { file: 'e' })).toEqual({ source: 'Tool', format: 'sarif', findings: [] });
  });
});

describe('readSarif refuses what it cannot read, in one line naming the file and where', () => {
  const read = (text: string, options: Partial<ReadOptions> = {}) => refusal(() => readSarif(text, { file: 'bad.sarif', ...options }));

  it('refuses text that is not JSON or is cut short, naming the line and column', () => {
    const cut = CODEQL.slice(0, 1000);
    const lines = cut.split('\n');
    expect(read(cut)).toBe(`bad.sarif: line ${lines.length} column ${lines.at(-1)!.length + 1}: the JSON ends early: the file is truncated`);
    expect(read('')).toBe('bad.sarif: the text is empty, not JSON');
    expect(read('<?xml version="1.0"?>\n<testsuites/>')).toBe('bad.sarif: line 1 column 1: not JSON: unexpected "<"');
    expect(read('{\n  "version": "2.1.0",\n  "runs": [}\n')).toBe('bad.sarif: line 3 column 12: not JSON: unexpected "}"');
    expect(read('{"version" "2.1.0"}')).toMatch(/^bad\.sarif: line 1 column 12: not JSON: /);
    expect(read('{"version": "2.1.0", "runs": []} trailing')).toMatch(/^bad\.sarif: line 1 column 34: not JSON: /);
  });

  it('refuses a log that is not SARIF 2.1.0', () => {
    expect(read('{"version": "2.0.0", "runs": []}')).toBe('bad.sarif: /version: SARIF "2.0.0" is not read; gapflow reads SARIF 2.1.0');
    expect(read('{"runs": []}')).toBe('bad.sarif: /version: missing: a SARIF log names its version; gapflow reads SARIF 2.1.0');
    expect(read('[1, 2]')).toBe('bad.sarif: the top level is an array, not a SARIF log (an object with "version" and "runs")');
    expect(read('{"version": "2.1.0", "runs": {}}')).toBe('bad.sarif: /runs: is an object, not an array');
    expect(read('{"version": "2.1.0"}')).toBe('bad.sarif: /runs: missing: a SARIF log has runs');
  });

  it('refuses a log that is not a whole snapshot: no runs, a run without results, a run that failed', () => {
    expect(read('{"version": "2.1.0", "runs": []}')).toBe('bad.sarif: /runs: is empty: the log holds no tool run, so it is no snapshot of one');
    expect(read('{"version": "2.1.0", "runs": null}')).toBe('bad.sarif: /runs: is null: the producer failed, so the log is not a whole snapshot');
    expect(read('{"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "T"}}}]}')).toBe(
      'bad.sarif: /runs/0/results: is missing: the tool did not start its analysis, so the run is not a whole snapshot',
    );
    expect(read(log([], [], { invocations: [{ executionSuccessful: true }, { executionSuccessful: false }] }))).toBe(
      "bad.sarif: /runs/0/invocations/1: the tool's run failed (executionSuccessful is false); its findings are not a whole snapshot",
    );
    const notified = {
      executionSuccessful: false,
      toolExecutionNotifications: [
        { level: 'warning', message: { text: 'meh' } },
        { level: 'error', message: { text: 'Out of\nmemory' } },
      ],
    };
    expect(read(log([], [], { invocations: [notified] }))).toBe(
      "bad.sarif: /runs/0/invocations/0: the tool's run failed: Out of memory; its findings are not a whole snapshot",
    );
  });

  it('refuses results it cannot read, naming the pointer and the value', () => {
    expect(read(log([{ ruleId: 'r', message: { text: 'ok' } }, { ruleId: 'r' }]))).toBe(
      'bad.sarif: /runs/0/results/1/message: missing: message is required here',
    );
    expect(read(log([{ ruleId: 'r', message: 'text' }]))).toBe('bad.sarif: /runs/0/results/0/message: is "text", not an object');
    expect(read(log([{ message: {} }]))).toBe(
      'bad.sarif: /runs/0/results/0/message: has no text, no id the rule has a string for, and the result names no rule',
    );
    expect(read(log([{ ruleId: 'r', ruleIndex: 3, message: { text: 'm' } }], [{ id: 'r' }]))).toBe(
      'bad.sarif: /runs/0/results/0/ruleIndex: is 3, but /runs/0/tool/driver/rules has 1 rules',
    );
    expect(read('{"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "T"}}, "results": [{"ruleIndex": 1e400, "message": {"text": "m"}}]}]}')).toBe(
      'bad.sarif: /runs/0/results/0/ruleIndex: is Infinity, not an index (a whole number from 0, or -1)',
    );
    expect(read(log([{ ruleId: 'r', kind: 'bogus', message: { text: 'm' } }]))).toBe(
      'bad.sarif: /runs/0/results/0/kind: is "bogus", not one of notApplicable, pass, fail, review, open, informational',
    );
    expect(read(log([{ ruleId: 'r', level: 'fatal', message: { text: 'm' } }]))).toBe(
      'bad.sarif: /runs/0/results/0/level: is "fatal", not one of none, note, warning, error',
    );
    expect(read(log([{ ruleId: 'r', message: { text: 'm' }, partialFingerprints: { 'hash/v1': 7 } }]))).toBe(
      'bad.sarif: /runs/0/results/0/partialFingerprints/hash~1v1: is 7, not a string',
    );
    expect(read(log([{ ruleId: 'r', message: { text: 'm' }, suppressions: [{ status: 'maybe' }] }]))).toBe(
      'bad.sarif: /runs/0/results/0/suppressions/0/status: is "maybe", not one of accepted, underReview, rejected',
    );
    const zeroLine = [{ ruleId: 'r', message: { text: 'm' }, locations: [{ physicalLocation: { artifactLocation: { uri: 'a' }, region: { startLine: 0 } } }] }];
    expect(read(log(zeroLine))).toBe(
      'bad.sarif: /runs/0/results/0/locations/0/physicalLocation/region/startLine: is 0, not a line number (a whole number from 1)',
    );
    const textLine = [
      { ruleId: 'r', message: { text: 'm' }, locations: [{ physicalLocation: { artifactLocation: { uri: 'a' }, region: { startLine: '3' } } }] },
    ];
    expect(read(log(textLine))).toBe(
      'bad.sarif: /runs/0/results/0/locations/0/physicalLocation/region/startLine: is "3", not a line number (a whole number from 1)',
    );
  });

  it('refuses nesting deeper than 256 levels and __proto__ keys, however spelt', () => {
    const deep = `{"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "T"}}, "results": [], "properties": {"x": ${'['.repeat(300)}${']'.repeat(300)}}}]}`;
    expect(read(deep)).toMatch(/^bad\.sarif: \/runs\/0\/properties\/x(\/0)+\/?…: nested deeper than 256 levels, which no tool writes$/);
    expect(
      read('{"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "T"}}, "results": [{"__proto__": {"polluted": true}, "message": {"text": "m"}}]}]}'),
    ).toBe('bad.sarif: /runs/0/results/0/__proto__: a "__proto__" key is refused');
    expect(read('{"version": "2.1.0", "\\u005f_proto__": {}}')).toBe('bad.sarif: /__proto__: a "__proto__" key is refused');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('refuses runs of several tools unless --source names one, and a source name gapflow cannot use', () => {
    const text = JSON.stringify({
      version: '2.1.0',
      runs: [
        { tool: { driver: { name: 'ESLint' } }, results: [] },
        { tool: { driver: { name: 'CodeQL' } }, results: [] },
      ],
    });
    expect(read(text)).toBe(
      'bad.sarif: /runs/1/tool/driver/name: the runs come from several tools ("ESLint", "CodeQL"): name the one source they are filed under with --source',
    );
    expect(read(log([]), { source: 'bad\nname' })).toBe(
      'bad.sarif: --source: "bad\\nname" cannot name a source: a source name is letters, digits and " ._@/+-", starting with a letter or digit',
    );
    expect(read(log([], [], {}, '!!! scanner'))).toBe(
      'bad.sarif: /runs/0/tool/driver/name: the tool\'s name "!!! scanner" cannot name a source (a source name is letters, digits and " ._@/+-", starting with a letter or digit): name one with --source',
    );
    expect(read('{"version": "2.1.0", "runs": [{"tool": {"driver": {}}, "results": []}]}')).toBe(
      'bad.sarif: /runs/0/tool/driver/name: missing: a tool has a name',
    );
  });
});

describe('readSarif on a hostile log', () => {
  it('rule ids of 20,000 slashes on 1,000 results are looked up in bounded time, not cut back slash by slash', { timeout: 60_000 }, () => {
    const results = Array.from({ length: 1_000 }, (_, i) => ({ ruleId: `${'a/'.repeat(20_000)}r${i}`, message: { text: `m${i}` } }));
    const text = JSON.stringify({ version: '2.1.0', runs: [{ tool: { driver: { name: 'x', rules: [{ id: 'a' }] } }, results }] });
    expect(readSarif(text, { file: 'hostile.sarif' }).findings).toHaveLength(1_000);
  });
});
