import { randomBytes } from 'node:crypto';
import { closeSync, linkSync, openSync, readFileSync, renameSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { LogError } from './types.js';

/*
 * One writer at a time across processes: `<log>.lock`, created with O_EXCL,
 * holds the owner's pid, host, start time and a nonce. A lock whose owner is
 * gone (same host, pid not running) or that is older than STALE_AFTER_MS (a
 * writer holds it for milliseconds) is broken, so a killed writer never
 * blocks the next one for long. Hand-written rather than proper-lockfile:
 * that library is asynchronous at heart (its sync API neither retries nor
 * refreshes the lock) and judges staleness by mtime alone, while the CLI is
 * synchronous and a dead pid is the surest sign. This is the one place
 * outside src/cli that reads `process`: a lock must name its owner's pid and
 * ask whether another pid still runs.
 */

export const STALE_AFTER_MS = 10_000;
/** How long a writer waits for the lock before giving up with a message. */
export const WAIT_FOR_LOCK_MS = 15_000;
/** A lock file without a readable owner is stale once this old (its writer died between creating and filling it). */
const UNREADABLE_STALE_MS = 1_000;

interface Holder {
  raw: string;
  ino: number;
  mtimeMs: number;
  pid: number | null;
  host: string | null;
  at: number | null;
}

const sleeper = new Int32Array(new SharedArrayBuffer(4));
function sleep(ms: number): void {
  Atomics.wait(sleeper, 0, 0, ms);
}

/** Runs `work` holding the lock of the log at `logPath`. */
export function withLock<T>(logPath: string, work: () => T): T {
  const lockPath = `${logPath}.lock`;
  const token = acquire(lockPath);
  try {
    return work();
  } finally {
    release(lockPath, token);
  }
}

function acquire(path: string): string {
  const token = JSON.stringify({ pid: process.pid, host: hostname(), at: Date.now(), nonce: randomBytes(8).toString('hex') });
  const deadline = Date.now() + WAIT_FOR_LOCK_MS;
  let delay = 1;
  for (;;) {
    if (tryCreate(path, token)) return token;
    const holder = readHolder(path);
    if (holder === null) continue; // released between our attempt and our look
    if (isStale(holder)) {
      breakStale(path, holder);
      continue;
    }
    if (Date.now() > deadline) {
      const who = holder.pid === null ? 'another writer' : `process ${holder.pid}${holder.host ? ` on ${holder.host}` : ''}`;
      throw new LogError(`${path} is held by ${who}; no write waits longer than ${WAIT_FOR_LOCK_MS / 1000} s: if no gapflow is running, delete it`);
    }
    sleep(delay + Math.random() * delay);
    delay = Math.min(delay * 2, 20);
  }
}

function tryCreate(path: string, token: string): boolean {
  let fd: number;
  try {
    fd = openSync(path, 'wx');
  } catch (error) {
    if (isCode(error, 'EEXIST')) return false;
    throw error;
  }
  try {
    writeSync(fd, token);
  } finally {
    closeSync(fd);
  }
  return true;
}

function readHolder(path: string): Holder | null {
  try {
    const stat = statSync(path);
    const raw = readFileSync(path, 'utf8');
    let owner: { pid?: unknown; host?: unknown; at?: unknown } = {};
    try {
      owner = JSON.parse(raw) as typeof owner;
    } catch {
      // being written, or left empty by a writer killed at once: judged by age below
    }
    return {
      raw,
      ino: stat.ino,
      mtimeMs: stat.mtimeMs,
      pid: typeof owner.pid === 'number' ? owner.pid : null,
      host: typeof owner.host === 'string' ? owner.host : null,
      at: typeof owner.at === 'number' ? owner.at : null,
    };
  } catch (error) {
    if (isCode(error, 'ENOENT')) return null;
    throw error;
  }
}

function isStale(holder: Holder): boolean {
  const now = Date.now();
  if (holder.pid === null || holder.at === null) return now - holder.mtimeMs > UNREADABLE_STALE_MS;
  if (now - holder.at > STALE_AFTER_MS) return true;
  return holder.host === hostname() && !isRunning(holder.pid);
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs, as another user.
    return !isCode(error, 'ESRCH');
  }
}

/**
 * Moves the stale lock aside and checks it is the one judged stale. If a
 * writer took a fresh lock in between, that one is put back (unless yet
 * another was taken meanwhile, a three-way race at a dead lock that this
 * cannot close without kernel locks).
 */
function breakStale(path: string, holder: Holder): void {
  const aside = `${path}.stale-${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    renameSync(path, aside);
  } catch (error) {
    if (isCode(error, 'ENOENT')) return;
    throw error;
  }
  try {
    const stat = statSync(aside);
    if (stat.ino === holder.ino && readFileSync(aside, 'utf8') === holder.raw) return;
    try {
      linkSync(aside, path);
    } catch {
      // a newer lock stands there now; ours to drop
    }
  } finally {
    unlinkSync(aside);
  }
}

function release(path: string, token: string): void {
  try {
    // Only our own lock: if it was broken as stale and another writer holds one now, that one stays.
    if (readFileSync(path, 'utf8') === token) unlinkSync(path);
  } catch (error) {
    if (!isCode(error, 'ENOENT')) throw error;
  }
}

export function isCode(error: unknown, code: string): boolean {
  return error instanceof Error && 'code' in error && error.code === code;
}
