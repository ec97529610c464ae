import type { CliIO } from './common.js';
import type { Entry } from './table.js';

/*
 * How a call's words are read by the command table, before anything is
 * loaded: the bin reads them here, and dispatch.ts again for `run`. The
 * table is an argument, not an import: this module is shared by the bin's
 * entry and dispatch.ts's chunk, and importing table.ts would pull the
 * table into that shared chunk, from where the short path's own bundle
 * (`./head-answers.js`, beside dist/gapflow.js) is not found.
 */

/** What these functions read of the table: a command's name and how its words go. */
export type Table = readonly Pick<Entry, 'name' | 'verb' | 'jsonTakesFile'>[];

/** `io` for a call of `entry` with `words` (after its name), marked when the call only reads (Entry.reads). */
export function callIo<T extends CliIO>(entry: Pick<Entry, 'reads'>, words: readonly string[], io: T): T {
  const reading = typeof entry.reads === 'function' ? entry.reads(words) : entry.reads === true;
  return reading ? { ...io, reading } : io;
}

/**
 * Whether a call may name a store (`--store`, `--session`, or
 * `$GAPFLOW_STORE` where no folder is named by `--dir` or `$GAPFLOW_DIR`,
 * which beat it): the short paths read only a session folder's head, so
 * such a call goes to the full command, which opens whatever store it names.
 */
export function namesStore(words: readonly string[], env: Record<string, string | undefined>): boolean {
  const has = (option: string) => words.some((word) => word === option || word.startsWith(`${option}=`));
  if (has('--store') || has('--session')) return true;
  return Boolean(env.GAPFLOW_STORE) && !has('--dir') && !env.GAPFLOW_DIR;
}

/** The global options that take a value: where the session lives. */
const VALUED: ReadonlySet<string> = new Set(['--dir', '--store', '--session']);

/**
 * Global options may stand anywhere, also before the command or between it
 * and its verb (`gapflow --dir D gap open …`); those are moved behind the
 * verb, where the command's own parser reads them.
 */
export function hoistGlobalOptions(argv: readonly string[], table: Table): string[] {
  const globals: string[] = [];
  const words: string[] = [];
  let i = 0;
  const wanted = () => (words.length > 0 && table.some((entry) => entry.name === words[0] && entry.verb) ? 2 : 1);
  while (i < argv.length && words.length < wanted()) {
    const word = argv[i]!;
    if (VALUED.has(word) && i + 1 < argv.length) {
      globals.push(word, argv[i + 1]!);
      i += 2;
    } else if ([...VALUED].some((option) => word.startsWith(`${option}=`)) || word === '--json') {
      globals.push(word);
      i += 1;
    } else if (words.length === 1 && word.startsWith('-')) {
      break; // an option where the verb should be: the command reports the missing verb
    } else {
      words.push(word);
      i += 1;
    }
  }
  return words.length === 0 ? [] : [...words, ...globals, ...argv.slice(i)];
}

/**
 * Whether a call (its words, global options anywhere) asks for JSON output:
 * a `--json` before any `--`; only a bare one where `--json` names a file
 * (`record POLICY --json FILE|-`).
 */
export function asksForJson(argv: readonly string[], table: Table): boolean {
  const end = argv.indexOf('--');
  const words = end === -1 ? argv : argv.slice(0, end);
  const name = hoistGlobalOptions(words, table)[0];
  const takesFile = table.some((entry) => entry.name === name && entry.jsonTakesFile);
  return words.some((word, i) => {
    if (word !== '--json') return false;
    const next = words[i + 1];
    return !takesFile || next === undefined || (next.startsWith('-') && next !== '-');
  });
}

/** A command's words (after its name) asking for `--help` instead. */
export function asksForHelp(words: readonly string[]): boolean {
  return words.includes('--help') || words.includes('-h');
}

/** The call's first word asking for the whole help text. */
export function asksForAllHelp(name: string | undefined): boolean {
  return name === '--help' || name === '-h' || name === 'help';
}

/** Answers `--version` (wherever the global options put it): the one place it is answered, for the bin and for `run`. */
export function answerVersion(name: string | undefined, io: Pick<CliIO, 'stdout' | 'version'>): boolean {
  if (name !== '--version') return false;
  io.stdout(`${io.version?.() ?? 'unknown'}\n`);
  return true;
}
