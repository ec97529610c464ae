import { randomBytes } from 'node:crypto';
import { fstatSync, linkSync, renameSync, unlinkSync } from 'node:fs';
import { LOCK_FILE_LIMIT } from './limits.js';
import { onThisMachine, ownerRuns, parseOwner, type Owner } from './lock-owner.js';
import { sideText, withSideFile } from './side-file.js';
import { isCode } from './types.js';

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
