import type { CliIO, Command } from './common.js';
import { dispatch, helpText } from './dispatch.js';
import { answerVersion, readCall } from './entries.js';
import { TABLE } from './table.js';

export type { CliIO } from './common.js';
export { runBin, WRITE_ENTRIES, type Entry } from './entries.js';
export { WRITE_COMMANDS } from './write-commands.js';
export { TABLE } from './table.js';
export { commandHelp, entryHelp } from './dispatch.js';
export { writePolicyReports } from './policy-commands.js';
export { backtestSettingsProblem } from './backtest-settings.js';
export { ENTER_SCREEN, LEAVE_SCREEN, watch, type Terminal } from './watch.js';

/*
 * The CLI in-process, for tests and benches: every command of the table
 * loaded up front (the bin loads only the one a call names, table.ts), so
 * `run` answers at once, without a promise.
 */

/** Every command that runs and returns (not one that stays up), by name, loaded from the table. */
export const COMMANDS: ReadonlyMap<string, Command> = new Map(
  await Promise.all(TABLE.flatMap((entry) => (entry.stays ? [] : [entry.load().then((command) => [entry.name, command] as const)]))),
);

/** The whole `--help` text. */
export const HELP = helpText(TABLE);

/** Runs one CLI call in-process, every command at hand; returns the exit code. Never throws for a user's mistake. */
export function run(argv: string[], io: CliIO): number {
  const read = readCall(argv, TABLE);
  return answerVersion(read.name, io) ? 0 : dispatch(read, io, (name) => COMMANDS.get(name));
}
