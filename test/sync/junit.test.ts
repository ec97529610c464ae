import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { GAP_ID_MAX, GAP_ID_PATTERN, PLAIN_TEXT_PATTERN, SNAPSHOT_FINDINGS_MAX, TITLE_MAX } from '../../events/index.js';
import { type Finding, readJunit, type ReadOptions, type Snapshot } from '../../src/sync/index.js';
import { refusalOf } from './refused.js';

/*
 * The JUnit reader against real producers: Node 20's reporter as kept in
 * fixtures, Node's reporter run here on test files the test writes and
 * edits between runs, and hand-written jest-junit and Surefire shapes.
 *
 * A failing case's id is its (id-safe) name and the first 12 hex digits of
 * sha256(source, NUL, identity), the identity being
 * JSON.stringify([suite path joined by " > ", classname unless "test",
 * name, file]), with the index among equal identities appended from the
 * second one on. The tests hash that themselves, from tuples written out by
 * hand.
 */

const FIXTURES = join(import.meta.dirname, '../fixtures/sync/junit');
const fixture = (name: string) => readFileSync(join(FIXTURES, name), 'utf8');

/** The id the rule gives: `rule` is the name made id-safe, written out by hand in each test. */
function idOf(rule: string, tuple: readonly (string | number)[], source = 'junit'): string {
  const hash = createHash('sha256').update(source).update('\u0000').update(JSON.stringify(tuple)).digest('hex');
  return `${rule}-${hash.slice(0, 12)}`;
}

const ids = (snapshot: Snapshot) => snapshot.findings.map((finding) => finding.id);
const read = (text: string, options: Partial<ReadOptions> = {}) => readJunit(text, { file: 'junit.xml', ...options });

/** The one-line refusal `text` gets, which names the file and where. */
const refusal = (text: string, options: Partial<ReadOptions> = {}) => refusalOf(() => read(text, options), 'junit.xml');

describe('readJunit on Node 20 reports (fixtures)', () => {
  it('one file: the two failures in the suite are findings; the passes, the skip and the todo are not', () => {
    const snapshot = read(fixture('node20-junit-single.xml'));
    expect(snapshot.source).toBe('junit');
    expect(snapshot.format).toBe('junit');
    expect(snapshot.findings).toEqual<Finding[]>([
      {
        id: idOf('fails-assertion', ['math', '', 'fails assertion', '']),
        severity: 'HIGH',
        title: 'math > fails assertion: Expected values to be strictly equal:2 !== 3',
      },
      { id: idOf('throws-error', ['math', '', 'throws error', '']), severity: 'HIGH', title: 'math > throws error: boom' },
    ]);
  });

  it('three files: nested suites, a test cancelled by its hook, and a file that failed to load (named by its path, relative to the root)', () => {
    const snapshot = read(fixture('node20-junit-multi.xml'), { source: 'node-tests', root: '/tmp/r32' });
    expect(snapshot.source).toBe('node-tests');
    const cancelled = 'test did not finish before its parent and was cancelled';
    expect(snapshot.findings).toEqual<Finding[]>([
      { id: idOf('adds', ['outer > inner', '', 'adds', ''], 'node-tests'), severity: 'HIGH', title: 'outer > inner > adds: second file' },
      { id: idOf('never-runs', ['hooked', '', 'never runs', ''], 'node-tests'), severity: 'HIGH', title: `hooked > never runs: ${cancelled}` },
      { id: idOf('nt-c.test.mjs', ['', '', 'nt/c.test.mjs', ''], 'node-tests'), severity: 'HIGH', title: 'nt/c.test.mjs: test failed' },
      {
        id: idOf('fails-assertion', ['math', '', 'fails assertion', ''], 'node-tests'),
        severity: 'HIGH',
        title: 'math > fails assertion: Expected values to be strictly equal:2 !== 3',
      },
      { id: idOf('throws-error', ['math', '', 'throws error', ''], 'node-tests'), severity: 'HIGH', title: 'math > throws error: boom' },
    ]);
    // The passing `math > adds` is not a finding, and is not confused with the failing `outer > inner > adds`.
    expect(snapshot.findings.filter((finding) => finding.title.includes('adds'))).toHaveLength(1);
  });

  it('without a root, or outside it, a path stays as written', () => {
    for (const root of [undefined, '/elsewhere']) {
      const loadFailure = read(fixture('node20-junit-multi.xml'), { root }).findings[2]!;
      expect(loadFailure).toEqual({
        id: idOf('tmp-r32-nt-c.test.mjs', ['', '', '/tmp/r32/nt/c.test.mjs', '']),
        severity: 'HIGH',
        title: '/tmp/r32/nt/c.test.mjs: test failed',
      });
    }
  });

  it('the same failures in both reports have the same ids: run times and stack traces are no part of them', () => {
    const single = ids(read(fixture('node20-junit-single.xml')));
    const multi = ids(read(fixture('node20-junit-multi.xml')));
    expect(single).toHaveLength(2);
    for (const id of single) expect(multi).toContain(id);
  });

  it('severities through the caller`s words', () => {
    const snapshot = read(fixture('node20-junit-single.xml'), { severity: { failure: 'LOW' } });
    expect(snapshot.findings.map((finding) => finding.severity)).toEqual(['LOW', 'LOW']);
  });
});

/** A node:test file, written by the test: `twins` holds two tests of one name. */
function testFile(parts: { addsFails: boolean; squares: boolean; firstTwinFails: boolean; shifted: boolean }): string {
  const lines = [
    "import { test, describe } from 'node:test';",
    "import assert from 'node:assert/strict';",
    ...(parts.shifted ? ['', '// Lines added above every test: line numbers are no part of an id.', '', ''] : []),
    "describe('calc', () => {",
    `  test('adds', () => { assert.equal(1 + 1, ${parts.addsFails ? 3 : 2}); });`,
    ...(parts.shifted
      ? ["  test('multiplies', () => { assert.equal(2 * 2, 6); });", "  test('subtracts', () => { assert.equal(2 - 1, 1); });"]
      : ["  test('subtracts', () => { assert.equal(2 - 1, 1); });", "  test('multiplies', () => { assert.equal(2 * 2, 5); });"]),
    ...(parts.squares ? ["  test('squares', () => { assert.equal(3 ** 2, 6); });"] : []),
    "  describe('nested', () => { test('divides', () => { throw new Error('nope'); }); });",
    '});',
    "test('standalone', () => { throw new Error('top'); });",
    "describe('twins', () => {",
    `  test('same', () => { ${parts.firstTwinFails ? "assert.fail('first');" : ''} });`,
    "  test('same', () => { assert.fail('second'); });",
    '});',
    '',
  ];
  return lines.join('\n');
}

const work = mkdtempSync(join(tmpdir(), 'gapflow-junit-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Runs Node's test runner with its JUnit reporter on `source` and reads what it wrote. */
function runNode(source: string): { snapshot: Snapshot; xml: string } {
  const file = join(work, 'calc.test.mjs');
  const out = join(work, 'out.xml');
  writeFileSync(file, source);
  rmSync(out, { force: true });
  const env = { ...process.env };
  delete env.NODE_OPTIONS;
  delete env.NODE_TEST_CONTEXT;
  const run = spawnSync(process.execPath, ['--test', '--test-reporter=junit', `--test-reporter-destination=${out}`, file], {
    cwd: work,
    env,
    encoding: 'utf8',
    timeout: 30_000,
  });
  expect(run.error, 'node ran').toBeUndefined();
  // Tests fail on purpose: node exits 1.
  expect(run.status, run.stderr).toBe(1);
  const xml = readFileSync(out, 'utf8');
  return { snapshot: readJunit(xml, { file: 'out.xml', root: work }), xml };
}

describe('readJunit on reports Node writes in this run, as the tests change', () => {
  it('ids are stable across runs; a fixed test`s id goes, a new failure adds one, a returning one comes back with its old id', { timeout: 60_000 }, () => {
    const first = runNode(testFile({ addsFails: true, squares: false, firstTwinFails: true, shifted: false }));
    // Newer Node writes each case's file: relative to the root, it joins the identity.
    const file = first.xml.includes(' file="') ? 'calc.test.mjs' : '';
    const expected = {
      adds: idOf('adds', ['calc', '', 'adds', file]),
      multiplies: idOf('multiplies', ['calc', '', 'multiplies', file]),
      divides: idOf('divides', ['calc > nested', '', 'divides', file]),
      standalone: idOf('standalone', ['', '', 'standalone', file]),
      firstTwin: idOf('same', ['twins', '', 'same', file]),
      secondTwin: idOf('same', ['twins', '', 'same', file, 1]),
      squares: idOf('squares', ['calc', '', 'squares', file]),
    };
    const one = ids(first.snapshot);
    expect(new Set(one)).toEqual(new Set([expected.adds, expected.multiplies, expected.divides, expected.standalone, expected.firstTwin, expected.secondTwin]));
    expect(new Set(one).size, 'each finding its own id').toBe(one.length);
    expect(first.snapshot.findings.find((finding) => finding.id === expected.divides)?.title).toBe('calc > nested > divides: nope');

    // Fix `adds`, add a failing `squares`, move tests and shift every line, change a failure's message.
    const second = ids(runNode(testFile({ addsFails: false, squares: true, firstTwinFails: true, shifted: true })).snapshot);
    expect(second).not.toContain(expected.adds);
    expect(second.filter((id) => !one.includes(id))).toEqual([expected.squares]);
    expect(new Set(second)).toEqual(new Set([...one.filter((id) => id !== expected.adds), expected.squares]));

    // `adds` fails again; the first twin passes, and the second keeps its id (cases count whether they pass or fail).
    const third = ids(runNode(testFile({ addsFails: true, squares: true, firstTwinFails: false, shifted: true })).snapshot);
    expect(new Set(third)).toEqual(new Set([expected.adds, expected.multiplies, expected.divides, expected.standalone, expected.secondTwin, expected.squares]));
  });
});

/** A Maven Surefire report, written by hand in its shape: one <testsuite> root, a real classname, <error>, CDATA, &apos;. */
const SUREFIRE = `<?xml version="1.0" encoding="UTF-8"?>
<testsuite xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" name="com.example.CalculatorTest" time="0.052" tests="5" errors="1" skipped="1" failures="1">
  <properties>
    <property name="java.version" value="17.0.9"/>
  </properties>
  <testcase name="adds" classname="com.example.CalculatorTest" time="0.011">
    <failure message="expected: &lt;3&gt; but was: &lt;2&gt;" type="org.opentest4j.AssertionFailedError"><![CDATA[org.opentest4j.AssertionFailedError: expected: <3> but was: <2>
	at com.example.CalculatorTest.adds(CalculatorTest.java:14)
]]></failure>
  </testcase>
  <testcase name="can&apos;t divide by zero" classname="com.example.CalculatorTest" time="0.002">
    <error message="/ by zero" type="java.lang.ArithmeticException"><![CDATA[java.lang.ArithmeticException: / by zero
	at com.example.Calculator.divide(Calculator.java:22)
]]></error>
    <system-out><![CDATA[dividing 1 by 0]]></system-out>
  </testcase>
  <testcase name="subtracts" classname="com.example.CalculatorTest" time="0.001"/>
  <testcase name="rounds" classname="com.example.CalculatorTest" time="0">
    <skipped message="not yet"/>
  </testcase>
  <testcase name="flaky" classname="com.example.CalculatorTest" time="0.003">
    <flakyFailure message="passed on rerun" type="java.lang.AssertionError"/>
  </testcase>
</testsuite>
`;

/** A jest-junit report, written by hand in its default shape: <testsuites> named for the run, classname and name both "{describe} {test}", a failure with text only. */
const JEST = `<?xml version="1.0" encoding="UTF-8"?>
<testsuites name="jest tests" tests="3" failures="1" errors="0" time="1.204">
  <testsuite name="Cart" errors="0" failures="1" skipped="0" timestamp="2026-03-01T10:00:00" time="0.512" tests="3">
    <testcase classname="Cart adds an item" name="Cart adds an item" time="0.004">
    </testcase>
    <testcase classname="Cart totals the prices" name="Cart totals the prices" time="0.012">
      <failure>Error: expect(received).toBe(expected) // Object.is equality

Expected: 3
Received: 2
    at Object.toBe (/home/ci/app/cart.test.js:10:18)</failure>
    </testcase>
    <testcase classname="Cart says &quot;hi&quot;" name="Cart says &quot;hi&quot;" time="0.001">
      <failure message="" type="failure">
      </failure>
    </testcase>
  </testsuite>
</testsuites>
`;

describe('readJunit on other producers` shapes (hand-written)', () => {
  it('Surefire: a single <testsuite> root, its classname in the identity, <error> and <failure> each a finding, a flaky pass none', () => {
    const suite = 'com.example.CalculatorTest';
    expect(read(SUREFIRE).findings).toEqual<Finding[]>([
      { id: idOf('adds', [suite, suite, 'adds', '']), severity: 'HIGH', title: `${suite} > adds: expected: <3> but was: <2>` },
      {
        id: idOf('can-t-divide-by-zero', [suite, suite, "can't divide by zero", '']),
        severity: 'HIGH',
        title: `${suite} > can't divide by zero: / by zero`,
      },
    ]);
  });

  it('a failure and an error each by its own word', () => {
    const severities = read(SUREFIRE, { severity: { error: 'CRITICAL', failure: 'MEDIUM' } }).findings.map((finding) => finding.severity);
    expect(severities).toEqual(['MEDIUM', 'CRITICAL']);
  });

  it('jest-junit: the run`s name is no suite; a failure without a message is titled by the first line of its text, else by its type', () => {
    expect(read(JEST, { source: 'jest' }).findings).toEqual<Finding[]>([
      {
        id: idOf('Cart-totals-the-prices', ['Cart', 'Cart totals the prices', 'Cart totals the prices', ''], 'jest'),
        severity: 'HIGH',
        title: 'Cart > Cart totals the prices: Error: expect(received).toBe(expected) // Object.is equality',
      },
      {
        id: idOf('Cart-says-hi', ['Cart', 'Cart says "hi"', 'Cart says "hi"', ''], 'jest'),
        severity: 'HIGH',
        title: 'Cart > Cart says "hi": failure',
      },
    ]);
  });

  it('a file attribute joins the identity (relative to the root when under it); line and time attributes do not', () => {
    const report = (line: number, time: string, file: string) => `<testsuites>
  <testsuite name="pytest">
    <testcase classname="tests.test_calc" name="test_adds" file="${file}" line="${line}" time="${time}">
      <failure message="assert 2 == 3">x</failure>
    </testcase>
  </testsuite>
</testsuites>`;
    const tuple = ['pytest', 'tests.test_calc', 'test_adds', 'tests/test_calc.py'];
    expect(ids(read(report(3, '0.001', 'tests/test_calc.py')))).toEqual([idOf('test_adds', tuple)]);
    expect(ids(read(report(40, '9.5', 'tests/test_calc.py')))).toEqual([idOf('test_adds', tuple)]);
    expect(ids(read(report(3, '0.001', '/ci/work/repo/tests/test_calc.py'), { root: '/ci/work/repo' }))).toEqual([idOf('test_adds', tuple)]);
    expect(ids(read(report(3, '0.001', 'tests/other.py')))).not.toEqual([idOf('test_adds', tuple)]);
  });

  it('two failing cases of one identity: each its own id, the second by its index', () => {
    const report = `<testsuites><testsuite name="s">
      <testcase name="t"><failure message="one"/></testcase>
      <testcase name="t"><failure message="two"/></testcase>
      <testcase name="t"/>
      <testcase name="t"><error message="four"/></testcase>
    </testsuite></testsuites>`;
    expect(ids(read(report))).toEqual([idOf('t', ['s', '', 't', '']), idOf('t', ['s', '', 't', '', 1]), idOf('t', ['s', '', 't', '', 3])]);
  });

  it('suite names with " > " or quotes, and names like prototype keys, make ordinary ids', () => {
    const report = `<testsuites><testsuite name="a &gt; b"><testsuite name='"q"'>
      <testcase name="__proto__"><failure message="m"/></testcase>
      <testcase name="constructor"><failure message="m"/></testcase>
    </testsuite></testsuite></testsuites>`;
    expect(ids(read(report))).toEqual([idOf('proto', ['a > b > "q"', '', '__proto__', '']), idOf('constructor', ['a > b > "q"', '', 'constructor', ''])]);
  });
});

describe('readJunit makes hostile reports safe', () => {
  it('control characters, line breaks and bidirectional overrides out of titles; ids id-safe and bounded', () => {
    const long = 'n'.repeat(100_000);
    const report = `<testsuites><testsuite name="s&#10;\u202euite">
      <testcase name="bad\u001b[31m name&#13;\u2028x"><failure message="line one&#10;line two\u0007"/></testcase>
      <testcase name="${long}"><failure>${'x'.repeat(1_000_000)}</failure></testcase>
    </testsuite></testsuites>`;
    const findings = read(report).findings;
    expect(findings).toHaveLength(2);
    for (const finding of findings) {
      expect(finding.id).toMatch(GAP_ID_PATTERN);
      expect(finding.id.length).toBeLessThanOrEqual(GAP_ID_MAX);
      expect(finding.title).toMatch(PLAIN_TEXT_PATTERN);
      expect(finding.title.length).toBeLessThanOrEqual(TITLE_MAX);
    }
    expect(findings[0]!.title).toBe('s uite > bad [31m name x: line one line two');
  });

  it('50,000 failing cases with Node-sized stack traces, in linear time', { timeout: 60_000 }, () => {
    const trace = `Error [ERR_TEST_FAILURE]: boom\n${'    at TestContext.&lt;anonymous&gt; (file:///repo/test/a.test.mjs:4:32)\n'.repeat(6)}`;
    const cases = Array.from(
      { length: 50_000 },
      (_, i) =>
        `<testcase name="case ${i}" time="0.001" classname="test" failure="boom"><failure type="testCodeFailure" message="boom">\n${trace}</failure></testcase>\n`,
    );
    const text = `<?xml version="1.0" encoding="utf-8"?>\n<testsuites>\n<testsuite name="big">\n${cases.join('')}</testsuite>\n</testsuites>\n`;
    // About 30 MB, ~500 ms: a quadratic step would take minutes, past the test's time budget.
    const snapshot = read(text);
    expect(snapshot.findings).toHaveLength(50_000);
    expect(new Set(ids(snapshot)).size).toBe(50_000);
  });

  it(`more than ${SNAPSHOT_FINDINGS_MAX} failing cases: refused at the first one past the limit`, { timeout: 60_000 }, () => {
    const text = `<testsuites>\n${'<testcase name="t"><failure/></testcase>\n'.repeat(SNAPSHOT_FINDINGS_MAX + 1)}</testsuites>`;
    // Line 1 is <testsuites>; case k (1-based) is on line k + 1.
    expect(refusal(text)).toBe(
      `junit.xml: line ${SNAPSHOT_FINDINGS_MAX + 2} column 1: more than ${SNAPSHOT_FINDINGS_MAX} failing test cases (a snapshot holds at most that many findings)`,
    );
  });
});

describe('readJunit refuses, in one line naming the file and where', () => {
  it('malformed XML', () => {
    expect(refusal('<testsuites>\n  <testsuite name="a">\n  </testsuites>')).toBe(
      'junit.xml: line 3 column 3: </testsuites> where </testsuite> belongs (<testsuite> opened at line 2 column 3)',
    );
    expect(refusal('<testsuites><testcase name=x/></testsuites>')).toMatch(
      /^junit\.xml: line 1 column 28: the value of the attribute "name" in <testcase> is not in quotes$/,
    );
  });

  it('a truncated report', () => {
    const whole = fixture('node20-junit-single.xml');
    // Cut inside the failure text of `fails assertion` (line 6 opens its <failure>, at column 4 after three tabs).
    const cut = whole.slice(0, whole.indexOf('2 !== 3\n'));
    expect(refusal(cut)).toMatch(/^junit\.xml: line 6 column 4: <failure> is never closed \(the text ends at line 9 column 1\)$/);
    expect(refusal(whole.slice(0, whole.indexOf('classname="test"/>')))).toMatch(/^junit\.xml: line 4 column 3: the start tag <testcase> is never closed/);
  });

  it('a DOCTYPE, even on an otherwise good report', () => {
    const report = `<?xml version="1.0"?>\n<!DOCTYPE testsuites [ <!ENTITY x SYSTEM "file:///etc/passwd"> ]>\n<testsuites><testcase name="&x;"><failure/></testcase></testsuites>`;
    expect(refusal(report)).toMatch(/^junit\.xml: line 2 column 1: a DOCTYPE is refused/);
  });

  it('an empty text', () => {
    expect(refusal('')).toBe('junit.xml: line 1 column 1: no XML: the text is empty');
  });

  it('a root that is not JUnit`s, named', () => {
    expect(refusal('<?xml version="1.0"?>\n\n  <html><body/></html>')).toBe(
      'junit.xml: line 3 column 3: the root element is <html>, not <testsuites> or <testsuite>: not a JUnit report',
    );
    expect(refusal('{"runs": []}')).toMatch(/^junit\.xml: line 1 column 1: text before the root element/);
  });

  it('a test case without a name, at its line and column', () => {
    expect(refusal('<testsuites>\n  <testsuite name="s">\n    <testcase classname="c"/>\n  </testsuite>\n</testsuites>')).toBe(
      'junit.xml: line 3 column 5: a <testcase> has no name attribute',
    );
  });

  it('a source that cannot name one', () => {
    expect(refusal('<testsuites/>', { source: '-x' })).toMatch(/^junit\.xml: the source "-x" cannot be used: a source name is/);
    expect(refusal('<testsuites/>', { source: '' })).toBe('junit.xml: the source "" cannot be used: a source name is empty');
  });
});

describe('readJunit on a hostile report', () => {
  it('200 suites deep with 5,000-character names and 2,000 failing cases: the path is worked out per suite, not per case', { timeout: 60_000 }, () => {
    const open = Array.from({ length: 200 }, (_, i) => `<testsuite name="${String(i).padStart(5_000, 's')}">`).join('');
    const cases = Array.from({ length: 2_000 }, (_, i) => `<testcase name="c${i}"><failure message="m"/></testcase>`);
    const snapshot = read(`<testsuites>${open}${cases.join('')}${'</testsuite>'.repeat(200)}</testsuites>`);
    expect(new Set(ids(snapshot)).size).toBe(2_000);
    // The identity holds a path that long as its hash: one case in two reports of it keeps its id.
    expect(ids(read(`<testsuites>${open}${cases[0]!}${'</testsuite>'.repeat(200)}</testsuites>`))[0]).toBe(ids(snapshot)[0]);
    expect(snapshot.findings[0]!.title.length).toBeLessThanOrEqual(500);
  });
});
