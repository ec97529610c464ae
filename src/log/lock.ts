import { LOCK_FILE_LIMIT, sideText, withSideFile, isCode } from './files.js';
import { pauseFor } from './pause.js';
import { LogError } from './types.js';

const { randomBytes } = process.getBuiltinModule('node:crypto');
const { closeSync, fstatSync, futimesSync, linkSync, openSync, readFileSync, renameSync, statSync, unlinkSync, writeSync } =
  process.getBuiltinModule('node:fs');
const { hostname } = process.getBuiltinModule('node:os');

/*
 * One writer at a time across processes: `<log>.lock`, created with O_EXCL
 * and mode 0600, names its holder (pid, host, process start time, boot id)
 * and a nonce; the whole text is the holder's token. What it promises:
 *
 * - A live writer's lock is never taken over on its own host, however long
 *   it holds it (a long batch, a loaded machine). It is broken only when its
 *   holder is gone: the pid does not run, or runs a process that started at
 *   another moment (pid reuse). Age alone breaks nothing: a waiter gives up
 *   after WAIT_FOR_LOCK_MS with one line and nothing written.
 * - A lock from another host (a shared folder), or from another boot (a
 *   reboot, or a second machine of the same name: see Owner below), cannot
 *   be asked about its pid, so its holder renews it (bumps its mtime) each
 *   time it confirms its lease; a waiter breaks it only once it has seen no
 *   change for STALE_AFTER_MS of its own clock. Clocks of two hosts are
 *   never compared.
 * - A writer confirms its lease just before it writes: it renews the lock,
 *   then checks the lock file is still its own (same inode, same token); if
 *   not, it refuses and writes nothing. A breaker moves a stale lock aside
 *   and drops it only if it is unchanged (inode, token, mtime), so a renewal
 *   that lands while it decides puts the lock back.
 * - What is left: across hosts, a writer that stalls for longer than
 *   STALE_AFTER_MS between confirming and finishing its write can still be
 *   overtaken; closing that needs the file server's help, not a lock file.
 *   FileLog adds its own fence (the log must still end where the writer
 *   decided against), which catches an overtaking writer that wrote first.
 * - A lock file without a readable holder (a writer killed between creating
 *   and filling it) is broken once seen unchanged for a second. A writer
 *   that was only slow to fill it finds its token gone and waits again.
 * - A lock path holding what no writer makes (a symlink, a FIFO, a device,
 *   a file past LOCK_FILE_LIMIT: see readHolder) is refused at once, naming
 *   it, with nothing written: it is not waited on, read, or broken.
 *
 * Hand-written rather than proper-lockfile: that library is asynchronous at
 * heart (its sync API neither retries nor refreshes the lock) and judges
 * staleness by mtime alone, while the CLI is synchronous and, on one host,
 * whether the holder still runs is the sure sign. The lock reads `process`
 * (its owner and holder, below): a lock must name its holder.
 */

/** A lock from another host that shows no renewal for this long (by the waiter's clock) is stale. */
export const STALE_AFTER_MS = 10_000;
/** How long a writer waits for the lock before giving up with a message. */
export const WAIT_FOR_LOCK_MS = 15_000;
/** A lock file without a readable holder is stale once seen unchanged this long (its writer died between creating and filling it). */
const UNREADABLE_STALE_MS = 1_000;

/** The lock's time limits; production uses the constants above, tests may shorten them. */
export interface LockTiming {
  staleAfterMs: number;
  waitForLockMs: number;
  unreadableStaleMs: number;
}

const TIMING: LockTiming = { staleAfterMs: STALE_AFTER_MS, waitForLockMs: WAIT_FOR_LOCK_MS, unreadableStaleMs: UNREADABLE_STALE_MS };

/** What `work` holds while it runs: the right to write, confirmed on demand. */
export interface Lease {
  /** Renews the lease and throws LogError (nothing written) unless the lock is still this writer's. Call it just before a write. */
  confirm(): void;
}

/** Runs `work` holding the lock of the log at `logPath`. */
export function withLock<T>(logPath: string, work: (lease: Lease) => T, timing: Partial<LockTiming> = {}): T {
  const held = acquire(`${logPath}.lock`, { ...TIMING, ...timing });
  try {
    return work(held);
  } finally {
    held.release();
  }
}

class HeldLock implements Lease {
  /** The mtime (in seconds) last given to the lock: each renewal moves it on by at least a second, so even a coarse file system shows it. */
  #renewedTo: number;
  readonly #file: { dev: number; ino: number };

  constructor(
    readonly path: string,
    readonly token: string,
    readonly fd: number,
  ) {
    const { dev, ino, mtimeMs } = fstatSync(fd);
    this.#file = { dev, ino };
    this.#renewedTo = mtimeMs / 1000;
  }

  confirm(): void {
    const at = Math.max(Date.now() / 1000, this.#renewedTo + 1);
    futimesSync(this.fd, at, at);
    this.#renewedTo = at;
    if (!this.isOurs()) {
      throw new LogError(`${this.path} is no longer this writer's lock (another writer took it over); nothing was written: run it again`);
    }
  }

  release(): void {
    try {
      // Only our own lock: if another writer holds one now, that one stays.
      if (this.isOurs()) unlinkSync(this.path);
    } catch (error) {
      // Something no writer makes put in its place (readHolder refuses it) is not ours either: left as it is.
      if (!isCode(error, 'ENOENT') && !(error instanceof LogError)) throw error;
    } finally {
      closeSync(this.fd);
    }
  }

  /** The lock file is this one, still holding our token. */
  isOurs(): boolean {
    const now = readHolder(this.path);
    return now !== null && now.dev === this.#file.dev && now.ino === this.#file.ino && now.raw === this.token;
  }
}

/** A holder as last seen, and since when (this process's clock) it has looked exactly so. */
interface Watch {
  key: string;
  since: number;
}

/** This process's monotonic clock in milliseconds (process.hrtime: the performance global would load perf_hooks for it). */
function monotonicMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}

function acquire(path: string, timing: LockTiming): HeldLock {
  const token = JSON.stringify({ ...currentOwner(), at: Date.now(), nonce: randomBytes(8).toString('hex') });
  const deadline = monotonicMs() + timing.waitForLockMs;
  let watched = null as Watch | null;
  let delay = 1;
  for (;;) {
    const held = tryCreate(path, token);
    if (held !== null) return held;
    const holder = readHolder(path);
    if (holder === null) continue; // released between our attempt and our look
    // Staleness across hosts is judged by what this process sees change, on its own clock.
    const key = `${holder.dev}:${holder.ino}:${holder.mtimeMs}:${holder.raw}`;
    if (watched?.key !== key) watched = { key, since: monotonicMs() };
    if (isStale(holder, monotonicMs() - watched.since, timing)) {
      breakStale(path, holder);
      watched = null;
      continue;
    }
    if (monotonicMs() > deadline) {
      const who = holder.owner === null ? 'another writer' : `process ${holder.owner.pid} on ${holder.owner.host}`;
      throw new LogError(
        `${path} is held by ${who}; nothing was written (no write waits longer than ${timing.waitForLockMs / 1000} s): run it again, or delete the lock if no gapflow is running`,
      );
    }
    pauseFor(delay + Math.random() * delay);
    delay = Math.min(delay * 2, 20);
  }
}

function isStale(holder: Holder, unchangedForMs: number, timing: LockTiming): boolean {
  if (holder.owner === null) return unchangedForMs >= timing.unreadableStaleMs;
  if (!onThisMachine(holder.owner)) return unchangedForMs >= timing.staleAfterMs;
  return !ownerRuns(holder.owner);
}

function tryCreate(path: string, token: string): HeldLock | null {
  let fd: number;
  try {
    // 0600: the umask can take bits away, never add any, so no other user can read or replace a holder's token.
    // O_EXCL: a symlink or a FIFO at the path is not followed or opened but found there (EEXIST), and readHolder refuses it.
    fd = openSync(path, 'wx', 0o600);
  } catch (error) {
    if (isCode(error, 'EEXIST')) return null;
    throw error;
  }
  try {
    const bytes = Buffer.from(token, 'utf8');
    let written = 0;
    while (written < bytes.length) written += writeSync(fd, bytes, written);
    const held = new HeldLock(path, token, fd);
    if (held.isOurs()) return held;
    // Stalled past the grace before our token was in: a waiter broke the empty lock, so it was never ours.
    closeSync(fd);
    return null;
  } catch (error) {
    dropUnfilled(path, fd);
    throw error;
  }
}

/** A lock we could not fill (a full disk) is not left for others to wait on. */
function dropUnfilled(path: string, fd: number): void {
  try {
    if (statSync(path).ino === fstatSync(fd).ino) unlinkSync(path);
  } catch {
    // gone already, or out of reach: the grace for unreadable locks breaks it
  } finally {
    closeSync(fd);
  }
}

/*
 * The lock file as it stands: its holder, read without taking the lock (a
 * reader waits on a writer that may be at work), and a stale one broken.
 */

/** A lock file as read: its text (the holder's token), which file it is, its last renewal, and who it names. */
export interface Holder {
  raw: string;
  dev: number;
  ino: number;
  mtimeMs: number;
  /** Null when the file does not hold a readable owner. */
  owner: Owner | null;
}

/**
 * The lock at `path` as it stands; null when there is none. Anything but a
 * regular file within LOCK_FILE_LIMIT is refused (LogError, naming it): no
 * writer made it, and waiting on it (a FIFO) or reading it (a symlink to
 * /dev/zero) would outlast any lock wait.
 */
export function readHolder(path: string): Holder | null {
  return withSideFile(path, LOCK_FILE_LIMIT, (file) => {
    // fstat after open: a network file system revalidates on open, so the mtime read is the server's.
    const { dev, ino, mtimeMs } = fstatSync(file.fd);
    const raw = sideText(file, path, LOCK_FILE_LIMIT);
    return { raw, dev, ino, mtimeMs, owner: parseOwner(raw) };
  });
}

/**
 * Whether the lock at `path` may belong to a writer still at work, judged
 * without touching it (readers need no write access): false when there is
 * none or its owner on this machine is gone; a lock from elsewhere, or one
 * not yet filled, may be live.
 */
export function mayBeWriting(path: string): boolean {
  const holder = readHolder(path);
  if (holder === null) return false;
  if (holder.owner === null || !onThisMachine(holder.owner)) return true;
  return ownerRuns(holder.owner);
}

/** How long a reader that finds a torn tail waits for a writer still holding the lock before it reports the tear. */
const READER_WAIT_MS = 2_000;

/**
 * A reader's wait for a write under way, without the lock (a reader needs
 * no write access): while `<log>.lock` may belong to a live writer, up to
 * READER_WAIT_MS (a lock a killed writer left is not waited on). True when
 * there was a writer to wait for, so the log is worth a second look.
 */
export function waitForWriter(location: string): boolean {
  const lockPath = `${location}.lock`;
  if (!mayBeWriting(lockPath)) return false;
  const deadline = Date.now() + READER_WAIT_MS;
  while (mayBeWriting(lockPath) && Date.now() < deadline) Atomics.wait(pause, 0, 0, 10);
  return true;
}

const pause = new Int32Array(new SharedArrayBuffer(4));

/**
 * Moves the stale lock aside and checks it is the one judged stale, unchanged
 * (a renewal since means its holder lives). If not, it is put back (unless
 * yet another lock was taken meanwhile: then the one put aside is dropped,
 * and its holder, finding its token gone when it confirms, writes nothing).
 */
export function breakStale(path: string, holder: Holder): void {
  const aside = `${path}.stale-${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    renameSync(path, aside);
  } catch (error) {
    if (isCode(error, 'ENOENT')) return;
    throw error;
  }
  try {
    const moved = readHolder(aside);
    if (moved !== null && moved.dev === holder.dev && moved.ino === holder.ino && moved.mtimeMs === holder.mtimeMs && moved.raw === holder.raw) return;
    try {
      linkSync(aside, path);
    } catch {
      // a newer lock stands there now
    }
  } finally {
    unlinkSync(aside);
  }
}

/*
 * Who holds a lock, and whether that holder still runs. A pid alone is a
 * weak name: pids are reused, and a lock left before a reboot names a pid
 * that may run again as something else. So the lock also records the
 * process's start time (field 22 of /proc/<pid>/stat, in clock ticks since
 * boot) and the boot id. A pid that runs but started at another moment names
 * a holder that is gone. A lock from another boot id is not asked about its
 * pid at all: it was written before a reboot, or by another machine that has
 * the same host name, and the two cannot be told apart, so it is judged like
 * any other host's lock (by its renewals). Where /proc is missing (macOS)
 * only `kill(pid, 0)` can be asked. Like reading the holder, this reads `process`: a
 * lock must name its holder and ask after another.
 */

/** The identity a lock records for its holder. `start` and `boot` are null where /proc cannot tell. */
export interface Owner {
  pid: number;
  host: string;
  start: string | null;
  boot: string | null;
}

let self: Owner | null = null;

/** This process, as a lock names it (read once: it cannot change while the process runs). */
export function currentOwner(): Owner {
  if (self === null) {
    const seen = processStart(process.pid);
    self = { pid: process.pid, host: hostname(), start: seen.kind === 'running' ? seen.start : null, boot: bootId() };
  }
  return self;
}

/** Whether its pid means anything here: same host name, and the same boot where both know theirs. */
export function onThisMachine(owner: Pick<Owner, 'host' | 'boot'>): boolean {
  const me = currentOwner();
  return owner.host === me.host && (owner.boot === null || me.boot === null || owner.boot === me.boot);
}

/** Whether the holder a lock on this machine names still runs: the same process, not a later one given its pid. */
export function ownerRuns(owner: Pick<Owner, 'pid' | 'start'>): boolean {
  const seen = processStart(owner.pid);
  if (seen.kind === 'exited') return false;
  if (seen.kind === 'running' && owner.start !== null) return seen.start === owner.start;
  return pidRuns(owner.pid);
}

/** The owner a lock's text names, or null while it names none readable. */
export function parseOwner(raw: string): Owner | null {
  let owner: Partial<Record<keyof Owner, unknown>>;
  try {
    owner = JSON.parse(raw) as typeof owner;
  } catch {
    return null; // being written, or left empty by a writer killed at once
  }
  if (typeof owner !== 'object' || owner === null || typeof owner.host !== 'string') return null;
  const pid = owner.pid;
  // A pid of 0 or below names a process group or every process (kill(-1, 0) succeeds): no holder, so the lock is broken as an unfilled one.
  if (typeof pid !== 'number' || !Number.isSafeInteger(pid) || pid <= 0) return null;
  // Locks written before start times were recorded still name a pid: kill(pid, 0) judges those.
  const text = (value: unknown) => (typeof value === 'string' ? value : null);
  return { pid, host: owner.host, start: text(owner.start), boot: text(owner.boot) };
}

type Seen = { kind: 'running'; start: string } | { kind: 'exited' } | { kind: 'unknown' };

/**
 * What /proc says of `pid`. `unknown` when /proc is missing, or hides other
 * users' processes (hidepid), or the pid is not there: kill(pid, 0) decides.
 */
function processStart(pid: number): Seen {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return { kind: 'unknown' };
  }
  // The command name (field 2) is in parentheses and may hold spaces or parentheses itself: count from the last one.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const state = fields[0];
  const start = fields[19];
  // A zombie has exited, its pid only waits for its parent to collect it; it writes nothing more.
  if (state === 'Z' || state === 'X') return { kind: 'exited' };
  return start ? { kind: 'running', start } : { kind: 'unknown' };
}

function pidRuns(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs, as another user.
    return !(error instanceof Error && 'code' in error && error.code === 'ESRCH');
  }
}

function bootId(): string | null {
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim() || null;
  } catch {
    return null;
  }
}
