import { Refusal } from '../core/index.js';
import { environmentErrorLine, errorLine, refusalLine, usageErrorLine } from '../render/index.js';
import { LogError } from '../log/index.js';
import { UsageError } from './args.js';
import type { CliIO, Command } from './common.js';
import { asksForHelp, hoistGlobalOptions } from './hoist.js';
import { statusAfterWrite } from './status-after-write.js';
import { unverifiedCode } from './unverified.js';

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
    if (name === 'inspect' || name === 'watch') throw new UsageError(`${name} stays up until interrupted: run it from the gapflow bin`);
    const command = commands.command(name);
    if (!command) throw new UsageError(`unknown command "${name}"`);
    if (asksForHelp(rest)) {
      io.stdout(commands.help());
      return 0;
    }
    const afterWrite = statusAfterWrite(name, rest, io);
    command(rest, io);
    afterWrite?.();
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
