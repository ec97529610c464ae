import type { CliIO, Command } from './common.js';
import { dispatch } from './dispatch.js';
import { HELP } from './help.js';
import { viz } from './viz-commands.js';
import { append, hook, importCommand, next, schema } from './loop-commands.js';
import { check } from './policy-commands.js';
import { record } from './record.js';
import { prompt, replay, state, status, summary } from './read-commands.js';
import { decide, gap, init, round } from './session-commands.js';
import { exportCommand, repair, verify } from './log-commands.js';
import { backtest } from './backtest.js';
import { fleet } from './fleet-commands.js';
import { trust } from './trust.js';

export type { CliIO } from './common.js';

/** Every command by name. The bin loads each from its own module instead (commands.ts), so a call pays only for its own. */
export const COMMANDS = {
  init,
  gap,
  round,
  decide,
  state,
  status,
  prompt,
  summary,
  replay,
  viz,
  hook,
  next,
  append,
  import: importCommand,
  schema,
  record,
  check,
  verify,
  repair,
  export: exportCommand,
  backtest,
  fleet,
  trust,
} satisfies Record<string, Command>;

export type CommandName = keyof typeof COMMANDS;

const commands = {
  command: (name: string): Command | undefined => (Object.hasOwn(COMMANDS, name) ? COMMANDS[name as CommandName] : undefined),
  help: () => HELP,
};

/** Runs one CLI call in-process, every command at hand; returns the exit code. Never throws for a user's mistake. */
export function run(argv: string[], io: CliIO): number {
  return dispatch(argv, io, commands);
}
