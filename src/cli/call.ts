import { resolve } from 'node:path';
import { type InputLimit, validateInputText } from '../log/lean.js';
import { UsageError } from './args.js';
import type { CliIO } from './common.js';

/*
 * What a command takes from its call before it opens a session: the
 * session's folder, standard input, and how it prints JSON. Loads no
 * session, schema or renderer, so the bin's short path for `next` and a
 * stop hook (head-answers.ts) shares them with the full commands.
 */

/** The session folder a call names: `--dir`, else `$GAPFLOW_DIR`, else `.gapflow`, from the caller's cwd. */
export function sessionDir(dir: string | undefined, io: Pick<CliIO, 'cwd' | 'env'>): string {
  if (dir !== undefined && dir.trim() === '') throw new UsageError('--dir needs a folder');
  // An empty $GAPFLOW_DIR counts as unset, as shells treat empty variables.
  return resolve(io.cwd, dir ?? (io.env.GAPFLOW_DIR || '.gapflow'));
}

/** Standard input, held to `limit` whoever hands it over (the bin stops reading there; an in-process caller's text is measured). */
export function readStdin(io: CliIO, limit: InputLimit): string {
  if (!io.stdin) throw new UsageError('this caller gives no standard input');
  return validateInputText(io.stdin(limit), 'standard input', limit);
}

export function printJson(io: CliIO, value: unknown): void {
  io.stdout(`${JSON.stringify(value, null, 2)}\n`);
}
