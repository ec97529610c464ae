import type { ParseArgsConfig } from 'node:util';
import { canonicalWord, nearestWord, oneOf, shownValue } from '../../events/index.js';
import { Refusal } from '../core/index.js';
import type { WriteOptions } from '../session/index.js';

const { parseArgs } = process.getBuiltinModule('node:util');

/** A call whose words are off: exit 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

type Options = NonNullable<ParseArgsConfig['options']>;

const GLOBAL_OPTIONS = {
  dir: { type: 'string' },
  store: { type: 'string' },
  session: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies Options;

type Parsed<T extends Options> = ReturnType<typeof parseArgs<{ args: string[]; options: T & typeof GLOBAL_OPTIONS; allowPositionals: true; strict: true }>>;

/** An option as parseArgs takes it. */
export interface Flag {
  type: 'string' | 'boolean';
  multiple?: boolean;
  short?: string;
}

/** A command's options, by name (`severity` for `--severity`). */
export type Flags = Readonly<Record<string, Readonly<Flag>>>;

/** A command's words: its options, and its positionals' names as `parse` takes them (`ID`; a last `DIR...` takes any number, none included; absent: none). */
export interface Words<F extends Flags = Flags> {
  flags: F;
  args?: readonly string[];
}

/** The words of a command whose first word is a verb (`gap open`): each verb's own. */
export interface VerbWords {
  verbs: Readonly<Record<string, Words>>;
  /** The usage error when no verb is given (nothing, or an option where it stands). */
  needs: string;
  /** The verb a word names, in the command's own terms (any spelling; its own error when none); else only a verb's own name, an unknown one refused by unknownVerb. */
  verbOf?: (word: string) => string;
  /** The usage error for a word that names no verb, where the command words it its own way (unknownVerb's otherwise). */
  unknown?: (word: string) => string;
}

/** What an entry of the command table says its words are. */
export type WordSpec = Words | VerbWords;

/** The values of a command's options (theirs and the global ones), as parseArgs gives them. */
export type Values<F extends Flags> = Parsed<F>['values'];

/**
 * A call's words as its command gets them, parsed by its entry in the
 * table: the verb (for a command with verbs), the options' values, the
 * positionals; `jsonInput` the file (or `-`) that `--json FILE` names where
 * `--json` takes one (Entry.jsonTakesFile); `problem` the usage error of a
 * command that answers its own (Entry.answersUsage).
 */
export interface ParsedCall<F extends Flags = Flags> {
  verb: string | undefined;
  values: Values<F>;
  args: string[];
  jsonInput?: string;
  problem?: UsageError;
}

/** The call of a command with verbs `V` (an entry's `verbs`, by type): one per verb, told apart by `verb`. */
export type VerbCall<V extends Readonly<Record<string, Words>>> = { [K in keyof V & string]: ParsedCall<V[K]['flags']> & { verb: K } }[keyof V & string];

/**
 * Parses a call's words (after its command's name) by its entry's `spec`:
 * the verb first, where it takes one, then `--json FILE` taken out where
 * `--json` names a file (`jsonTakesFile`), then the verb's options and
 * positionals. Every mistake is a usage error, worded as each command
 * always worded it (`gap needs open, …`, `unknown gap command "…"`,
 * `missing ID`, `unknown option --sevrity (did you mean --severity?)`).
 */
export function parseWords(command: string, words: readonly string[], spec: WordSpec, jsonTakesFile = false): ParsedCall {
  let verb: string | undefined;
  let own: Words;
  let rest = [...words];
  if ('verbs' in spec) {
    const [word, ...after] = words;
    if (word === undefined || word.startsWith('-')) throw new UsageError(spec.needs);
    verb = spec.verbOf ? spec.verbOf(word) : knownVerb(command, word, spec);
    own = spec.verbs[verb]!;
    rest = after;
  } else own = spec;
  const { rest: left, input } = jsonTakesFile ? takeJsonInput(rest) : { rest, input: undefined };
  const { values, args } = parse(left, own.flags, own.args ?? []);
  return input === undefined ? { verb, values, args } : { verb, values, args, jsonInput: input };
}

/** A word that is one of `spec`'s verbs as it spells it; an empty one is no verb given. */
function knownVerb(command: string, word: string, spec: VerbWords): string {
  if (Object.hasOwn(spec.verbs, word)) return word;
  if (word === '') throw new UsageError(spec.needs);
  throw spec.unknown ? new UsageError(spec.unknown(word)) : unknownVerb(command, word, Object.keys(spec.verbs));
}

/** `record POLICY --json FILE|-` names the input; a bare `--json` (or one before another option) asks for JSON output. */
function takeJsonInput(argv: readonly string[]): { rest: string[]; input: string | undefined } {
  const rest: string[] = [];
  let input: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i]!;
    const next = argv[i + 1];
    if (word.startsWith('--json=')) input = word.slice('--json='.length);
    else if (word === '--json' && next !== undefined && (next === '-' || !next.startsWith('-'))) {
      input = next;
      i += 1;
    } else rest.push(word);
  }
  return { rest, input };
}

/** Parses one command's options and positionals; unknown options are usage errors. */
function parse<T extends Options>(argv: readonly string[], options: T, positionals: readonly string[]): { values: Parsed<T>['values']; args: string[] } {
  let parsed: Parsed<T>;
  try {
    parsed = parseArgs({
      args: joinNegativeValues(argv, options),
      options: { ...GLOBAL_OPTIONS, ...options },
      allowPositionals: true,
      strict: true,
    }) as Parsed<T>;
  } catch (error) {
    throw new UsageError(parseProblem(error, Object.keys({ ...GLOBAL_OPTIONS, ...options })));
  }
  const required = positionals.filter((name) => !name.endsWith('...'));
  if (parsed.positionals.length < required.length) {
    throw new UsageError(`missing ${required.slice(parsed.positionals.length).join(' ')}`);
  }
  // A last positional named `DIR...` takes any number of words, none included.
  if (parsed.positionals.length > positionals.length && !positionals.at(-1)?.endsWith('...')) {
    throw new UsageError(`unexpected argument "${parsed.positionals[positionals.length]}"`);
  }
  return { values: parsed.values, args: parsed.positionals };
}

/** node's words for a call parseArgs refuses, in gapflow's: an unknown option is named, with the nearest one it takes. */
function parseProblem(error: unknown, names: readonly string[]): string {
  const message = error instanceof Error ? error.message.split('\n')[0]! : String(error);
  const unknown = /^Unknown option '([^']*)'/.exec(message)?.[1];
  if (unknown === undefined) return message;
  const flags = names.map((name) => `--${name}`);
  const suggestion = unknown.startsWith('--') ? nearestWord(unknown, flags) : null;
  return `unknown option ${unknown}${suggestion ? ` (did you mean ${suggestion}?)` : ''}`;
}

/**
 * `--max-rounds -1` as `--max-rounds=-1`: parseArgs would call a value that
 * starts with `-` ambiguous; a number there is a value, and its range is for
 * the command to judge, in its own words.
 */
function joinNegativeValues(argv: readonly string[], options: Options): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i]!;
    const next = argv[i + 1];
    const option = word.startsWith('--') ? options[word.slice(2)] : undefined;
    if (option?.type === 'string' && next !== undefined && /^-[\d.]/.test(next)) {
      out.push(`${word}=${next}`);
      i += 1;
    } else out.push(word);
  }
  return out;
}

/** A whole number from an option; anything else is invalid input (exit 1). */
export function wholeNumber(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^-?\d+$/.test(value.trim())) {
    throw new Refusal(`--${flag} takes a whole number, not ${shownValue(value)}`, undefined, { field: `--${flag}`, value, valid: null, suggestion: null });
  }
  return Number(value);
}

/** How `wordOf` words a refusal: what the call is about (`gap open GAP-1`), and the words as the CLI spells them. */
export interface WordOptions<W extends string> {
  about?: string;
  shown?: (word: W) => string;
}

/**
 * A word from a fixed list, in any spelling (`in-progress`, `In_Progress`
 * and `IN_PROGRESS` are all IN_PROGRESS), as the list spells it. Any other
 * word is invalid input (exit 1), refused naming `field` (a flag, a
 * positional), the word given, the words taken and the nearest one.
 */
export function wordOf<W extends string>(field: string, value: string, words: readonly W[], options: WordOptions<W> = {}): W {
  const word = canonicalWord(value, words);
  if (word !== undefined) return word;
  const valid = words.map(options.shown ?? ((w) => w));
  const { text, suggestion } = oneOf(value, valid);
  const about = options.about === undefined ? '' : `${options.about}: `;
  throw new Refusal(`${about}${field}: ${shownValue(value)} is not ${text}`, undefined, { field, value, valid, suggestion });
}

/** A command's verb that is not one of its `verbs` (a usage error): `unknown gap command "sevrity" (open, move, severity; did you mean severity?)`. */
function unknownVerb(command: string, verb: string, verbs: readonly string[]): UsageError {
  const suggestion = nearestWord(verb, verbs);
  return new UsageError(`unknown ${command} command ${shownValue(verb)} (${verbs.join(', ')}${suggestion ? `; did you mean ${suggestion}?` : ''})`);
}

/** A word the CLI spells with `-` (`narrow-scope`) where the log spells it with `_`. */
export const dashed = (word: string): string => word.replaceAll('_', '-');

/** A decimal as people type it: `85`, `-1`, `0.8`, `.8`, `8.`, `1e3`. */
export const DECIMAL = /^[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i;

export function list(value: string | undefined): string[] | undefined {
  return value === undefined
    ? undefined
    : value
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
}

/** `--expect-seq N` (refuse unless the log ends at seq N) and `--event-id ID` (a retry appends nothing twice). */
export function writeOptions(values: { 'expect-seq'?: string | undefined; 'event-id'?: string | undefined }): WriteOptions {
  return { expectSeq: wholeNumber('expect-seq', values['expect-seq']), eventId: values['event-id'] };
}
