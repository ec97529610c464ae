import type { Flags, ParsedCall, Words, WordSpec } from './args.js';
import type { CliIO, Command } from './common.js';
import type { BinCall, dispatchBin } from './dispatch.js';
import { flushed, write } from './out.js';

/*
 * What a command's entry in the table holds, the write commands' entries,
 * and the bin's reading of a call by a table (readCall, runBin, binMain).
 * The whole table is table.ts; the write bundle reads its calls by
 * WRITE_ENTRIES alone, so nothing here imports the other commands. This
 * file loads on every call, before the bin knows what it is asked, so it
 * holds only strings and loaders, and the help's parts that come from the
 * registries (policies, state formats, the gate's flags) are filled in by
 * dispatch.ts, which the help loads. Each entry declares its words (its
 * options and positionals, or each verb's), by which dispatch.ts parses a
 * call before its command runs: the flag objects are exported as values, so
 * a command module types its call by them (`import type`, `typeof`); the
 * words that come from the registries (a policy's flags, the decision
 * kinds) are a function of what dispatch.ts reads from them (WordParts).
 * dispatch.ts takes the call as read here (Reading, with the table) and
 * imports nothing from here but types: a module both chunks imported would
 * become a shared chunk under dist/chunks, where `./head-answers.js`, the
 * short path's own bundle beside dist/gapflow.js, is not found.
 */

/** A call as the bin hands it on: the words after the command's name, and its io. */
export interface Call {
  words: string[];
  io: CliIO;
}

/** A command that stays up until `stop` settles (the bin wires it to SIGINT and SIGTERM). */
export type Follow = (call: ParsedCall, io: CliIO, stop: Promise<unknown>) => Promise<void>;

/**
 * What the words of `init`, `round`, `decide` and `record` take from the
 * registries, filled in by dispatch.ts (which loads them) before it parses
 * one of their calls.
 */
export interface WordParts {
  /** `init`'s: the verification gate's command and time limit, `--policy`, `--complete-when` and each policy's `--<policy>-<setting>`. */
  initFlags: () => Flags;
  /** `round close`'s: the record flags of each policy that records on the close. */
  closeFlags: () => Flags;
  /** `decide`'s kinds as the log spells them, the kind a word names (in any spelling; else refused), and the usage error when none is given. */
  decide: { kinds: readonly string[]; kindOf: (word: string) => string; needs: string };
  /** `record`'s: each metric policy's flags (its record flags and its record command's), by name; the policy a word names (else refused); the usage error when none is given. */
  record: { flags: () => Readonly<Record<string, Flags>>; policyOf: (word: string) => string; needs: string };
}

/*
 * Each command's words: its options (as parseArgs takes them) and its
 * positionals' names. They load with the table on every call, so each is
 * written short: an option that takes a value is STRING, a switch BOOLEAN.
 */
export const STRING = { type: 'string' } as const;
export const BOOLEAN = { type: 'boolean' } as const;

/** The options every command that appends to the log takes. */
export const WRITE_OPTIONS = {
  'expect-seq': STRING,
  'event-id': STRING,
} as const satisfies Flags;

/** `init`'s own options; the registries add theirs (WordParts.initFlags). */
export const INIT_FLAGS = {
  preset: STRING,
  'stall-threshold': STRING,
  'divergence-threshold': STRING,
  'max-rounds': STRING,
  'no-critical-override': BOOLEAN,
  'agent-session': STRING,
  'write-status': BOOLEAN,
  'ping-pong': STRING,
} as const satisfies Flags;

/** `gap`'s verbs. */
export const GAP_VERBS = {
  open: {
    flags: { severity: STRING, title: STRING, 'spawned-by': STRING, 'non-blocking': BOOLEAN, ...WRITE_OPTIONS },
    args: ['ID'],
  },
  move: { flags: { reason: STRING, 'blocked-by': STRING, of: STRING, ...WRITE_OPTIONS }, args: ['ID', 'STATE'] },
  severity: { flags: { ...WRITE_OPTIONS }, args: ['ID', 'SEVERITY'] },
  split: { flags: { into: STRING, reason: STRING, ...WRITE_OPTIONS }, args: ['ID'] },
  rename: { flags: { ...WRITE_OPTIONS }, args: ['OLD', 'NEW'] },
} as const satisfies Record<string, Words>;

/** `round start`'s words (`round close` takes the write options and its policies' record flags). */
export const ROUND_START = { flags: { kind: STRING, ...WRITE_OPTIONS } } as const satisfies Words;

/** Every decision's options (`decide extend-rounds` takes an N besides). */
export const DECIDE_FLAGS = {
  gaps: STRING,
  'accept-critical': BOOLEAN,
  rationale: STRING,
  ...WRITE_OPTIONS,
} as const satisfies Flags;

/** What the help takes from the registries, filled in by dispatch.ts (which loads them) when help is asked for. */
export interface HelpParts {
  gateFlag: string;
  gateTimeoutFlag: string;
  gateSeconds: number;
  policyNames: readonly string[];
  /** `round close` with each policy that records on it. */
  closeLines: string;
  /** Each policy: how to record it, what it is, its `init` settings. */
  policyLines: string;
  /** ` [--format A|B]` for `state`, or nothing when there are no formats. */
  stateFormats: string;
  /** A usage and its text, the text in the column the others use when the usage leaves room. */
  row: (usage: string, text: string) => string;
}

/**
 * The help's sections, in the order it shows them, each with its heading.
 * The table's own order is the one "did you mean" breaks ties by, as it
 * always has: `--help` groups the commands by section instead.
 */
export const SECTIONS = {
  session: { rank: 1, heading: 'Session' },
  gaps: { rank: 2, heading: 'Gaps (a gap event between rounds starts the next round)' },
  rounds: { rank: 3, heading: 'Rounds' },
  decisions: { rank: 4, heading: 'Decisions (between rounds)' },
  policies: { rank: 5, heading: 'Policies (one record per policy per round; without gaps a round closes itself)' },
  reading: { rank: 6, heading: 'Reading' },
  fleet: { rank: 7, heading: 'Fleet (many sessions: DIR or --store URL|DIR, else $GAPFLOW_STORE, else here)' },
  loops: { rank: 8, heading: 'Loops' },
  trust: { rank: 9, heading: 'Trust (what runs, and whose folders are used: docs/security.md)' },
  log: { rank: 10, heading: 'Log' },
} as const satisfies Record<string, Section>;

/** A heading of `--help` and where it stands among the others. */
export interface Section {
  rank: number;
  heading: string;
}

interface EntryBase {
  name: string;
  /** The heading it stands under in `--help`. */
  section: Section;
  /** Its lines in `--help`, indented as they stand there. */
  help: string | ((parts: HelpParts) => string);
  /** Its words, by which its calls are parsed before it runs (args.ts, parseWords). */
  words: WordSpec | ((parts: WordParts) => WordSpec);
  /** Its usage errors are its own to answer (the stop hook answers every failure as Claude Code reads it): handed to it (ParsedCall.problem), not reported. */
  answersUsage?: true;
  /**
   * The call only reads a session, so it may read a folder someone else owns
   * or may write (common.ts, ownFolder): nothing from it runs and
   * nothing is written there. Every other call, the stop hook included (it
   * tells an agent what to do), uses only the user's own folders.
   */
  reads?: true | ((words: readonly string[]) => boolean);
  /**
   * It records events in the session its call names (`'new'`: in the one it
   * makes, where it is asked to, not in the nearest one above), so status.md
   * is rewritten after it when the session asks for it (common.ts,
   * statusAfterWrite). The stop hook records only a binding, which status.md
   * does not show, in a session its input names.
   */
  records?: true | 'new';
  /** Its first word is a verb (`gap open`): global options before the verb are moved behind it. */
  verb?: true;
  /** `--json FILE` names its input, so only a bare `--json` asks for JSON output (`record POLICY --json FILE|-`). */
  jsonTakesFile?: true;
  /**
   * Tried before the command loads: a short path that answers a read from
   * the head without the schemas, statechart or immer. Returns null when it
   * answered (exit 0), else the call to hand to the command (its standard
   * input replayable when the short path read some).
   */
  first?: (call: Call) => Promise<Call | null>;
  /**
   * Where dispatch is taken from when it is not dispatch.ts itself: the
   * session's write commands take it from their own module, so the bin's
   * build can bundle the two whole as one file (`dist/session-commands.js`)
   * holding only the code a write runs. The same modules either way.
   */
  dispatch?: () => Promise<{ dispatchBin: typeof dispatchBin }>;
}

/** A command as the table holds it: loaded when a call names it. */
export type Entry = (EntryBase & { stays?: undefined; load: () => Promise<Command> }) | (EntryBase & { stays: true; load: () => Promise<Follow> });

/**
 * Where a help line's text stands when it goes on under its usage: written
 * `${COLUMN}` in each entry's help (the table loads on every call, and 40
 * runs of 34 spaces are a kilobyte of it).
 */
export const COLUMN = ' '.repeat(34);

/** The session's write commands, with dispatch beside them (EntryBase.dispatch). */
const writes = () => import('./session-commands.js');

/**
 * The session's write commands: the bin's own bundle runs them (launch.ts),
 * reading a call by these entries alone.
 */
export const WRITE_ENTRIES: readonly Entry[] = [
  {
    name: 'init',
    records: 'new',
    words: (p) => ({ flags: { ...INIT_FLAGS, ...p.initFlags(), ...WRITE_OPTIONS } }),
    section: SECTIONS.session,
    help: (p) => `  init [--preset simple|complex|large|auto] [--stall-threshold N]
       [--divergence-threshold D] [--max-rounds M] [--no-critical-override]
       [--agent-session ID]       (ID: the agent session whose stop hook drives it)
       [--write-status]           rewrite status.md after every command that records
       [--ping-pong N]            name a gap reopened N times after a resolve (2)
       [--${p.gateFlag} CMD [--${p.gateTimeoutFlag} S]]   CMD must pass (run then, S seconds
${COLUMN}at most, ${p.gateSeconds}) to complete as converged or approved
       [--policy ${p.policyNames.join('|')}[,...]] [--complete-when all|any]
       [--<policy>-<setting> VALUE ...]   each policy's settings (under Policies)
${COLUMN}create the session log (refuses if one exists)`,
    load: async () => (await writes()).init,
    dispatch: writes,
  },
  {
    name: 'gap',
    records: true,
    words: { verbs: GAP_VERBS, needs: 'gap needs open, move, severity, split or rename' },
    section: SECTIONS.gaps,
    verb: true,
    help: `  gap open ID --severity CRITICAL|HIGH|MEDIUM|LOW|UNTRIAGED [--title TEXT]
       [--spawned-by ID] [--non-blocking]   (UNTRIAGED weighs as MEDIUM)
  gap move ID STATE [--reason TEXT] [--blocked-by ID]
  gap move ID DUPLICATE --of ID   withdrawn: neither resolved nor new
  gap severity ID SEVERITY
  gap split ID --into ID:SEV,ID:SEV[,...] [--reason TEXT]
  gap rename OLD NEW              counts nothing; OLD is never used again`,
    load: async () => (await writes()).gap,
    dispatch: writes,
  },
  {
    name: 'round',
    records: true,
    words: (p) => ({ verbs: { start: ROUND_START, close: { flags: { ...p.closeFlags(), ...WRITE_OPTIONS } } }, needs: 'round needs start or close' }),
    section: SECTIONS.rounds,
    verb: true,
    help: (p) => `  round start [--kind work|review|consolidation]
${COLUMN}open the next round (a flat review or consolidation
${COLUMN}round leaves the flat count as it was)
  round close                     close it: figures, both nets, the new state and why
${p.closeLines}`,
    load: async () => (await writes()).round,
    dispatch: writes,
  },
  {
    name: 'decide',
    records: true,
    // R24: `decide extend-rounds N` names how many rounds it adds; no other decision takes a number.
    words: (p) => ({
      verbs: Object.fromEntries(
        p.decide.kinds.map((kind) => [kind, kind === 'extend_rounds' ? { flags: DECIDE_FLAGS, args: ['N'] } : { flags: DECIDE_FLAGS }]),
      ),
      needs: p.decide.needs,
      verbOf: p.decide.kindOf,
    }),
    section: SECTIONS.decisions,
    verb: true,
    help: `  decide narrow-scope --gaps ID[,ID...]  | accept-complexity
  decide prioritize-critical [--gaps ID[,ID...]] | pause | resume
  decide prioritize --gaps ID[,ID...]    focus on any open gaps; moves outside it are flagged
  decide extend-rounds N          raise max_rounds by N (any time before COMPLETE)
  decide force-complete | abandon | approve [--accept-critical] [--rationale TEXT]`,
    load: async () => (await writes()).decide,
    dispatch: writes,
  },
];

/** A call as the table reads it, before anything is loaded. */
export interface Reading {
  /** The call's words as given. */
  argv: readonly string[];
  /** Its command's name: the first word once the global options before it are moved behind it (hoistGlobalOptions). */
  name: string | undefined;
  /** The words after the name. */
  words: string[];
  /** The command named, or undefined when there is none. */
  entry: Entry | undefined;
  /** It asks for JSON output (asksForJson). */
  json: boolean;
  /** It asks for the whole help (`gapflow --help`), or its command's (`gapflow gap --help`); null: neither. */
  help: 'all' | 'command' | null;
  /** `io` for this call: marked when the call only reads, so it may read a folder someone else owns (Entry.reads). */
  callIo: <T extends CliIO>(io: T) => T;
  /** The table it was read by. */
  table: readonly Entry[];
}

/** Reads a call's words by `table`. */
export function readCall(argv: readonly string[], table: readonly Entry[]): Reading {
  const [name, ...words] = hoistGlobalOptions(argv, table);
  const entry = name === undefined ? undefined : table.find((candidate) => candidate.name === name);
  const reads = entry?.reads;
  const reading = typeof reads === 'function' ? reads(words) : reads === true;
  const help = asksForAllHelp(name) ? 'all' : asksForHelp(words) ? 'command' : null;
  return { argv, name, words, entry, json: asksForJson(argv, table), help, callIo: (io) => (reading ? { ...io, reading } : io), table };
}

/**
 * The bin's call: `--version` answered at once, loading only the log's
 * file reader; else the command's short path tried first (`first`), loading
 * only its own module; else the command and dispatch.ts, which runs it (or
 * prints the help) and reports any failure. A command that `stays` up runs until `stop()`
 * settles. Standard input is the process's unless `io` hands one over.
 */
export async function runBin(argv: string[], io: CliIO, stop: () => Promise<unknown>, table: readonly Entry[]): Promise<number> {
  const read = readCall(argv, table);
  // The package's version is read by the log, which reads files; the bin loads it only when asked (from dispatch,
  // which a write's bundle holds already: taken from the log's door, the bundle would keep the whole door).
  const version = read.name === '--version' && io.version === undefined ? (await import('./dispatch.js')).packageVersion : io.version;
  if (answerVersion(read.name, { ...io, version })) return 0;
  const { entry } = read;
  const help = read.help !== null;
  let call: Call | null = { words: read.words, io: read.callIo(io) };
  if (entry?.first && !help) {
    try {
      call = await entry.first(call);
    } catch (error) {
      // A short path hands every failure it meets on to the full command; whatever still escapes one is reported as any failure is.
      return (await import('./dispatch.js')).failure(error, io, read.json);
    }
    if (call === null) return 0;
  }
  const [dispatch, command] = await Promise.all([entry?.dispatch?.() ?? import('./dispatch.js'), entry && !help ? entry.load() : undefined]);
  const bin: BinCall = { command, stdin: call.io.stdin, stop };
  return dispatch.dispatchBin(read, io, bin);
}

/**
 * A call of the bin, as the process: `argv` read by `table`, its output
 * written to stdout and stderr, and the process ended with its exit code.
 * The bin (launch.ts) runs a write with the write commands' own table,
 * any other call with the whole table (main.ts).
 */
export async function binMain(argv: string[], table: readonly Entry[]): Promise<never> {
  const interrupted = () =>
    new Promise((resolve) => {
      process.once('SIGINT', resolve);
      process.once('SIGTERM', resolve);
    });
  const io: CliIO = {
    stdout: (text) => write(1, text),
    stdoutBytes: (bytes) => write(1, bytes),
    stderr: (text) => write(2, text),
    env: process.env,
    cwd: process.cwd(),
    pendingStdin: async () => (await import('./hook-guard.js')).pendingInput(),
  };
  const code = await runBin(argv, io, interrupted, table);
  process.exitCode = code;
  // One turn of the event loop: a session opened for a read writes its checkpoints then, after the answer.
  await new Promise((resolve) => setImmediate(resolve));
  // A pipe takes 64 KiB at a time: the rest waits in this process until the reader takes it, so leave only
  // once stdout and stderr have handed everything over (a reader that went away ends it above, via EPIPE).
  await flushed();
  // Then leave even if something still holds the loop open (the WebSocket inspector can leave a reconnect timer).
  process.exit(code);
}

/*
 * How a call's words are read by the command table, before anything is
 * loaded: the bin reads them here (readCall), and the in-process `run` the same way.
 */
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
function hoistGlobalOptions(argv: readonly string[], table: readonly Entry[]): string[] {
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
function asksForJson(argv: readonly string[], table: readonly Entry[]): boolean {
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
function asksForHelp(words: readonly string[]): boolean {
  return words.includes('--help') || words.includes('-h');
}

/** The call's first word asking for the whole help text. */
function asksForAllHelp(name: string | undefined): boolean {
  return name === '--help' || name === '-h' || name === 'help';
}

/** Answers `--version` (wherever the global options put it): the one place it is answered, for the bin (runBin) and for `run` (index.ts). */
export function answerVersion(name: string | undefined, io: Pick<CliIO, 'stdout' | 'version'>): boolean {
  if (name !== '--version') return false;
  io.stdout(`${io.version?.() ?? 'unknown'}\n`);
  return true;
}
