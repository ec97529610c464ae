import { resolve } from 'node:path';
import { UsageError } from './usage-error.js';

/** The session folder a call names: `--dir`, else `$GAPFLOW_DIR`, else `.gapflow`, from the call's cwd. */
export function sessionDir(dir: string | undefined, io: { cwd: string; env: Record<string, string | undefined> }): string {
  if (dir !== undefined && dir.trim() === '') throw new UsageError('--dir needs a folder');
  // An empty $GAPFLOW_DIR counts as unset, as shells treat empty variables.
  return resolve(io.cwd, dir ?? (io.env.GAPFLOW_DIR || '.gapflow'));
}
