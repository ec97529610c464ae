import { toStateJson } from '../core/index.js';
import { renderAnnouncement } from '../render/index.js';
import { openFileSession, Session, type Recorded } from '../session/index.js';
import { FileLog, PgLog, type EventStore, type InputLimit } from '../log/index.js';
import type { SessionOptions } from '../session/index.js';
import { databaseSession, newSessionDir, printJson, sessionDir, type DatabaseSession, type WhereOptions } from './call.js';

/** Everything the CLI takes from the process, so tests can run it in-process. */
export interface CliIO {
  stdout: (text: string) => void;
  /** Bytes for standard output as they are (a stored output printed whole); absent: they are decoded and given to `stdout`. */
  stdoutBytes?: (bytes: Uint8Array) => void;
  stderr: (text: string) => void;
  env: Record<string, string | undefined>;
  cwd: string;
  /** The call only reads, so it may read a session folder someone else owns (set by the dispatcher: reading.ts). */
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

export type Command = (argv: string[], io: CliIO) => void;

export { databaseSession, jsonText, newSessionDir, printJson, sessionDir, type DatabaseSession, type WhereOptions } from './call.js';

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
  if (!json) return io.stdout(renderAnnouncement(recorded, line));
  const { events, duplicate } = recorded;
  const state = toStateJson(session.view);
  printJson(io, duplicate ? { events, duplicate, state } : { events, state });
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
