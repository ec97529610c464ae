import type * as z from 'zod/mini';
import { nearestWord, oneOf, shownValue } from './spelling.js';

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
