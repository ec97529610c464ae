import { SNAPSHOT_FINDINGS_MAX, TITLE_MAX } from '../../events/index.js';

const { createHash } = process.getBuiltinModule('node:crypto');
import { badInput, findingId, type Finding, type ReadOptions, severityOf, type Snapshot, sourceNameProblem, titleOf } from './finding.js';
import { quoted, readXml, type XmlElement } from './xml.js';

const { isAbsolute, relative, sep } = process.getBuiltinModule('node:path');

/*
 * A JUnit XML report (Node's `--test-reporter=junit`, jest-junit, Maven
 * Surefire, pytest...) as a snapshot: each test case that failed or erred
 * is a finding; a passing or skipped one is not.
 *
 * A finding's identity is what names the test, never where it ran or how
 * long it took (no line, no time): the path of its suites' names from the
 * root, its classname, its name and its file. Node's reporter writes the
 * classname `test` on every case, so that one says nothing and is left out;
 * Node 20 writes no file (newer Node and other tools do). Suites nest as
 * deep as describe blocks do, and Node puts tests outside any describe
 * straight under <testsuites>, which is read as a case with no suite.
 */

/** The source a snapshot is filed under when the caller names none. */
export const JUNIT_SOURCE = 'junit';

/** A message longer than this is cut before it becomes a title: a title is at most TITLE_MAX, and a stack trace may be megabytes on one line. */
const MESSAGE_READ_MAX = 4 * TITLE_MAX;

/**
 * Reads a JUnit XML report as `options.source`'s snapshot (`junit` when it
 * names none), or refuses it with one line naming `options.file` and the
 * line and column.
 *
 * Each failing case's id is `findingId(source, name, identity)`, the
 * identity being `JSON.stringify([suites, classname, name, file])`: the
 * suites' names from the root joined with ` > ` (<testsuites>' own name,
 * the run's, is not one), the classname or '' when it is Node's `test`, the
 * case's name, its `file` attribute or ''. An absolute path in the name or
 * file under `options.root` is taken relative to it (Node names a test file
 * that failed to load by its absolute path), so the id does not depend on
 * where the checkout is. Cases with equal identities (two tests of one name)
 * are told apart by their order among them: the second and later get their
 * index (1, 2...) appended to the identity's array. Cases count whether they
 * pass or fail, so a test's id stays when a same-named one before it starts
 * or stops failing.
 *
 * The severity is the tool word `failure` or `error` (the case's first
 * <failure> or <error> child), through `options.severity`; the title
 * `suite > ... > name: message`, the message being the element's `message`
 * attribute, else the first line of its text, else its `type`.
 */
export function readJunit(text: string, options: ReadOptions): Snapshot {
  const { file, root } = options;
  const source = options.source ?? JUNIT_SOURCE;
  const problem = sourceNameProblem(source);
  if (problem !== null) badInput(file, null, `the source ${quoted(source)} cannot be used: ${problem}`);

  const report = readXml(text, file);
  if (report.name !== 'testsuites' && report.name !== 'testsuite') {
    badInput(file, where(report), `the root element is <${report.name}>, not <testsuites> or <testsuite>: not a JUnit report`);
  }

  const findings: Finding[] = [];
  /** How many cases of each identity have been seen so far. */
  const seen = new Map<string, number>();

  const testcase = (testcase: XmlElement, suites: Suites): void => {
    const written = testcase.attributes.get('name');
    if (written === undefined) badInput(file, where(testcase), 'a <testcase> has no name attribute');
    const name = shownPath(written, root);
    const classname = testcase.attributes.get('classname') ?? '';
    const tuple = [suites.key, classname === 'test' ? '' : classname, name, shownPath(testcase.attributes.get('file') ?? '', root)];
    const key = JSON.stringify(tuple);
    const occurrence = seen.get(key) ?? 0;
    seen.set(key, occurrence + 1);

    const outcome = testcase.children.find((child) => child.name === 'failure' || child.name === 'error');
    if (outcome === undefined) return;
    if (findings.length >= SNAPSHOT_FINDINGS_MAX)
      badInput(file, where(testcase), `more than ${SNAPSHOT_FINDINGS_MAX} failing test cases (a snapshot holds at most that many findings)`);
    const identity = occurrence === 0 ? key : JSON.stringify([...tuple, occurrence]);
    findings.push({
      id: findingId(source, name, identity),
      severity: severityOf(outcome.name as 'failure' | 'error', options.severity),
      title: titleOf(`${suites.shown}${name}: ${messageOf(outcome)}`),
    });
  };

  /** The suites and cases under `parent`, in document order; nesting is bounded by the XML reader's depth limit. */
  const visit = (parent: XmlElement, suites: Suites): void => {
    for (const child of parent.children) {
      if (child.name === 'testcase') testcase(child, suites);
      else if (child.name === 'testsuite') visit(child, inside(suites, child.attributes.get('name') ?? ''));
      else if (child.name === 'testsuites') visit(child, suites);
    }
  };
  if (report.name === 'testsuites') visit(report, ROOT);
  else visit(report, inside(ROOT, report.attributes.get('name') ?? ''));

  return { source, format: 'junit', findings };
}

/**
 * The suites around a case, worked out once per suite from its parent's, in
 * time that follows the suite's own name: a hostile report of long, deep
 * suite names costs that once, not once per case nor once per level.
 */
interface Suites {
  /** The path as the identity holds it: the names joined by ` > `; past SUITE_PATH_MAX, `#` and a sha256 chained from the parent's. */
  key: string;
  /** How long the joined path is. */
  length: number;
  /** The start of a title: the path, cut to what a title shows, and ` > `; nothing at the root. */
  shown: string;
}

/** The longest suite path an identity holds as it is (no real report comes near it). */
const SUITE_PATH_MAX = 4096;

const ROOT: Suites = { key: '', length: 0, shown: '' };

function inside(parent: Suites, name: string): Suites {
  const top = parent.length === 0;
  const length = parent.length + (top ? 0 : 3) + name.length;
  const key =
    length <= SUITE_PATH_MAX
      ? top
        ? name
        : `${parent.key} > ${name}`
      : `#${createHash('sha256').update(parent.key).update('\u0000').update(name).digest('hex')}`;
  const shown = `${`${parent.shown}${name.slice(0, TITLE_MAX)}`.slice(0, TITLE_MAX)} > `;
  return { key, length, shown };
}

/** Where an element starts, as a refusal names it. */
function where(element: XmlElement): string {
  return `line ${element.line} column ${element.column}`;
}

/** What a <failure> or <error> says went wrong: its message, else the first line of its text, else its type, else its name. */
function messageOf(outcome: XmlElement): string {
  const message = outcome.attributes.get('message')?.slice(0, MESSAGE_READ_MAX).trim();
  if (message) return message;
  const text = outcome.text;
  const start = text.search(/\S/);
  if (start >= 0) {
    const end = text.indexOf('\n', start);
    return text.slice(start, Math.min(end < 0 ? text.length : end, start + MESSAGE_READ_MAX)).trim();
  }
  return outcome.attributes.get('type')?.trim() || outcome.name;
}

/** `value` relative to `root` when it is an absolute path under it (with `/` between its parts), else `value` as written. */
function shownPath(value: string, root: string | undefined): string {
  if (root === undefined || !isAbsolute(value)) return value;
  const inside = relative(root, value);
  if (inside === '' || inside === '..' || inside.startsWith(`..${sep}`) || isAbsolute(inside)) return value;
  return inside.split(sep).join('/');
}
