import type { Stats } from 'node:fs';
import { PARALLEL_CHAIN_BYTES } from './chain.js';
import { LOG_FILE } from './log-name.js';
import { LogError } from './types.js';

const { randomUUID } = process.getBuiltinModule('node:crypto');
const {
  closeSync,
  constants,
  fstatSync,
  fsyncSync,
  linkSync,
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  readSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
} = process.getBuiltinModule('node:fs');
const { dirname, join } = process.getBuiltinModule('node:path');

/*
 * The files gapflow reads and writes, in a session folder and beside it:
 * how big each may be, how each is opened and read (only a regular file,
 * never past its limit), how each is put on disk (whole and durable), the
 * folder's config, and whether the folder is this user's alone. The rest of
 * src/log reads and writes files through these.
 */

/** Whether `error` is a system error with this `code` (ENOENT, EEXIST…). */
export function isCode(error: unknown, code: string): boolean {
  return error instanceof Error && 'code' in error && error.code === code;
}

/**
 * Size limits of the log, documented in the README. Most lines are a few
 * hundred bytes; a forge round (its draft, critiques and votes) is the
 * largest event there is, and one that would pass this is refused before it
 * is written. Anything past these limits was not written by gapflow.
 */
export const MAX_LINE_BYTES = 1024 * 1024;
/** Well under V8's longest string, so a huge file is refused, not a crash. */
export const MAX_LOG_BYTES = 256 * 1024 * 1024;

/** How much one kind of input may be, and its name in a refusal. */
export interface InputLimit {
  maxBytes: number;
  name: string;
}

/**
 * One event's input (`record --json`, the hook's standard input): no bigger
 * than the line it becomes may be, so a refusal comes before parsing it.
 */
export const EVENT_INPUT: InputLimit = { maxBytes: MAX_LINE_BYTES, name: "one event's input" };

/**
 * A batch (`append`, from a file or standard input). A batch that could not
 * fit in a log is never worth reading; a quarter of the log's limit still
 * holds a 100,000-line batch (about 30 MB) twice over, and keeps what a
 * refused endless input costs at this much memory.
 */
export const BATCH_INPUT: InputLimit = { maxBytes: MAX_LOG_BYTES / 4, name: 'a batch' };

/** A whole log (`import` of a log `export` wrote): as big as a log may be. */
export const LOG_INPUT: InputLimit = { maxBytes: MAX_LOG_BYTES, name: 'a log' };

/*
 * Files beside the log (withSideFile reads them all): each is read only
 * from a regular file at its own path, and only up to its limit. gapflow
 * writes each far smaller than its limit; the limit is there so that a
 * file it did not write (a repository can commit a `.gapflow/` holding
 * anything) costs no more than that to refuse.
 */

/** `<log>.lock`: a holder's token (pid, host, start time, boot id, time, nonce), about 200 bytes. */
export const LOCK_FILE_LIMIT: InputLimit = { maxBytes: 4 * 1024, name: 'a lock file' };

/** An approval in the user's trust folder (trust-store.ts): a command of at most a few KiB and where it may run. */
export const APPROVAL_LIMIT: InputLimit = { maxBytes: 64 * 1024, name: 'an approval' };

/** `config.json`: `{"writeStatus":true}` today; room for many more settings. */
export const SESSION_CONFIG_LIMIT: InputLimit = { maxBytes: 64 * 1024, name: 'a session config' };

/**
 * `hook-state.json`: a count per agent of one agent session that the hook
 * blocked (a few dozen bytes each). As long as one event's input, which
 * holds the agent's id and session; the hook writes no more than this.
 */
export const HOOK_STATE_LIMIT: InputLimit = { maxBytes: MAX_LINE_BYTES, name: "the hook's state" };

/**
 * A checkpoint (`checkpoint.json`, `checkpoint.head.json`,
 * `checkpoint.closed.json`, `checkpoint.state.json`): each is derived from
 * a log of at most MAX_LOG_BYTES and runs below its size (at 100,000
 * events the view is 17.6 MiB for a 21.3 MiB log, the closed gaps' index 7
 * MiB at a million), so twice a log's limit is room to spare. One past it
 * is a cache passed over and rebuilt, not a refusal.
 */
export const CHECKPOINT_LIMIT: InputLimit = { maxBytes: 2 * MAX_LOG_BYTES, name: 'a checkpoint' };

export function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${(bytes / (1024 * 1024)).toFixed(bytes % (1024 * 1024) === 0 ? 0 : 1)} MiB`;
  if (bytes >= 1024) return `${(bytes / 1024).toFixed(bytes % 1024 === 0 ? 0 : 1)} KiB`;
  return `${bytes} bytes`;
}

/** A size as a refusal gives it: rounded, then exact (a file one byte over the limit rounds to the limit itself). */
function formatSize(bytes: number): string {
  return `${formatBytes(bytes)} (${bytes.toLocaleString('en-US')} bytes)`;
}

/**
 * A store's check before it writes `events` as sealed `lines` (each with its
 * newline) onto a log of `logBytes`: no line past MAX_LINE_BYTES, the log not
 * past MAX_LOG_BYTES. Returns the bytes the lines add; throws LogError, naming
 * the event, otherwise. Every store makes it, so no store holds a line another
 * could not read back.
 */
export function sealedBytes(location: string, events: readonly { type: string; seq: number }[], lines: readonly string[], logBytes: number): number {
  let added = 0;
  lines.forEach((line, index) => {
    const size = Buffer.byteLength(line, 'utf8');
    if (size > MAX_LINE_BYTES) {
      const event = events[index]!;
      throw new LogError(
        `${event.type} (seq ${event.seq}) would be a ${formatBytes(size)} line, over the ${formatBytes(MAX_LINE_BYTES)} limit; nothing was written`,
      );
    }
    added += size;
  });
  if (logBytes + added > MAX_LOG_BYTES)
    throw new LogError(`${location} would grow past the ${formatBytes(MAX_LOG_BYTES)} limit; nothing was written: start a new session`);
  return added;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Input bytes as text: invalid UTF-8 is refused, naming where it came from, never silently replaced. */
export function decodeUtf8(bytes: Uint8Array, where: string): string {
  try {
    return utf8.decode(bytes);
  } catch {
    throw new LogError(`${where} is not valid UTF-8 text; nothing was written`);
  }
}

function kindOf(stats: Stats): string {
  if (stats.isDirectory()) return 'a folder';
  if (stats.isFIFO()) return 'a FIFO';
  if (stats.isCharacterDevice()) return 'a character device';
  if (stats.isBlockDevice()) return 'a block device';
  if (stats.isSocket()) return 'a socket';
  return 'not a regular file';
}

/** An open regular file and its size when opened. */
export interface OpenedFile {
  fd: number;
  size: number;
}

/**
 * Opens `path` for reading only if it is a regular file; anything else is
 * refused with `why` after the reason. O_NONBLOCK because opening a FIFO
 * waits for a writer, maybe forever; the open alone never reads, so a
 * device is refused before a byte of it is taken. With `follow` false a
 * symlink is refused, not followed. The open's own errors (ENOENT) are
 * thrown as they come, for the caller to word.
 */
export function openRegularFile(path: string, follow: boolean, why: string): OpenedFile {
  // Windows has no O_NOFOLLOW (0 there); a FIFO cannot be at a path there either.
  const flags = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (follow ? 0 : (constants.O_NOFOLLOW ?? 0));
  let fd: number;
  try {
    fd = openSync(path, flags);
  } catch (error) {
    if (!follow && isCode(error, 'ELOOP')) throw new LogError(`${path} is a symbolic link, which gapflow does not follow; ${why}`);
    throw error;
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) throw new LogError(`${path} is ${kindOf(stats)}, not a regular file; ${why}`);
    return { fd, size: stats.size };
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}

const CHUNK_BYTES = 64 * 1024;
const waitCell = new Int32Array(new SharedArrayBuffer(4));

/**
 * Reads `fd` from `start` (or its current position, for a pipe) to its end,
 * at most `maxBytes`: the read stops at the first byte past them and returns
 * null, so an endless input (`/dev/zero`, a stdin that never ends) costs no
 * more memory than the limit. Pages of the buffer are only touched as bytes
 * arrive, so a small input stays small.
 */
function readUpTo(fd: number, maxBytes: number, start: number | null = null): Buffer | null {
  const buffer = Buffer.allocUnsafe(maxBytes + 1);
  let read = 0;
  while (read <= maxBytes) {
    let n: number;
    try {
      n = readSync(fd, buffer, read, Math.min(CHUNK_BYTES, buffer.length - read), start === null ? null : start + read);
    } catch (error) {
      // A non-blocking pipe (inherited that way) has nothing yet: wait a little, without spinning.
      if (isCode(error, 'EAGAIN')) {
        Atomics.wait(waitCell, 0, 0, 5);
        continue;
      }
      throw error;
    }
    if (n === 0) return buffer.subarray(0, read);
    read += n;
  }
  return null;
}

/** `length` bytes of `fd` from `start`, fewer if the file is shorter by now. */
export function readRange(fd: number, start: number, length: number, shared = false): Buffer {
  // Shared: memory a worker thread can read too, with no copy (chain.ts).
  const bytes = shared ? Buffer.from(new SharedArrayBuffer(Math.max(0, length))) : Buffer.allocUnsafe(Math.max(0, length));
  let read = 0;
  while (read < bytes.length) {
    const n = readSync(fd, bytes, read, bytes.length - read, start + read);
    if (n === 0) break;
    read += n;
  }
  return bytes.subarray(0, read);
}

/** An input past its limit: refused, nothing written. */
function overLimit(where: string, limit: InputLimit, size: string): LogError {
  return new LogError(`${where} is ${size}, over the ${formatBytes(limit.maxBytes)} limit of ${limit.name}; nothing was written`);
}

/** Standard input (or a stand-in descriptor, for tests) as text, refused once it passes `limit`, without reading the rest. */
export function readStandardInput(limit: InputLimit, fd = 0): string {
  const bytes = readUpTo(fd, limit.maxBytes);
  if (bytes === null) throw overLimit('standard input', limit, `more than ${formatBytes(limit.maxBytes)}`);
  return decodeUtf8(bytes, 'standard input');
}

/** Input handed over as text (an in-process caller's stdin), held to the same limit as the bin's. */
export function validateInputText(text: string, where: string, limit: InputLimit): string {
  // Counting UTF-8 bytes of a long string costs a pass; a string short enough in UTF-16 units cannot be over.
  if (text.length * 3 > limit.maxBytes) {
    const size = Buffer.byteLength(text, 'utf8');
    if (size > limit.maxBytes) throw overLimit(where, limit, formatSize(size));
  }
  return text;
}

/**
 * The text of an input file (`append --file`, `record --json FILE`): a
 * missing file, a folder, a FIFO, a device, or a file past `limit` is one
 * clear line, refused before its bytes are read (a file that grows while
 * being read is cut off at the limit all the same).
 */
/**
 * `path` read as readTextFile reads it, refused unless it lies under `root`
 * once every link on the way is followed: a client that names a file (an MCP
 * tool's) reads no file outside the folder it was given, by a path or by a
 * link planted in that folder.
 */
export function readTextFileUnder(root: string, path: string, limit: InputLimit): string {
  let real: string;
  try {
    real = realpathSync(path);
  } catch (error) {
    if (isCode(error, 'ENOENT')) throw new LogError(`${path}: no such file`);
    throw error;
  }
  const top = realpathSync(root);
  if (real !== top && !real.startsWith(top.endsWith('/') ? top : `${top}/`)) {
    throw new LogError(`${path} is not under ${root} (links followed): only files there are read`);
  }
  return readTextFile(real, limit);
}

export function readTextFile(path: string, limit: InputLimit): string {
  let file: OpenedFile;
  try {
    file = openRegularFile(path, true, 'nothing was written (give a file, or - for standard input)');
  } catch (error) {
    if (isCode(error, 'ENOENT')) throw new LogError(`${path}: no such file`);
    throw error;
  }
  try {
    if (file.size > limit.maxBytes) throw overLimit(path, limit, formatSize(file.size));
    const bytes = readUpTo(file.fd, limit.maxBytes, 0);
    if (bytes === null) throw overLimit(path, limit, `more than ${formatBytes(limit.maxBytes)}`);
    return decodeUtf8(bytes, path);
  } finally {
    closeSync(file.fd);
  }
}

/*
 * Every file gapflow reads beside the log (the lock, config.json,
 * hook-state.json, the checkpoints) is opened here, and only here. A
 * session folder may come from anywhere (a repository can commit one), so
 * what stands at such a path is input: a symlink to /dev/zero would be read
 * until memory runs out, a FIFO would hold the call until a writer came.
 * So the file is opened without following a symlink and without waiting
 * (O_NOFOLLOW, O_NONBLOCK), judged by fstat on the open descriptor (no race
 * between a look and the open), and read no further than its limit. A
 * refusal is one LogError naming the path, what is there and the limit;
 * what the bytes say is each caller's to judge.
 */

/**
 * `read` on the side file at `path`, opened and closed after; null when
 * nothing is there. A symlink, anything but a regular file, or a file past
 * `limit` is refused (LogError) before a byte of it is read.
 */
export function withSideFile<T>(path: string, limit: InputLimit, read: (file: OpenedFile) => T): T | null {
  let file: OpenedFile;
  try {
    file = openRegularFile(path, false, `${limit.name} must be a regular file of at most ${formatBytes(limit.maxBytes)}: delete it`);
  } catch (error) {
    if (isCode(error, 'ENOENT')) return null;
    throw error;
  }
  try {
    if (file.size > limit.maxBytes) throw sideOverLimit(path, limit, formatSize(file.size));
    return read(file);
  } finally {
    closeSync(file.fd);
  }
}

/** The text of the side file at `path` (not checked as UTF-8: its reader judges its content), or null when there is none. */
export function readSideFile(path: string, limit: InputLimit): string | null {
  return withSideFile(path, limit, (file) => sideText(file, path, limit));
}

/** The whole text of an opened side file, from its start; one that grew past `limit` since it was opened is refused at the first byte over. */
export function sideText(file: OpenedFile, path: string, limit: InputLimit): string {
  // Sized by the fstat (a buffer of the whole limit costs a hook call more than its read): a byte more than
  // that says the file grew since (a lock being filled), and then it is read again, up to the limit.
  const seen = readRange(file.fd, 0, file.size + 1);
  if (seen.length <= file.size) return seen.toString('utf8');
  const bytes = readUpTo(file.fd, limit.maxBytes, 0);
  if (bytes === null) throw sideOverLimit(path, limit, `more than ${formatBytes(limit.maxBytes)}`);
  return bytes.toString('utf8');
}

/** A side file past its limit: refused unread (a file gapflow did not write). */
function sideOverLimit(path: string, limit: InputLimit, size: string): LogError {
  return new LogError(`${path} is ${size}, over the ${formatBytes(limit.maxBytes)} limit of ${limit.name}; it was not read: delete it`);
}

/**
 * The log's bytes, from `start`. Only a regular file is a log: a symlink is
 * refused, not followed, and a FIFO, a device or a folder is refused without
 * waiting on it; a file past MAX_LOG_BYTES (which gapflow never writes) is
 * refused before any of it is read.
 */
export function readLogBytes(path: string, dir: string, start = 0): Buffer {
  let file: OpenedFile;
  try {
    file = openRegularFile(path, false, 'the log must be a regular file at that path itself');
  } catch (error) {
    if (isCode(error, 'ENOENT')) throw new LogError(`no session in ${dir} (\`gapflow init\` creates one)`);
    throw error;
  }
  try {
    if (file.size > MAX_LOG_BYTES) {
      throw new LogError(
        `${path} is ${formatSize(file.size)}, over the ${formatBytes(MAX_LOG_BYTES)} limit of a log; it was not read (gapflow never writes one that big)`,
      );
    }
    const length = file.size - start;
    return readRange(file.fd, start, length, length >= PARALLEL_CHAIN_BYTES);
  } finally {
    closeSync(file.fd);
  }
}

/** What was added to the log after byte `start`, read as the whole log is (same refusals). */
export function readFrom(path: string, start: number): Buffer {
  return readLogBytes(path, dirname(path), start);
}

/** Nothing at `path`, or an empty regular file (a symlink, a FIFO or a folder is something: reading it refuses it). */
export function holdsNoSession(path: string): boolean {
  try {
    const stat = lstatSync(path);
    return stat.isFile() && stat.size === 0;
  } catch (error) {
    if (isCode(error, 'ENOENT')) return true;
    throw error;
  }
}

/** The size of the file at `path` now, or -1 when it cannot be seen. */
export function fileSizeOf(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return -1;
  }
}

/** Whether `path` is a folder: true or false, or null when it cannot be seen (reading it then names what is wrong). */
export function isFolder(path: string): boolean | null {
  try {
    return statSync(path).isDirectory();
  } catch {
    return null;
  }
}

/*
 * How gapflow puts a file on disk: whole and durable, with modes that do not
 * follow the umask's generosity. A file is written, fsynced, then moved or
 * linked into place, and the folder that names it is fsynced, so after a
 * crash a reader finds the old file or the new one, never half of one.
 */

/** The log, status.md and reports: readable by others, written by the owner. */
export const SHARED_FILE_MODE = 0o644;
/** The lock and the hook's state: the owner's alone. */
export const PRIVATE_FILE_MODE = 0o600;
/** A session folder gapflow makes (or tighter, by the umask). */
const FOLDER_MODE = 0o755;

/** Writes all of `bytes`; a short write (rare, on a full disk) goes on where it stopped. */
export function writeAll(fd: number, bytes: Uint8Array): void {
  let written = 0;
  while (written < bytes.length) written += writeSync(fd, bytes, written);
}

/** A new file (refused if anything is there, a symlink included) holding `bytes`, on disk before this returns. */
export function writeNewFile(path: string, bytes: Uint8Array, mode = SHARED_FILE_MODE): void {
  const fd = openSync(path, 'wx', mode);
  try {
    writeAll(fd, bytes);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * Replaces `path` whole: a temp file beside it, fsynced, renamed over it,
 * then the folder fsynced. A failed write leaves no temp file behind.
 */
export function writeWhole(path: string, text: string, mode = SHARED_FILE_MODE): void {
  const temporary = `${path}.${randomUUID()}.tmp`;
  try {
    writeNewFile(temporary, Buffer.from(text, 'utf8'), mode);
    renameSync(temporary, path);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
  fsyncFolder(dirname(path));
}

/**
 * A new file at `path` holding `bytes`, whole or not at all: written aside,
 * fsynced, then linked into place (refused, with nothing left behind, when
 * anything is there already), and the folder fsynced.
 */
export function placeNewFile(path: string, bytes: Uint8Array, mode = SHARED_FILE_MODE): void {
  const aside = `${path}.${randomUUID()}.tmp`;
  try {
    writeNewFile(aside, bytes, mode);
    linkSync(aside, path);
  } finally {
    rmSync(aside, { force: true });
  }
  fsyncFolder(dirname(path));
}

/** Makes `dir` (and its missing parents) with FOLDER_MODE, and makes the new entry durable in its parent. */
export function makeFolder(dir: string): void {
  const made = mkdirSync(dir, { recursive: true, mode: FOLDER_MODE });
  if (made !== undefined) fsyncFolder(dirname(made));
}

/** Makes a new directory entry durable. Some platforms cannot fsync a folder; there the entry is as durable as they make it. */
export function fsyncFolder(dir: string): void {
  let fd: number;
  try {
    fd = openSync(dir, 'r');
  } catch {
    return;
  }
  try {
    fsyncSync(fd);
  } catch (error) {
    const code = error instanceof Error && 'code' in error ? error.code : undefined;
    if (code !== 'EISDIR' && code !== 'EINVAL' && code !== 'EPERM') throw error;
  } finally {
    closeSync(fd);
  }
}

/*
 * `<dir>/config.json`: how the CLI treats a session's folder, as opposed to
 * what the loop did (the log). Today one setting: `writeStatus`, status.md
 * rewritten after every command that records an event (`init
 * --write-status`). It is kept beside the log, not in session.started: it
 * says how to present the session, not how to judge it, so it never
 * touches history, the event schema or an old log, can be turned off by
 * deleting the file, and the short write paths see it with one stat.
 */

export const CONFIG_FILE = 'config.json';

export interface SessionConfig {
  /** Rewrite status.md after every command that records an event. */
  writeStatus: boolean;
}

const DEFAULT_CONFIG: SessionConfig = { writeStatus: false };

/** Whether `dir` has a config file at all (anything there: the full read judges it). Loads no schema. */
export function hasSessionConfig(dir: string): boolean {
  try {
    lstatSync(join(dir, CONFIG_FILE));
    return true;
  } catch {
    return false;
  }
}

/** The session folder's settings; the defaults when there is no config file. A file that is not what gapflow writes (or not a file) is refused, naming it. */
export function readSessionConfig(dir: string): SessionConfig {
  const path = join(dir, CONFIG_FILE);
  // A symlink, a FIFO, a device or a file past SESSION_CONFIG_LIMIT is refused here, naming it.
  const text = readSideFile(path, SESSION_CONFIG_LIMIT);
  if (text === null) return DEFAULT_CONFIG;
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json) || typeof (json as { writeStatus?: unknown }).writeStatus !== 'boolean') {
    throw new LogError(`${path} is not a session config like {"writeStatus": true}; fix it, or delete it to turn the setting off`);
  }
  return { writeStatus: (json as SessionConfig).writeStatus };
}

/** Writes the config whole (temp + rename); with every setting at its default, removes the file instead. */
export function writeSessionConfig(dir: string, config: SessionConfig): void {
  const path = join(dir, CONFIG_FILE);
  if (!config.writeStatus) {
    rmSync(path, { force: true });
    return;
  }
  writeWhole(path, `${JSON.stringify(config)}\n`, SHARED_FILE_MODE);
}

/*
 * Whether a session folder is this user's alone. What the user allowed
 * although it is not is kept in trust-store.ts.
 */

/** Who may write a session folder when it is not this user's alone. */
export interface ForeignFolder {
  /** The folder or file that is not the user's alone. */
  path: string;
  /** Its owner's uid. */
  owner: number;
  /** Why it is not the user's alone, in words: `owned by uid 65534`, `writable by others`. */
  why: string;
}

/** Group or others may write it; a folder with the sticky bit (as /tmp) lets them add entries, never replace the owner's. */
export function openToOthers(stats: Stats, folder: boolean): boolean {
  return (stats.mode & 0o022) !== 0 && !(folder && (stats.mode & 0o1000) !== 0);
}

export function currentUid(): number | null {
  return typeof process.getuid === 'function' ? process.getuid() : null;
}

/**
 * Whether the session folder `dir` (or its log) is someone else's to change:
 * owned by another user, or writable by group or others (a folder with the
 * sticky bit aside). Null when it is this user's alone, when it does not
 * exist, or on a system without uids. `uid` stands in for this process's
 * own in tests.
 */
export function foreignFolder(dir: string, uid = currentUid()): ForeignFolder | null {
  if (uid === null) return null;
  for (const [path, folder] of [
    [dir, true],
    [join(dir, LOG_FILE), false],
  ] as const) {
    let stats: Stats;
    try {
      stats = lstatSync(path);
    } catch (error) {
      if (isCode(error, 'ENOENT') || isCode(error, 'ENOTDIR')) continue;
      throw error;
    }
    if (stats.uid !== uid) return { path, owner: stats.uid, why: `owned by uid ${stats.uid}, not by you (uid ${uid})` };
    // A symlink's own mode means nothing (reads refuse one at the log's path anyway).
    if (!stats.isSymbolicLink() && openToOthers(stats, folder))
      return {
        path,
        owner: stats.uid,
        why: `writable by ${(stats.mode & 0o020) !== 0 ? 'its group' : 'others'} (mode ${(stats.mode & 0o7777).toString(8).padStart(4, '0')})`,
      };
  }
  return null;
}

let cachedVersion: { version: string | undefined } | null = null;

/**
 * This package's version, from the package.json above the module that asks
 * (the bundle's entry, a chunk beside it, tsc's output or the sources), read
 * once; undefined when none is found. Here because it reads a file.
 */
export function packageVersion(): string | undefined {
  cachedVersion ??= { version: findVersion() };
  return cachedVersion.version;
}

function findVersion(): string | undefined {
  for (const up of ['../package.json', '../../package.json', '../../../package.json']) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(up, import.meta.url), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'gapflow') return pkg.version;
    } catch {
      // not this level; try the next one up
    }
  }
  return undefined;
}
