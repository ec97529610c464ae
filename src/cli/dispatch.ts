import { oneOf, shownValue } from '../../events/index.js';
import { Refusal } from '../core/index.js';
import {
  environmentErrorLine,
  errorLine,
  failureJson,
  refusalLine,
  REMEDY_HINT,
  unknownOutcome,
  USAGE_HINT,
  usageErrorLine,
  valueRemedy,
  type FailureReport,
} from '../render/index.js';
import { LogError, OutcomeUnknown } from '../log/index.js';
import { UsageError } from './args.js';
import { COMMAND_LOADERS } from './commands.js';
import type { CliIO, Command } from './common.js';
import { asksForHelp, asksForJson, hoistGlobalOptions } from './hoist.js';
import { statusAfterWrite } from './status-after-write.js';
import { unverifiedCode } from './unverified.js';
import { answerUsageAsHook, handedInput } from './hook-guard.js';
import { callIo } from './reading.js';

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
    if (name === 'inspect' || name === 'watch' || name === 'serve') throw new UsageError(`${name} stays up until interrupted: run it from the gapflow bin`);
    const command = commands.command(name);
    if (!command) throw new UsageError(unknownCommand(name));
    if (asksForHelp(rest)) {
      io.stdout(commands.help());
      return 0;
    }
    const afterWrite = statusAfterWrite(name, rest, io);
    try {
      command(rest, callIo(name, rest, io));
    } catch (error) {
      // Also after a refusal that recorded something: a failing verification check's run, which status.md shows.
      afterWrite?.(true);
      throw error;
    }
    afterWrite?.(false);
    return 0;
  } catch (error) {
    return error instanceof UsageError ? error : failure(error, io, asksForJson(argv));
  }
}

/**
 * Reports a usage error. With a hook's input on standard input (`stdin`) it
 * is a misconfigured hook: answered as one (the user told, the agent let
 * stop), exit 0, since Claude Code reads exit 2 as "block". Otherwise one
 * line on stderr (JSON with `--json`) and exit 2, or 1 when the words look like the stop hook's
 * (`Hook claude`): its input may not have been readable.
 */
export function usageFailure(error: UsageError, argv: readonly string[], io: Pick<CliIO, 'stdout' | 'stderr'>, stdin: string | null): number {
  if (answerUsageAsHook(error, stdin, io)) return 0;
  const code = failure(error, io, asksForJson(argv));
  return looksLikeHook(argv) ? 1 : code;
}

/** `hook claude` however mistyped (`Hook claude`, `--dir hook claude`): a stop hook's command line. */
function looksLikeHook(argv: readonly string[]): boolean {
  const words = argv.map((word) => word.toLowerCase());
  return words.some((word, i) => word === 'hook' && (i === 0 || words[i + 1] === 'claude'));
}

/** `unknown command "stauts" (did you mean status?)`. */
function unknownCommand(name: string): string {
  const { suggestion } = oneOf(name, [...Object.keys(COMMAND_LOADERS), 'inspect', 'watch', 'serve']);
  return `unknown command ${shownValue(name)}${suggestion ? ` (did you mean ${suggestion}?)` : ''}`;
}

/**
 * Reports a failed call on stderr and returns its exit code: 2 for usage,
 * 4 for a write whose outcome is not known, 1 for the rest. One line of text, or with `json` one line of JSON
 * (`{"code","message","remedy",…}`); the exit code is the same either way.
 */
export function failure(error: unknown, io: Pick<CliIO, 'stderr'>, json = false): number {
  const unverified = unverifiedCode(error);
  if (unverified !== null) return unverified;
  const { report, line } = reportOf(error);
  io.stderr(json ? failureJson(report) : line);
  return EXIT[report.code] ?? 1;
}

/** The exit codes other than 1 (docs/cli.md#exit-codes). */
const EXIT: Partial<Record<FailureReport['code'], number>> = { usage: 2, outcome_unknown: 4 };

/**
 * A LogError, from this bundle or the short path's (dist/head-answers.js is
 * bundled whole, with its own copy of the class; an error reading standard
 * input there is handed on to the full command, which words it).
 */
function isLogError(error: unknown): error is LogError {
  return error instanceof LogError || (error instanceof Error && error.name === 'LogError');
}

/** An OutcomeUnknown, from this bundle or the short path's (as isLogError). */
function isOutcomeUnknown(error: unknown): error is OutcomeUnknown {
  return error instanceof OutcomeUnknown || (error instanceof Error && error.name === 'OutcomeUnknown' && 'events' in error && 'retryId' in error);
}

/** What failed, as `--json` reports it and as the one line of text says it. */
function reportOf(error: unknown): { report: FailureReport; line: string } {
  if (error instanceof UsageError) return { report: { code: 'usage', message: error.message, remedy: USAGE_HINT }, line: usageErrorLine(error.message) };
  if (error instanceof Refusal) {
    const { message, remedy, badValue: bad } = error;
    const hint = remedy ? REMEDY_HINT[remedy] : bad ? valueRemedy(bad) : null;
    return { report: { code: bad ? 'invalid_value' : 'refused', message, remedy: hint, bad }, line: refusalLine(message, remedy) };
  }
  if (isOutcomeUnknown(error)) {
    const retryId = error.retryId ?? (error.events.length === 1 ? error.events[0]!.id : null);
    const { message, remedy } = unknownOutcome(error.message, retryId);
    return { report: { code: 'outcome_unknown', message, remedy, retryId }, line: errorLine(`${message}: ${remedy}`) };
  }
  if (isLogError(error)) return { report: { code: 'log_error', message: error.message, remedy: null }, line: errorLine(error.message) };
  const line = environmentErrorLine(error);
  return { report: { code: 'error', message: line.slice('gapflow: '.length, -1), remedy: null }, line };
}
