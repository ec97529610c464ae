import { Refusal } from '../core/index.js';
import { environmentErrorLine, errorLine, refusalLine, usageErrorLine } from '../render/index.js';
import { LogError } from '../log/index.js';
import { UsageError } from './args.js';
import type { CliIO, Command } from './common.js';
import { asksForHelp, hoistGlobalOptions } from './hoist.js';
import { unverifiedCode } from './unverified.js';
import { answerUsageAsHook, handedInput } from './hook-guard.js';

export { readStandardInput } from '../log/index.js';

/**
 * What a call needs besides its words: the command of a name (undefined when
 * there is none) and the `--help` text. `run` has every command at hand; the
 * bin loads only the one it was asked for, and the help text only when asked.
 */
export interface Commands {
  command: (name: string) => Command | undefined;
  help: () => string;
}

/** Runs one CLI call with `commands`; returns the exit code. Never throws for a user's mistake. */
export function dispatch(argv: string[], io: CliIO, commands: Commands): number {
  const outcome = attempt(argv, io, commands);
  // An in-process caller hands its standard input over whole: it can be looked at without waiting.
  return outcome instanceof UsageError ? usageFailure(outcome, argv, io, handedInput(io)) : outcome;
}

/**
 * Runs one CLI call and returns its exit code, every failure reported but a
 * usage error, which comes back unreported: whether it is a person's mistake
 * or a misconfigured hook's depends on standard input (see usageFailure).
 */
export function attempt(argv: string[], io: CliIO, commands: Commands): number | UsageError {
  const [name, ...rest] = hoistGlobalOptions(argv);
  try {
    if (name === undefined) throw new UsageError('a command is needed');
    if (name === '--help' || name === '-h' || name === 'help') {
      io.stdout(commands.help());
      return 0;
    }
    if (name === '--version') {
      io.stdout(`${io.version?.() ?? 'unknown'}\n`);
      return 0;
    }
    if (name === 'inspect') throw new UsageError('inspect stays up until interrupted: run it from the gapflow bin');
    const command = commands.command(name);
    if (!command) throw new UsageError(`unknown command "${name}"`);
    if (asksForHelp(rest)) {
      io.stdout(commands.help());
      return 0;
    }
    command(rest, io);
    return 0;
  } catch (error) {
    return error instanceof UsageError ? error : failure(error, io);
  }
}

/**
 * Reports a usage error. With a hook's input on standard input (`stdin`) it
 * is a misconfigured hook: answered as one (the user told, the agent let
 * stop), exit 0, since Claude Code reads exit 2 as "block". Otherwise one
 * line on stderr and exit 2, or 1 when the words look like the stop hook's
 * (`Hook claude`): its input may not have been readable.
 */
export function usageFailure(error: UsageError, argv: readonly string[], io: Pick<CliIO, 'stdout' | 'stderr'>, stdin: string | null): number {
  if (answerUsageAsHook(error, stdin, io)) return 0;
  io.stderr(usageErrorLine(error.message));
  return looksLikeHook(argv) ? 1 : 2;
}

/** `hook claude` however mistyped (`Hook claude`, `--dir hook claude`): a stop hook's command line. */
function looksLikeHook(argv: readonly string[]): boolean {
  const words = argv.map((word) => word.toLowerCase());
  return words.some((word, i) => word === 'hook' && (i === 0 || words[i + 1] === 'claude'));
}

/** Reports a failed call as one stderr line and returns its exit code: 2 for usage, 1 for the rest. */
export function failure(error: unknown, io: Pick<CliIO, 'stderr'>): number {
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
