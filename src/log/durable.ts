import { randomUUID } from 'node:crypto';
import { closeSync, fsyncSync, linkSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';

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
export const FOLDER_MODE = 0o755;

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
