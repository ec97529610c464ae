import { parseArgs, type ParseArgsConfig } from 'node:util';
import { Refusal } from '../core/lean.js';
import { UsageError } from './usage-error.js';

export { UsageError };

type Options = NonNullable<ParseArgsConfig['options']>;

export const GLOBAL_OPTIONS = {
  dir: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies Options;

type Parsed<T extends Options> = ReturnType<
  typeof parseArgs<{ args: string[]; options: T & typeof GLOBAL_OPTIONS; allowPositionals: true; strict: true }>
>;

/** Parses one command's options and positionals; unknown options are usage errors. */
export function parse<T extends Options>(
  argv: string[],
  options: T,
  positionals: readonly string[],
): { values: Parsed<T>['values']; args: string[] } {
  let parsed: Parsed<T>;
  try {
    parsed = parseArgs({
      args: joinNegativeValues(argv, options),
      options: { ...GLOBAL_OPTIONS, ...options },
      allowPositionals: true,
      strict: true,
    }) as Parsed<T>;
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message.split('\n')[0]! : String(error));
  }
  if (parsed.positionals.length < positionals.length) {
    throw new UsageError(`missing ${positionals.slice(parsed.positionals.length).join(' ')}`);
  }
  if (parsed.positionals.length > positionals.length) {
    throw new UsageError(`unexpected argument "${parsed.positionals[positionals.length]}"`);
  }
  return { values: parsed.values, args: parsed.positionals };
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
  if (!/^-?\d+$/.test(value.trim())) throw new Refusal(`--${flag} takes a whole number, not ${JSON.stringify(value.slice(0, 40))}`);
  return Number(value);
}

/** A decimal as people type it: `85`, `-1`, `0.8`, `.8`, `8.`, `1e3`. */
export const DECIMAL = /^[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i;

/** `in-progress`, `In_Progress` and `IN_PROGRESS` all name the same state; the schema judges the result. */
export function enumWord(value: string): string {
  return value.trim().toUpperCase().replace(/-/g, '_');
}

export function list(value: string | undefined): string[] | undefined {
  return value === undefined ? undefined : value.split(',').map((s) => s.trim()).filter(Boolean);
}
