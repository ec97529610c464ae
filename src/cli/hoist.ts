// Imports nothing: the bin reads a call's words before it loads any command.

/** Commands whose first word after the name is a verb (`gap open`, `round close`, `decide pause`). */
const HAS_VERB = new Set(['gap', 'round', 'decide', 'hook', 'record']);

/** The global options that take a value: where the session lives. */
const VALUED: ReadonlySet<string> = new Set(['--dir', '--store', '--session']);

/**
 * Whether a call may name a store (`--store`, `--session`, or
 * `$GAPFLOW_STORE` where no folder is named by `--dir` or `$GAPFLOW_DIR`,
 * which beat it): the bin's short paths read only a session folder's head,
 * so such a call goes to the full command, which opens whatever store it
 * names.
 */
export function namesStore(words: readonly string[], env: Record<string, string | undefined>): boolean {
  const has = (option: string) => words.some((word) => word === option || word.startsWith(`${option}=`));
  if (has('--store') || has('--session')) return true;
  return Boolean(env.GAPFLOW_STORE) && !has('--dir') && !env.GAPFLOW_DIR;
}

/**
 * Global options may stand anywhere, also before the command or between it
 * and its verb (`gapflow --dir D gap open …`); those are moved behind the
 * verb, where the command's own parser reads them.
 */
export function hoistGlobalOptions(argv: string[]): string[] {
  const globals: string[] = [];
  const words: string[] = [];
  let i = 0;
  const wanted = () => (words.length > 0 && HAS_VERB.has(words[0]!) ? 2 : 1);
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
 * a `--json` before any `--`. For `record`, only a bare one: `record POLICY
 * --json FILE|-` names its input.
 */
export function asksForJson(argv: readonly string[]): boolean {
  const end = argv.indexOf('--');
  const words = end === -1 ? argv : argv.slice(0, end);
  const record = hoistGlobalOptions([...words])[0] === 'record';
  return words.some((word, i) => {
    if (word !== '--json') return false;
    const next = words[i + 1];
    return !record || next === undefined || (next.startsWith('-') && next !== '-');
  });
}

/** A command's words (after its name) asking for `--help` instead. */
export function asksForHelp(rest: readonly string[]): boolean {
  return rest.includes('--help') || rest.includes('-h');
}
