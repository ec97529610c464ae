import { canonicalWord, GAP_ID_MAX, GAP_ID_PATTERN, oneOf, SEVERITY_WORDS, SNAPSHOT_FINDINGS_MAX, shownValue } from '../../events/index.js';
import { badInput, type Finding, type ReadOptions, type Snapshot, sourceNameProblem, titleOf } from './finding.js';

/*
 * JSON text as it enters: parsed once, refused in one line that says where
 * (`line 12 column 5`, or a JSON pointer such as `/runs/0/results/3`), and
 * walked once for what JSON.parse takes but a reader must not: nesting
 * deeper than any tool writes, and `__proto__` keys (an own property after
 * JSON.parse, a prototype once any code copies the object). Then gapflow's
 * own findings format, the smallest a script can write.
 */

/** The deepest nesting taken: SARIF from CodeQL nests about 15 deep; anything near this is hostile or broken. */
export const JSON_DEPTH_MAX = 256;

/** The longest pointer a message names; a deeper one is cut with `…` (the nesting refusal names one 256 levels down). */
const POINTER_SHOWN_MAX = 120;

/** A value as a message echoes it: a short value as JSON (plain, cut), an object or array by its kind, so echoing never copies a large input. */
export function shown(value: unknown): string {
  if (Array.isArray(value)) return 'an array';
  if (value === null) return 'null';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'number' && !Number.isFinite(value)) return String(value); // JSON.stringify would say null (1e400 parses to Infinity)
  return shownValue(typeof value === 'string' && value.length > 200 ? value.slice(0, 200) : value);
}

/** One step of a JSON pointer, escaped (`~0`, `~1`) and made plain: a key may hold a line break or a `/`. */
function step(key: string | number): string {
  if (typeof key === 'number') return String(key);
  const plain = shownValue(key.length > 60 ? key.slice(0, 60) : key, 42).slice(1, -1);
  return plain.replaceAll('~', '~0').replaceAll('/', '~1');
}

/** The JSON pointer of `path` (RFC 6901) as a message names it: `/runs/0/results/3`; `/` alone would be the key "", so the root is named in words. */
export function pointerOf(path: readonly (string | number)[]): string {
  if (path.length === 0) return 'the top level';
  let pointer = '';
  for (const key of path) {
    pointer += `/${step(key)}`;
    if (pointer.length > POINTER_SHOWN_MAX) return `${pointer.slice(0, POINTER_SHOWN_MAX - 1)}…`;
  }
  return pointer;
}

/** Line and column (both from 1, the column in UTF-16 units) of `offset` in `text`. */
function lineColumn(text: string, offset: number): string {
  let line = 1;
  let start = 0;
  for (let at = text.indexOf('\n'); at !== -1 && at < offset; at = text.indexOf('\n', at + 1)) {
    line++;
    start = at + 1;
  }
  return `line ${line} column ${offset - start + 1}`;
}

/**
 * The offset of the first character JSON's grammar (RFC 8259) refuses in
 * `text`, `text.length` when the text ends early, -1 when it is whole. Run
 * only after JSON.parse refused the text, for the messages of V8's that name
 * a token but no position (`Unexpected token '}', "..." is not valid JSON`).
 * One pass, an explicit stack: no recursion for deep input to overflow.
 */
export function firstBadOffset(text: string): number {
  const n = text.length;
  const open: boolean[] = []; // true: inside an object; false: inside an array
  let i = 0;
  const space = () => {
    for (let c = text.charCodeAt(i); c === 32 || c === 9 || c === 10 || c === 13; c = text.charCodeAt(++i));
  };
  const digits = () => {
    const from = i;
    for (let c = text.charCodeAt(i); c >= 48 && c <= 57; c = text.charCodeAt(++i));
    return i > from;
  };
  const string = (): boolean => {
    i++;
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c === 34) {
        i++;
        return true;
      }
      if (c < 32) return false;
      if (c !== 92) {
        i++;
        continue;
      }
      const escape = text[i + 1];
      if (escape === undefined) return ((i = n), false);
      if ('"\\/bfnrt'.includes(escape)) i += 2;
      else if (escape === 'u') {
        i += 2;
        for (let k = 0; k < 4; k++, i++) if (!/[0-9A-Fa-f]/.test(text[i] ?? '')) return false;
      } else return ((i += 1), false);
    }
    return false;
  };
  const number = (): boolean => {
    if (text[i] === '-') i++;
    if (text[i] === '0') i++;
    else if (!digits()) return false;
    if (text[i] === '.' && (i++, !digits())) return false;
    if (text[i] === 'e' || text[i] === 'E') {
      i++;
      if (text[i] === '+' || text[i] === '-') i++;
      if (!digits()) return false;
    }
    return true;
  };
  const word = (literal: string): boolean => {
    for (const c of literal) {
      if (text[i] !== c) return false;
      i++;
    }
    return true;
  };
  const key = (): boolean => {
    space();
    if (text[i] !== '"' || !string()) return false;
    space();
    if (text[i] !== ':') return false;
    i++;
    return true;
  };
  for (;;) {
    space();
    const c = text[i];
    let ok: boolean;
    if (c === '{' || c === '[') {
      i++;
      space();
      if (text[i] === (c === '{' ? '}' : ']')) {
        i++;
        ok = true;
      } else {
        open.push(c === '{');
        if (c === '{' && !key()) return Math.min(i, n);
        continue;
      }
    } else if (c === '"') ok = string();
    else if (c === '-' || (c !== undefined && c >= '0' && c <= '9')) ok = number();
    else if (c === 't') ok = word('true');
    else if (c === 'f') ok = word('false');
    else if (c === 'n') ok = word('null');
    else ok = false;
    if (!ok) return Math.min(i, n);
    for (;;) {
      space();
      if (open.length === 0) return i < n ? i : -1;
      if (i >= n) return n;
      const inObject = open[open.length - 1];
      if (text[i] === ',') {
        i++;
        if (inObject && !key()) return Math.min(i, n);
        break;
      }
      if (text[i] !== (inObject ? '}' : ']')) return i;
      i++;
      open.pop();
    }
  }
}

/** Why JSON.parse refused `text`, said where: V8's position when its message has one, else the first offset the grammar refuses. */
function refuseJson(text: string, file: string, error: unknown): never {
  const message = error instanceof Error ? error.message : String(error);
  const at = message.indexOf(' at position ');
  let offset = at === -1 ? Number.NaN : Number.parseInt(message.slice(at + ' at position '.length), 10);
  let reason = at === -1 ? '' : message.slice(0, at).replace(/ in JSON$/, '');
  if (!Number.isSafeInteger(offset) || offset < 0 || offset > text.length) {
    offset = firstBadOffset(text);
    if (offset === -1) offset = text.length;
    reason = '';
  }
  if (offset >= text.length) badInput(file, lineColumn(text, text.length), 'the JSON ends early: the file is truncated');
  const found = shown(text.slice(offset, offset + 1));
  badInput(file, lineColumn(text, offset), `not JSON: ${reason ? `${titleOf(reason).slice(0, 80)} (found ${found})` : `unexpected ${found}`}`);
}

/** What the walk found wrong, the path to it built backwards as the walk unwinds. */
interface Unsafe {
  reversedPath: (string | number)[];
  why: string;
}

/** The first value nested deeper than JSON_DEPTH_MAX or keyed `__proto__`, or null. Recursion is bounded by the depth limit itself. */
function unsafeIn(value: unknown, depth: number): Unsafe | null {
  if (typeof value !== 'object' || value === null) return null;
  if (depth > JSON_DEPTH_MAX) return { reversedPath: [], why: `nested deeper than ${JSON_DEPTH_MAX} levels, which no tool writes` };
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) {
      const found = unsafeIn(value[index], depth + 1);
      if (found !== null) return (found.reversedPath.push(index), found);
    }
    return null;
  }
  // for...in, not Object.keys: no array per object (JSON.parse's objects inherit nothing enumerable).
  for (const key in value) {
    if (key === '__proto__') return { reversedPath: [key], why: 'a "__proto__" key is refused' };
    const found = unsafeIn((value as Record<string, unknown>)[key], depth + 1);
    if (found !== null) return (found.reversedPath.push(key), found);
  }
  return null;
}

/**
 * `text` as JSON, or a one-line refusal naming `file` and where: the line
 * and column of a syntax error (the end, when the text is cut short), the
 * pointer of a `__proto__` key or of nesting deeper than JSON_DEPTH_MAX. A
 * leading byte order mark is dropped (Windows tools write one).
 */
export function parseJsonText(text: string, file: string): unknown {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  if (body.trim() === '') badInput(file, null, 'the text is empty, not JSON');
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch (error) {
    refuseJson(body, file, error);
  }
  const unsafe = unsafeIn(value, 1);
  if (unsafe !== null) badInput(file, pointerOf(unsafe.reversedPath.reverse()), unsafe.why);
  return value;
}

/** The keys a finding of gapflow's JSON format has. */
const FINDING_KEYS = ['id', 'severity', 'title'];

/**
 * gapflow's own findings format: a JSON array of `{"id", "severity",
 * "title"}`, for a script that already knows its findings' ids. The id is
 * the gap id as given (no hash: the script owns identity); the severity is
 * gapflow's word in any case (`high`, `High`); the title is optional.
 * Anything else is refused, naming the pointer and the value, rather than
 * guessed at: a misspelt key would otherwise drop what it meant to say.
 * The severity overrides do not apply: the words are gapflow's already.
 */
export function readFindingsJson(text: string, options: ReadOptions): Snapshot {
  const { file } = options;
  const source = options.source ?? 'json';
  const sourceProblem = sourceNameProblem(source);
  if (sourceProblem !== null) badInput(file, null, `the source ${shown(source)} cannot be used: ${sourceProblem}`);
  const value = parseJsonText(text, file);
  if (!Array.isArray(value)) badInput(file, null, `the top level is ${shown(value)}, not an array of findings ({"id", "severity", "title"})`);
  if (value.length > SNAPSHOT_FINDINGS_MAX) badInput(file, `/${SNAPSHOT_FINDINGS_MAX}`, `more than ${SNAPSHOT_FINDINGS_MAX} findings in one snapshot`);
  const findings: Finding[] = [];
  const seen = new Map<string, number>();
  for (let index = 0; index < value.length; index++) {
    const entry: unknown = value[index];
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
      badInput(file, `/${index}`, `a finding is an object ({"id", "severity", "title"}), not ${shown(entry)}`);
    }
    const record = entry as Record<string, unknown>;
    for (const key of Object.keys(record)) {
      if (!FINDING_KEYS.includes(key)) badInput(file, pointerOf([index, key]), `unknown key ${shown(key)}: a finding has id, severity and title`);
    }
    const { id, severity, title } = record;
    if (typeof id !== 'string') badInput(file, `/${index}/id`, `the id is ${shown(id)}, not a string`);
    if (id.length > GAP_ID_MAX) badInput(file, `/${index}/id`, `the id ${shown(id)} is longer than ${GAP_ID_MAX} characters`);
    if (!GAP_ID_PATTERN.test(id)) badInput(file, `/${index}/id`, `the id ${shown(id)} is not letters, digits and . _ - starting with a letter or digit`);
    const first = seen.get(id);
    if (first !== undefined) badInput(file, `/${index}/id`, `the id ${shown(id)} repeats /${first}/id: each finding has its own id`);
    seen.set(id, index);
    const word = canonicalWord(severity, SEVERITY_WORDS);
    if (word === undefined) {
      const short = typeof severity === 'string' && severity.length <= 40 ? severity : null;
      badInput(file, `/${index}/severity`, `the severity ${shown(severity)} is not ${oneOf(short, SEVERITY_WORDS).text}`);
    }
    if (title !== undefined && typeof title !== 'string') badInput(file, `/${index}/title`, `the title is ${shown(title)}, not a string`);
    findings.push({ id, severity: word, title: titleOf(title ?? '') });
  }
  return { source, format: 'json', findings };
}
