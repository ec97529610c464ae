import { Refusal } from '../core/index.js';
import {
  type EventStore,
  FileLog,
  fileSizeOf,
  findSessionDir,
  folderAllowed,
  foreignFolder,
  type InputLimit,
  isPostgresUrl,
  LOG_FILE,
  logAt,
  PgLog,
  readSessionConfig,
  SESSION_FOLDER,
  sessionNameProblem,
  validateInputText,
  writeDecisionsFile,
  writeStatusFile,
  writesHere,
} from '../log/index.js';
import { announcementJson, renderAnnouncement, renderDecisions, renderStatus, statusNotRewrittenLine } from '../render/index.js';
import { openFileSession, type Recorded, Session, type SessionOptions } from '../session/index.js';
import { type ParsedCall, UsageError } from './args.js';

const { join, resolve } = process.getBuiltinModule('node:path');

/** Everything the CLI takes from the process, so tests can run it in-process. */
export interface CliIO {
  stdout: (text: string) => void;
  /** Bytes for standard output as they are (a stored output printed whole); absent: they are decoded and given to `stdout`. */
  stdoutBytes?: (bytes: Uint8Array) => void;
  stderr: (text: string) => void;
  env: Record<string, string | undefined>;
  cwd: string;
  /** The call only reads, so it may read a session folder someone else owns (set from the table: Entry.reads). */
  reading?: boolean;
  /** Asked only for `--version`. */
  version?: () => string | undefined;
  /** The whole of standard input (`hook`, `append`, `record --json -`), refused past `limit`; absent when the caller has none. */
  stdin?: (limit: InputLimit) => string;
  /**
   * The process's standard input, if it ends soon (the bin's, for a usage
   * error that may be a misconfigured hook's: hook-guard.ts); absent for an
   * in-process caller, whose `stdin` says all there is.
   */
  pendingStdin?: () => Promise<string | null>;
}

/** A command: its call's words parsed by its entry in the table (table.ts, dispatch.ts), and its io. */
export type Command = (call: ParsedCall, io: CliIO) => void;

/**
 * A command whose call is typed by its words in the table (`ParsedCall<typeof
 * STATE_FLAGS>`, `VerbCall<typeof GAP_VERBS>`): dispatch.ts parsed the call by
 * those very words, which this one cast takes on trust.
 */
export function command<C extends ParsedCall>(run: (call: C, io: CliIO) => void): Command {
  return run as unknown as Command;
}

/** The session the call names, opened: in its database (`--store postgres://…`), else in its folder. */
export function open(values: WhereOptions, io: CliIO, options?: SessionOptions): Session {
  const database = databaseSession(values, io);
  return database === null ? openFileSession(sessionDir(values, io), options) : Session.open(databaseStore(database), options);
}

/** A database session's store. */
export function databaseStore({ url, session }: DatabaseSession): EventStore {
  return new PgLog(url, session);
}

/** The store of the session the call names: its database stream, else its folder's log. */
export function storeOf(values: WhereOptions, io: CliIO): EventStore {
  const database = databaseSession(values, io);
  return database === null ? new FileLog(sessionDir(values, io)) : databaseStore(database);
}

/** Where a new session goes (`init`, `import`, an `append` that starts one): the database stream named, else the folder `init` makes one in. */
export function newStoreOf(values: WhereOptions, io: CliIO): EventStore {
  const database = databaseSession(values, io);
  return database === null ? new FileLog(newSessionDir(values, io)) : databaseStore(database);
}

/** Prints what one writing command recorded: the data with `--json`, else the renderer's lines ending with `line()`. */
export function announce(io: CliIO, session: Session, recorded: Pick<Recorded, 'events' | 'duplicate'>, json: boolean | undefined, line: () => string): void {
  if (json) printJson(io, announcementJson(recorded, session.view));
  else io.stdout(renderAnnouncement(recorded, line));
}

/**
 * JSON from a user (a batch line, a metrics file): a `__proto__` key is
 * refused, since a parsed object would hide it from every schema check.
 */
export function parseUserJson(text: string): unknown {
  return JSON.parse(text, (key, value: unknown) => {
    if (key === '__proto__') throw new SyntaxError('a "__proto__" key is not allowed');
    return value;
  });
}

/*
 * What a command takes from its call before it opens a session: the
 * session's folder, standard input, and how it prints JSON. The bin's
 * short path for `next` and a stop hook (head-answers.ts) shares these with
 * the full commands and calls nothing above, so its bundle, which keeps
 * only what is called, loads no session, schema or renderer.
 */

/** Standard input, held to `limit` whoever hands it over (the bin stops reading there; an in-process caller's text is measured). */
export function readStdin(io: CliIO, limit: InputLimit): string {
  if (!io.stdin) throw new UsageError('this caller gives no standard input');
  return validateInputText(io.stdin(limit), 'standard input', limit);
}

/** What `--json` prints of `value`: indented by two, with a newline at its end (a stored `state --json` is these bytes). */
export function jsonText(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

export function printJson(io: CliIO, value: unknown): void {
  io.stdout(jsonText(value));
}

/** Where a call runs; `reading`: it only reads (see ownFolder). */
type Where = { cwd: string; env: Record<string, string | undefined>; reading?: boolean | undefined };

/** The options that say where a call's session lives (every command takes them). */
export interface WhereOptions {
  dir?: string | undefined;
  store?: string | undefined;
  session?: string | undefined;
}

/** A session in a PostgreSQL database: the connection URL and the session's name there. */
export interface DatabaseSession {
  url: string;
  session: string;
}

/*
 * Where a call's session lives. A store holds sessions by name: a database
 * (`--store postgres://…`) or a folder (`--store DIR`, each session in
 * `DIR/NAME/.gapflow`); `--session NAME` picks one. `--dir` names one
 * session's folder directly. Options beat the environment, and
 * `$GAPFLOW_DIR` beats `$GAPFLOW_STORE`; with none of them, the nearest
 * `.gapflow` from the cwd upward (as git finds a repository).
 */

/** The store the call names: `--store`, else `$GAPFLOW_STORE` unless a folder is named by `--dir` or `$GAPFLOW_DIR`; null: none. */
function storeOption(values: WhereOptions, io: Where): string | null {
  if (values.store !== undefined) {
    if (values.store.trim() === '') throw new UsageError('--store needs a folder or a postgres:// URL');
    return values.store;
  }
  if (values.dir !== undefined || io.env.GAPFLOW_DIR) return null;
  // An empty variable counts as unset, as shells treat empty variables.
  return io.env.GAPFLOW_STORE || null;
}

/** The session name a call gives (`--session`, else `$GAPFLOW_SESSION`), checked; a store without one is a usage error. */
function sessionOption(values: WhereOptions, io: Where): string {
  const name = values.session ?? (io.env.GAPFLOW_SESSION || undefined);
  if (name === undefined) throw new UsageError('--store holds many sessions: name one with --session NAME (or $GAPFLOW_SESSION)');
  const problem = sessionNameProblem(name);
  if (problem !== null) throw new Refusal(`--session: ${problem}`, undefined, { field: '--session', value: name, valid: null, suggestion: null });
  return name;
}

/** The database session a call names; null when it names a folder (or nothing, and the folder is looked for). */
export function databaseSession(values: WhereOptions, io: Where): DatabaseSession | null {
  const store = storeOption(values, io);
  return store !== null && isPostgresUrl(store) ? { url: store, session: sessionOption(values, io) } : null;
}

/**
 * The session folder a call names: `--dir`, else a folder store's session
 * (`--store DIR --session NAME`), else `$GAPFLOW_DIR`, else `$GAPFLOW_STORE`'s,
 * else the nearest `.gapflow` holding a session from the call's cwd upward
 * (see findSessionDir), else `.gapflow` in the cwd, where the refusal then
 * says there is no session. A command that reads only folders refuses a
 * database.
 */
export function sessionDir(values: WhereOptions, io: Where): string {
  return ownFolder(foundSessionDir(values, io), io);
}

/** The session folder a call names or finds, before ownFolder judges whose it is (`trust --folder` asks exactly that). */
export function foundSessionDir(values: WhereOptions, io: Where): string {
  return namedSessionDir(values, io) ?? findSessionDir(io.cwd, io.env.CLAUDE_PROJECT_DIR || undefined) ?? resolve(io.cwd, SESSION_FOLDER);
}

/**
 * `dir`, when the session in it is this user's to use: a folder (or log)
 * owned by someone else, or that others may write, is refused unless the
 * user allowed it (`gapflow trust --folder`), as git refuses a repository of
 * dubious ownership: whoever controls the folder controls what the session
 * says and asks to run. A call that only reads (`state`, `status`, `verify`,
 * …: Entry.reads in entries.ts) may read it, since nothing from it runs or is written
 * there. A folder not made yet passes.
 */
export function ownFolder(dir: string, io: Pick<Where, 'env' | 'reading'>): string {
  if (io.reading === true) return dir;
  const foreign = foreignFolder(dir);
  if (foreign === null || folderAllowed(io.env, dir, foreign.owner)) return dir;
  const what = foreign.path === dir ? `the session folder ${dir}` : `the session log ${foreign.path}`;
  throw new Refusal(
    `${what} is ${foreign.why}, so gapflow does not use it: whoever can change it decides what the session says and asks to run; if you trust it, run: gapflow trust --folder --dir ${dir}`,
  );
}

/** Where `init` makes a session: the folder named, else `.gapflow` in the cwd, whatever a folder above holds (asked here, made here). */
export function newSessionDir(values: WhereOptions, io: Where): string {
  return namedSessionDir(values, io) ?? resolve(io.cwd, SESSION_FOLDER);
}

/** The folder the call's options or environment name, from its cwd; null when none does. */
export function namedSessionDir(values: WhereOptions, io: Where): string | null {
  const { dir } = values;
  if (dir !== undefined && dir.trim() === '') throw new UsageError('--dir needs a folder');
  const store = storeOption(values, io);
  // A name with no store to look it up in would be passed over in silence, and the call go to another session.
  if (store === null && values.session !== undefined)
    throw new UsageError('--session names a session in a store: give the store with --store (or $GAPFLOW_STORE)');
  if (store !== null && dir === undefined) {
    if (isPostgresUrl(store))
      throw new UsageError('this command reads a session folder, and --store (or $GAPFLOW_STORE) names a database: name the folder with --dir');
    return folderStoreSession(resolve(io.cwd, store), sessionOption(values, io));
  }
  const named = dir ?? (io.env.GAPFLOW_DIR || undefined);
  return named === undefined ? null : resolve(io.cwd, named);
}

/**
 * Session NAME of the folder store at `root`: `root/NAME` when its log is
 * there (so `init` there finds it and refuses), else `root/NAME/.gapflow`,
 * where a new one is made.
 */
function folderStoreSession(root: string, name: string): string {
  const own = join(root, name);
  return logAt(join(own, LOG_FILE)) ? own : join(own, SESSION_FOLDER);
}

/** How many times status.md is rendered again when other writers moved the log on meanwhile. */
const ATTEMPTS = 3;

function logSize(dir: string): number {
  return fileSizeOf(join(dir, LOG_FILE));
}

/**
 * For a recording command (`records`, its entry's: Entry.records in entries.ts; with its call's `--dir`, `--store` and `--session` in `where`): a step to run
 * once it has ended, which rewrites status.md when the session asks for it
 * (`init --write-status`) and the call itself wrote to the log (another
 * writer's append beside it is not this call's to show); null for any other
 * command. A call that failed wrote nothing, and its status.md is left alone;
 * the one exception is a refusal that recorded its verification check's
 * failing run, which status.md shows. Whatever stops the rewrite after a
 * call that succeeded is one line on stderr: the event is recorded, so the
 * call still succeeds (running it again would record it twice); after a
 * refusal, the refusal is the call's one line.
 */
export function statusAfterWrite(records: true | 'new' | undefined, where: WhereOptions, io: CliIO): ((failed: boolean) => void) | null {
  if (records === undefined) return null;
  let dir: string;
  try {
    // `init` makes its session where it is asked to, not in the nearest one above.
    // A database session keeps no folder to rewrite status.md in (init refuses --write-status for one).
    if (databaseSession(where, io) !== null) return null;
    dir = (records === 'new' ? newSessionDir : sessionDir)(where, io);
  } catch {
    return null; // the command words the bad --dir itself
  }
  const log = join(dir, LOG_FILE);
  const before = writesHere(log);
  return (failed) => {
    try {
      if (writesHere(log) === before || !readSessionConfig(dir).writeStatus) return;
      rewriteStatus(dir);
    } catch (error) {
      if (!failed) io.stderr(statusNotRewrittenLine(error instanceof Error ? error.message : String(error)));
    }
  };
}

/**
 * Renders status.md (and decisions.md beside it) from the log as it is and puts each in place whole (temp
 * + rename). Writers that finish together each rename their own; whichever
 * renames last then finds the log longer than what it rendered, if another
 * appended meanwhile, and renders again, so the file left ends up current.
 */
function rewriteStatus(dir: string): void {
  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
    const size = logSize(dir);
    const { view } = openFileSession(dir);
    writeStatusFile(dir, renderStatus(view));
    writeDecisionsFile(dir, renderDecisions(view));
    if (logSize(dir) === size) return;
  }
}
