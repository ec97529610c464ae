import { Refusal } from '../core/index.js';
import { environmentErrorLine, errorLine, refusalLine, usageErrorLine } from '../render/index.js';
import { LogError } from '../log/index.js';
import { hoistGlobalOptions, UsageError } from './args.js';
import type { CliIO, Command } from './common.js';
import { HELP } from './help.js';
import { viz } from './viz-commands.js';
import { append, hook, next, schema } from './loop-commands.js';
import { check } from './policy-commands.js';
import { record } from './record.js';
import { prompt, replay, state, status, summary } from './read-commands.js';
import { decide, gap, init, round } from './session-commands.js';
import { repair, unverifiedCode, verify } from './log-commands.js';

export type { CliIO } from './common.js';

const COMMANDS: Record<string, Command> = {
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
  schema,
  record,
  check,
  verify,
  repair,
};

/** Runs one CLI call; returns the exit code. Never throws for a user's mistake. */
export function run(argv: string[], io: CliIO): number {
  const [name, ...rest] = hoistGlobalOptions(argv);
  try {
    if (name === undefined) throw new UsageError('a command is needed');
    if (name === '--help' || name === '-h' || name === 'help') {
      io.stdout(HELP);
      return 0;
    }
    if (name === '--version') {
      io.stdout(`${io.version?.() ?? 'unknown'}\n`);
      return 0;
    }
    if (name === 'inspect') throw new UsageError('inspect stays up until interrupted: run it from the gapflow bin');
    const command = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
    if (!command) throw new UsageError(`unknown command "${name}"`);
    if (rest.includes('--help') || rest.includes('-h')) {
      io.stdout(HELP);
      return 0;
    }
    command(rest, io);
    return 0;
  } catch (error) {
    const code = failure(error, io);
    // Claude Code reads exit 2 from a stop hook as "block": a mistyped hook command must not trap the agent.
    return code === 2 && looksLikeHook(argv) ? 1 : code;
  }
}

/** `hook claude` however mistyped (`Hook claude`, `--dir hook claude`): a stop hook's command line. */
function looksLikeHook(argv: readonly string[]): boolean {
  const words = argv.map((word) => word.toLowerCase());
  return words.some((word, i) => word === 'hook' && (i === 0 || words[i + 1] === 'claude'));
}

/**
 * The bin's entry point: `inspect` serves until `stop()` settles (the bin wires
 * it to SIGINT and SIGTERM) and is loaded only when asked for; every other
 * command is `run`.
 */
export async function runBin(argv: string[], io: CliIO, stop: () => Promise<unknown>): Promise<number> {
  const [name, ...rest] = hoistGlobalOptions(argv);
  if (name !== 'inspect' || rest.includes('--help') || rest.includes('-h')) return run(argv, io);
  try {
    const { inspect } = await import('./inspect.js');
    await inspect(rest, io, stop());
    return 0;
  } catch (error) {
    return failure(error, io);
  }
}

/** Reports a failed call as one stderr line and returns its exit code: 2 for usage, 1 for the rest. */
export function failure(error: unknown, io: CliIO): number {
  const unverified = unverifiedCode(error);
  if (unverified !== null) return unverified;
  if (error instanceof UsageError) {
    io.stderr(usageErrorLine(error.message));
    return 2;
  }
  if (error instanceof Refusal) {
    io.stderr(refusalLine(error.message, error.remedy));
    return 1;
  }
  if (error instanceof LogError) {
    io.stderr(errorLine(error.message));
    return 1;
  }
  io.stderr(environmentErrorLine(error));
  return 1;
}
