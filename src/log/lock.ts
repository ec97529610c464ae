import { randomBytes } from 'node:crypto';
import { closeSync, fstatSync, futimesSync, openSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { breakStale, readHolder, type Holder } from './lock-holder.js';
import { currentOwner, onThisMachine, ownerRuns } from './lock-owner.js';
import { isCode, LogError } from './types.js';
import { pauseFor } from './pause.js';

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
 *   reboot, or a second machine of the same name: see lock-owner.ts), cannot
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
 * (in lock-owner.ts and lock-holder.ts): a lock must name its holder.
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

function acquire(path: string, timing: LockTiming): HeldLock {
  const token = JSON.stringify({ ...currentOwner(), at: Date.now(), nonce: randomBytes(8).toString('hex') });
  const deadline = performance.now() + timing.waitForLockMs;
  let watched = null as Watch | null;
  let delay = 1;
  for (;;) {
    const held = tryCreate(path, token);
    if (held !== null) return held;
    const holder = readHolder(path);
    if (holder === null) continue; // released between our attempt and our look
    // Staleness across hosts is judged by what this process sees change, on its own clock.
    const key = `${holder.dev}:${holder.ino}:${holder.mtimeMs}:${holder.raw}`;
    if (watched?.key !== key) watched = { key, since: performance.now() };
    if (isStale(holder, performance.now() - watched.since, timing)) {
      breakStale(path, holder);
      watched = null;
      continue;
    }
    if (performance.now() > deadline) {
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
