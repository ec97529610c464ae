import { join, resolve } from 'node:path';
import { findSessionDir, folderAllowed, foreignFolder, isPostgresUrl, LOG_FILE, logAt, sessionNameProblem, SESSION_FOLDER } from '../log/index.js';
import { Refusal } from '../core/index.js';
import { UsageError } from './usage-error.js';

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
export function storeOption(values: WhereOptions, io: Where): string | null {
  if (values.store !== undefined) {
    if (values.store.trim() === '') throw new UsageError('--store needs a folder or a postgres:// URL');
    return values.store;
  }
  if (values.dir !== undefined || io.env.GAPFLOW_DIR) return null;
  // An empty variable counts as unset, as shells treat empty variables.
  return io.env.GAPFLOW_STORE || null;
}

/** The session name a call gives (`--session`, else `$GAPFLOW_SESSION`), checked; a store without one is a usage error. */
export function sessionOption(values: WhereOptions, io: Where): string {
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
 * …: see reading.ts) may read it, since nothing from it runs or is written
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
