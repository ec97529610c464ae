import { resolve } from 'node:path';
import { findSessionDir, SESSION_FOLDER } from '../log/lean.js';
import { UsageError } from './usage-error.js';

type Where = { cwd: string; env: Record<string, string | undefined> };

/**
 * The session folder a call names: `--dir`, else `$GAPFLOW_DIR`, else the
 * nearest `.gapflow` holding a session from the call's cwd upward (as git
 * finds a repository; see findSessionDir), else `.gapflow` in the cwd, where
 * the refusal then says there is no session.
 */
export function sessionDir(dir: string | undefined, io: Where): string {
  return namedSessionDir(dir, io) ?? findSessionDir(io.cwd, io.env.CLAUDE_PROJECT_DIR || undefined) ?? resolve(io.cwd, SESSION_FOLDER);
}

/** Where `init` makes a session: the folder named, else `.gapflow` in the cwd, whatever a folder above holds (asked here, made here). */
export function newSessionDir(dir: string | undefined, io: Where): string {
  return namedSessionDir(dir, io) ?? resolve(io.cwd, SESSION_FOLDER);
}

/** The folder `--dir` or `$GAPFLOW_DIR` names, from the call's cwd; null when neither does. */
export function namedSessionDir(dir: string | undefined, io: Where): string | null {
  if (dir !== undefined && dir.trim() === '') throw new UsageError('--dir needs a folder');
  // An empty $GAPFLOW_DIR counts as unset, as shells treat empty variables.
  const named = dir ?? (io.env.GAPFLOW_DIR || undefined);
  return named === undefined ? null : resolve(io.cwd, named);
}
