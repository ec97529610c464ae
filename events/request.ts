import type * as z from 'zod/mini';
import { EventBody } from './schemas.js';
import {
  ACKNOWLEDGMENT_WORDS,
  COMPLETE_WHEN_WORDS,
  DECISION_KIND_WORDS,
  EVENT_TYPES,
  GAP_STATE_WORDS,
  GATES_WORDS,
  SYNC_FORMAT_WORDS,
  PRESET_WORDS,
  ROUND_KIND_WORDS,
  SEVERITY_WORDS,
} from './words.js';

/*
 * What a caller asks to record, as it enters: its words brought to their
 * one spelling, its text searched for hidden characters, the body parsed
 * (`parseRequest`), and what is wrong with it, if anything, said in
 * gapflow's words. One module, because every request runs all of it.
 */

// Spelling.

/*
 * One vocabulary, however it is spelled. A word gapflow takes (a severity, a
 * gap state, a decision, a preset, an event type, a policy) means the same
 * in any case and with `-` or `_` between its parts: `in-progress`,
 * `In_Progress` and `IN_PROGRESS` are all IN_PROGRESS. The CLI and `append`
 * both bring what they are given to the canonical spelling here, before the
 * schema reads it, so the log only ever holds the canonical one. And when a
 * word is not one of them, the nearest is offered.
 */

/** What two spellings of one word have in common: no surrounding space, lower case, `_` for `-`. */
export function spellingKey(word: string): string {
  return word.trim().toLowerCase().replaceAll('-', '_');
}

/** The word of `words` that `value` spells, however it is spelled; undefined when it spells none (or is not a string). */
export function canonicalWord<W extends string>(value: unknown, words: readonly W[]): W | undefined {
  if (typeof value !== 'string') return undefined;
  const key = spellingKey(value);
  return words.find((word) => spellingKey(word) === key);
}

/**
 * The word of `words` that `value` most likely meant, for a "did you mean":
 * one a typo or two away (a swap of two letters is one), or the only one
 * that starts with it; null when none is that near.
 */
export function nearestWord(value: string, words: readonly string[]): string | null {
  const key = spellingKey(value);
  if (key === '') return null;
  const starting = words.filter((word) => spellingKey(word).startsWith(key));
  if (key.length >= 3 && starting.length === 1) return starting[0]!;
  let best: string | null = null;
  let bestDistance = Math.max(1, Math.floor(key.length / 3));
  for (const word of words) {
    const distance = editDistance(key, spellingKey(word));
    if (distance <= bestDistance && (best === null || distance < bestDistance)) {
      best = word;
      bestDistance = distance;
    }
  }
  return best;
}

/**
 * Edits (insert, delete, replace, swap two neighbours) from `a` to `b`: the
 * optimal string alignment distance. Written out rather than taken from a
 * package: it is a dozen lines, runs on a refused word only, and the bin's
 * short paths load nothing they can do without.
 */
function editDistance(a: string, b: string): number {
  let before: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const replace = previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1);
      let best = Math.min(previous[j]! + 1, row[j - 1]! + 1, replace);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, before[j - 2]! + 1);
      row.push(best);
    }
    before = previous;
    previous = row;
  }
  return previous[b.length]!;
}

/**
 * What the words a value may be are, and the nearest to it: `one of A, B, C
 * (did you mean B?)`; the one wording of a word not taken, wherever it comes.
 */
export function oneOf(value: unknown, words: readonly string[]): { text: string; suggestion: string | null } {
  const suggestion = typeof value === 'string' ? nearestWord(value, words) : null;
  return { text: `one of ${words.join(', ')}${suggestion ? ` (did you mean ${suggestion}?)` : ''}`, suggestion };
}

/** The longest a value is echoed in an error (a longer one is cut, with `…`). */
export const SHOWN_MAX = 40;

/**
 * A value as an error echoes it: as JSON (so a string is quoted and a
 * number is not), every control, line-breaking or direction-changing
 * character spelt out, and cut to `max` characters.
 */
export function shownValue(value: unknown, max = SHOWN_MAX): string {
  let text: string;
  try {
    text = value === undefined ? 'nothing' : (JSON.stringify(value) ?? String(value));
  } catch {
    text = String(value);
  }
  const safe = text.replace(UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  const characters = [...safe];
  return characters.length > max ? `${characters.slice(0, max - 1).join('')}…` : safe;
}

/** The fields of each request that take a word from a fixed list, and the list. */
export const REQUEST_WORDS: Readonly<Record<string, Readonly<Record<string, readonly string[]>>>> = {
  'session.started': { preset: PRESET_WORDS, completeWhen: COMPLETE_WHEN_WORDS },
  'round.started': { kind: ROUND_KIND_WORDS },
  'gap.opened': { severity: SEVERITY_WORDS },
  'gap.moved': { to: GAP_STATE_WORDS },
  'gap.severity_changed': { to: SEVERITY_WORDS },
  'decision.made': { kind: DECISION_KIND_WORDS, acknowledgment: ACKNOWLEDGMENT_WORDS },
  'verification.ran': { gates: GATES_WORDS },
  'findings.synced': { format: SYNC_FORMAT_WORDS },
};

/** The words a request's field takes (`decision.made`, `data.kind`); undefined for a field that takes free text or a number. */
export function wordsAt(type: unknown, path: readonly PropertyKey[]): readonly string[] | undefined {
  if (path.length === 1 && path[0] === 'type') return EVENT_TYPES;
  // A split's parts: `data.into[i].severity`.
  if (type === 'gap.split' && path.length === 4 && path[1] === 'into' && path[3] === 'severity') return SEVERITY_WORDS;
  // A snapshot's findings: `data.findings[i].severity`.
  if (type === 'findings.synced' && path.length === 4 && path[1] === 'findings' && path[3] === 'severity') return SEVERITY_WORDS;
  if (typeof type !== 'string' || path.length !== 2 || path[0] !== 'data' || typeof path[1] !== 'string') return undefined;
  const fields = Object.hasOwn(REQUEST_WORDS, type) ? REQUEST_WORDS[type]! : {};
  return Object.hasOwn(fields, path[1]) ? fields[path[1]] : undefined;
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A policy's name in its one spelling (the registry's names are lower-case words joined by `_`); anything else as it was. */
const policyName = (value: unknown): unknown => (typeof value === 'string' ? spellingKey(value) : value);

/**
 * A request (`{"type","data"}`, as `append` or the library takes it) with its
 * type, its words and its policy names in their canonical spelling; whatever
 * spells none of them is left as it was, for the schema to refuse by name.
 * The input is not changed.
 */
export function canonicalRequest(input: unknown): unknown {
  if (!isRecord(input)) return input;
  const type = canonicalWord(input.type, EVENT_TYPES) ?? input.type;
  const data = input.data;
  if (!isRecord(data)) return type === input.type ? input : { ...input, type };
  const out: Record<string, unknown> = { ...data };
  const fields = typeof type === 'string' && Object.hasOwn(REQUEST_WORDS, type) ? REQUEST_WORDS[type]! : {};
  for (const [field, words] of Object.entries(fields)) {
    if (Object.hasOwn(out, field)) out[field] = canonicalWord(out[field], words) ?? out[field];
  }
  if (type === 'metrics.recorded' && Object.hasOwn(out, 'policy')) out.policy = policyName(out.policy);
  if (type === 'gap.split' && Array.isArray(out.into)) {
    out.into = out.into.map((part: unknown) =>
      isRecord(part) && Object.hasOwn(part, 'severity') ? { ...part, severity: canonicalWord(part.severity, SEVERITY_WORDS) ?? part.severity } : part,
    );
  }
  if (type === 'session.started') {
    if (Array.isArray(out.policies)) out.policies = out.policies.map(policyName);
    if (isRecord(out.policySettings)) {
      out.policySettings = Object.fromEntries(Object.entries(out.policySettings).map(([name, settings]) => [policyName(name) as string, settings]));
    }
  }
  return { ...input, type, data: out };
}

// Hidden characters.

/*
 * Invisible characters in what a request carries. A title, a reason or a
 * rationale is shown to people and read by agents; a character that shows
 * nothing (a format character, a Unicode tag) or turns text around (a
 * bidirectional control) lets the one see other words than the other: an
 * instruction spelt in tag characters reaches the agent while `status`
 * shows a harmless title. Such text is refused when a request is decided;
 * the schema that reads log lines takes it as it always did (R19),
 * and the renderers show it spelt out.
 */

/**
 * Unicode format characters (category Cf: zero-width spaces and joiners,
 * the bidirectional marks, overrides and isolates, the byte order mark,
 * the assigned tag characters) and the whole tag block U+E0000–E007F,
 * whose unassigned code points render as nothing too.
 */
export const HIDDEN_CHARACTER = /[\p{Cf}\u{E0000}-\u{E007F}]/u;

/** What a hidden character is, in a few words, for a refusal: `a Unicode tag character`. */
export function hiddenCharacterKind(codePoint: number): string {
  if (codePoint >= 0xe0000 && codePoint <= 0xe007f) return 'a Unicode tag character';
  const bidi =
    (codePoint >= 0x202a && codePoint <= 0x202e) ||
    (codePoint >= 0x2066 && codePoint <= 0x2069) ||
    codePoint === 0x200e ||
    codePoint === 0x200f ||
    codePoint === 0x061c;
  return bidi ? 'a bidirectional control' : 'an invisible format character';
}

/** `U+E0069`: a code point as the Unicode standard writes it. */
export function codePointName(codePoint: number): string {
  return `U+${codePoint.toString(16).toUpperCase().padStart(4, '0')}`;
}

/** The first hidden character of `text`, or null when it has none. */
export function firstHiddenCharacter(text: string): number | null {
  const found = HIDDEN_CHARACTER.exec(text);
  return found === null ? null : found[0].codePointAt(0)!;
}

/** A key of the request as a field name shows it: a plain word as it is, anything else quoted and cut short. */
function keyName(key: string): string {
  return /^[A-Za-z0-9_]{1,40}$/.test(key) ? key : JSON.stringify(key.length > 40 ? `${key.slice(0, 39)}…` : key).replace(/[^\x20-\x7e]/gu, '?');
}

/**
 * What is wrong with the text a request's `data` carries, or null when
 * nothing is: the first string (a value or a key, however deep) holding a
 * hidden character, named by its field and the code point, e.g.
 * `title: U+E0069 (a Unicode tag character) is not allowed; …`. Walked
 * with a stack of its own, so no depth of nesting can overflow the call
 * stack.
 */
export function hiddenTextProblem(data: unknown): string | null {
  const pending: { value: unknown; path: string }[] = [{ value: data, path: '' }];
  while (pending.length > 0) {
    const { value, path } = pending.pop()!;
    if (typeof value === 'string') {
      const found = firstHiddenCharacter(value);
      if (found !== null) return refusalText(path === '' ? 'data' : path, found);
    } else if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) pending.push({ value: value[i], path: `${path}[${i}]` });
    } else if (typeof value === 'object' && value !== null) {
      const entries = Object.entries(value);
      for (const [key] of entries) {
        const inKey = firstHiddenCharacter(key);
        if (inKey !== null) return refusalText(`${path === '' ? 'data' : path} (a key)`, inKey);
      }
      for (let i = entries.length - 1; i >= 0; i--) {
        const [key, inner] = entries[i]!;
        pending.push({ value: inner, path: path === '' ? keyName(key) : `${path}.${keyName(key)}` });
      }
    }
  }
  return null;
}

function refusalText(field: string, codePoint: number): string {
  return `${field}: ${codePointName(codePoint)} (${hiddenCharacterKind(codePoint)}) is not allowed; write the text without invisible or direction-changing characters`;
}

// What is wrong, in gapflow's words.

/** Control characters, line and paragraph separators, bidirectional overrides: what must not reach a terminal raw. */
// eslint-disable-next-line no-control-regex -- control characters are exactly what this finds
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/** What was wrong with one value: where it is, what it was, what it may be. */
export interface BadValue {
  /** Where the value is: `data.severity`, `--severity`, `STATE` (empty: the whole input). */
  field: string;
  /** The value given (undefined: none was). */
  value: unknown;
  /** The words the field takes, when it takes one of a list. */
  valid: readonly string[] | null;
  /** The valid word nearest to the value, when one is near. */
  suggestion: string | null;
}

/** What an issue's reader may know besides the issue: the words or the fields a place in the input takes. */
export interface IssueContext {
  /** The words the value at `path` takes, when it takes one of a list. */
  words?: (path: readonly PropertyKey[]) => readonly string[] | undefined;
  /** The fields the object at `path` may hold. */
  fields?: (path: readonly PropertyKey[]) => readonly string[] | undefined;
}

/** An issue, read: one line saying what is wrong, and the value it is wrong about. */
export interface ReadIssue {
  message: string;
  bad: BadValue;
}

/**
 * The first thing wrong in a zod failure, in gapflow's words: the field,
 * the value given (echoed when the parse reported it: `reportInput`), what
 * the field takes and, for a word, the nearest valid one. `data.severity:
 * "MEDUIM" is not one of CRITICAL, HIGH, MEDIUM, LOW (did you mean MEDIUM?)`.
 * Any control character in it is written escaped (`\n`, `\u001b`): the line
 * stays one line, and a hostile key cannot rewrite the terminal.
 */
export function readIssue(error: z.core.$ZodError, context: IssueContext = {}): ReadIssue {
  const issue = error.issues[0];
  if (!issue) return { message: 'invalid event', bad: { field: '', value: undefined, valid: null, suggestion: null } };
  const read = describe(issue, context);
  const where = read.field.map(String).join('.');
  const text = where ? `${where}: ${read.problem}` : read.problem;
  const message = text.replace(UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  const field = (read.badField ?? read.field).map(String).join('.');
  return { message, bad: { field, value: read.value, valid: read.valid ?? null, suggestion: read.suggestion ?? null } };
}

/** `readIssue`'s line alone. */
export function formatIssue(error: z.core.$ZodError, context: IssueContext = {}): string {
  return readIssue(error, context).message;
}

interface Described {
  /** Where the message says the problem is. */
  field: readonly PropertyKey[];
  /** Where the bad value is, when that is not `field` (an unknown key is in its object, but is itself the value). */
  badField?: readonly PropertyKey[];
  problem: string;
  value: unknown;
  valid?: readonly string[] | undefined;
  suggestion?: string | null;
}

const KINDS: Readonly<Record<string, string>> = {
  string: 'text',
  number: 'a number',
  int: 'a whole number',
  boolean: 'true or false',
  object: 'an object',
  array: 'a list',
};

function describe(issue: z.core.$ZodIssue, context: IssueContext): Described {
  const path = issue.path;
  const reported = 'input' in issue;
  const value: unknown = issue.input;
  const shown = shownValue(value);
  const not = reported ? `, not ${shown}` : '';
  switch (issue.code) {
    case 'invalid_value': {
      const valid = issue.values.map(String);
      const { text, suggestion } = oneOf(value, valid);
      const problem = !reported ? `expected ${text}` : value === undefined ? `missing; it takes ${text}` : `${shown} is not ${text}`;
      return { field: path, problem, value, valid, suggestion };
    }
    case 'invalid_union': {
      if (!('discriminator' in issue) || typeof issue.discriminator !== 'string') break;
      const options = (issue as { options?: unknown[] }).options?.map(String) ?? [];
      const given = typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[issue.discriminator] : undefined;
      const { text, suggestion } = oneOf(given, options);
      const problem = given === undefined ? `missing; it takes ${text}` : `${shownValue(given)} is not ${text}`;
      return { field: path, problem, value: given, valid: options, suggestion };
    }
    case 'invalid_type': {
      const valid = context.words?.(path);
      if (reported && value === undefined) {
        const { text } = valid ? oneOf(undefined, valid) : { text: KINDS[issue.expected] ?? issue.expected };
        return { field: path, problem: `missing; it takes ${text}`, value, valid };
      }
      if (!reported) return { field: path, problem: issue.message, value };
      return { field: path, problem: `${shown} is not ${KINDS[issue.expected] ?? issue.expected}`, value, valid };
    }
    case 'unrecognized_keys': {
      const key = issue.keys[0] ?? '';
      const fields = context.fields?.(path);
      const suggestion = fields ? nearestWord(key, fields) : null;
      const known = fields ? `; fields: ${fields.join(', ')}${suggestion ? ` (did you mean ${suggestion}?)` : ''}` : '';
      return { field: path, badField: [...path, key], problem: `unknown field ${shownValue(key)}${known}`, value: key, valid: fields, suggestion };
    }
    case 'too_small':
    case 'too_big': {
      const small = issue.code === 'too_small';
      const bound = small ? issue.minimum : issue.maximum;
      const inclusive = issue.inclusive !== false;
      const edge = `${inclusive ? (small ? 'at least' : 'at most') : small ? 'more than' : 'less than'} `;
      if (issue.origin === 'string') {
        const length = typeof value === 'string' ? ` (${[...value].length} characters)` : '';
        return { field: path, problem: `${reported ? `${shown}${length} ` : ''}is too ${small ? 'short' : 'long'}: ${edge}${String(bound)} characters`, value };
      }
      if (issue.origin === 'array' || issue.origin === 'set') {
        const count = Array.isArray(value) ? ` (${value.length} items)` : '';
        return { field: path, problem: `${reported ? `the list${count} ` : ''}is too ${small ? 'short' : 'long'}: ${edge}${String(bound)} items`, value };
      }
      return { field: path, problem: `${reported ? `${shown} ` : ''}is too ${small ? 'small' : 'big'}: ${edge}${String(bound)}`, value };
    }
    default:
      break;
  }
  return { field: path, problem: `${issue.message}${not}`, value };
}

// The request.

/**
 * One line of a batch given to `gapflow append`: an event body and, if the
 * caller wants to name its event, an `id`. Its schemas are built with the
 * bodies' (schemas.ts), one type at a time.
 */
export { EventRequest } from './schemas.js';

/** The fields the object at `path` in a request of `type` may hold, for a "did you mean"; undefined when that is not known. */
export function requestFields(type: unknown, path: readonly PropertyKey[]): readonly string[] | undefined {
  if (path.length === 0) return ['type', 'data'];
  if (path.length !== 1 || path[0] !== 'data') return undefined;
  const option = EventBody.option(type);
  return option === undefined ? undefined : Object.keys(option.shape.data.shape);
}

/**
 * A caller's request, read: the typed body the core's `decide` takes, or
 * the one line saying why it is none (`bad`: the value it is wrong about,
 * when one is), for the edge to refuse.
 */
export type ParsedRequest = { body: EventBody; message?: undefined } | { message: string; bad?: BadValue | undefined };

/**
 * Parses what a caller asks to record, where the text enters: its words
 * taken in any spelling (`in-progress` is IN_PROGRESS) and recorded in the
 * canonical one. A malformed body is named by the field, the value given,
 * what the field takes and the nearest valid word. The core trusts what
 * this returns and parses nothing again.
 */
export function parseRequest(input: unknown): ParsedRequest {
  const canonical = canonicalRequest(input);
  const hidden = hiddenTextOf(canonical);
  if (hidden !== null) return { message: `${rawLabel(canonical)}: ${hidden}` };
  const parsed = EventBody.safeParse(canonical, { reportInput: true });
  if (parsed.success) return { body: parsed.data };
  const type = typeof canonical === 'object' && canonical !== null ? (canonical as { type?: unknown }).type : undefined;
  const { message, bad } = readIssue(parsed.error, { words: (path) => wordsAt(type, path), fields: (path) => requestFields(type, path) });
  return { message: `${rawLabel(canonical)}: ${message}`, bad };
}

/**
 * A request whose text holds an invisible or direction-changing character
 * is refused naming the field and the code point (HIDDEN_CHARACTER says why).
 * Checked on the raw request, before the schema, so that an id is refused
 * for the character too, not only for not being a word. The output of a
 * verification run is gapflow's own capture of what the check printed, not
 * a caller's text: it is shown spelt out instead.
 */
function hiddenTextOf(request: unknown): string | null {
  if (typeof request !== 'object' || request === null || !('data' in request)) return null;
  const { type, data } = request as { type?: unknown; data: unknown };
  const checked = type === 'verification.ran' && typeof data === 'object' && data !== null ? { ...data, output: '' } : data;
  return hiddenTextProblem(checked);
}

/** Names what was asked for as well as malformed input allows: `gap.opened GAP-1`, `event`. */
function rawLabel(input: unknown): string {
  if (typeof input !== 'object' || input === null || !('type' in input) || typeof input.type !== 'string') return 'event';
  const data = 'data' in input && typeof input.data === 'object' && input.data !== null ? input.data : {};
  const word = (key: string) =>
    key in data && typeof (data as Record<string, unknown>)[key] === 'string' ? ((data as Record<string, unknown>)[key] as string) : undefined;
  const name = word('id') ?? word('kind') ?? word('policy') ?? '';
  const safe = name.length <= 128 && /^[\x21-\x7e]+$/.test(name) ? ` ${name}` : '';
  return `${input.type.slice(0, 64)}${safe}`;
}
