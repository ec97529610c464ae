import { type InputLimit, validateInputText } from '../log/index.js';
import { UsageError } from './usage-error.js';
import type { CliIO } from './common.js';
import { newSessionDir, sessionDir } from './session-dir.js';

export { newSessionDir, sessionDir };
export { databaseSession, type DatabaseSession, type WhereOptions } from './session-dir.js';

/*
 * What a command takes from its call before it opens a session: the
 * session's folder, standard input, and how it prints JSON. Loads no
 * session, schema or renderer, so the bin's short path for `next` and a
 * stop hook (head-answers.ts) shares them with the full commands.
 */

/** Standard input, held to `limit` whoever hands it over (the bin stops reading there; an in-process caller's text is measured). */
export function readStdin(io: CliIO, limit: InputLimit): string {
  if (!io.stdin) throw new UsageError('this caller gives no standard input');
  return validateInputText(io.stdin(limit), 'standard input', limit);
}

/** What `--json` prints of `value`: indented by two, with a newline at its end (a stored `state --json` is these bytes). */
export function jsonText(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

export function printJson(io: CliIO, value: unknown): void {
  io.stdout(jsonText(value));
}
