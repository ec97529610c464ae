import { DECISION_KIND_WORDS, oneOf, shownValue, spellingKey } from '../../events/index.js';
import { GATE_DEFAULT_TIMEOUT_SECONDS, GATE_FLAG, GATE_TIMEOUT_FLAG, Refusal, stateFormatNames } from '../core/index.js';
import { metricPolicies, POLICY_NAMES, policyNamed, type AnyPolicy, type FlagSpec } from '../policies/index.js';
import {
  environmentErrorLine,
  errorLine,
  failureJson,
  refusalLine,
  REMEDY_HINT,
  unknownOutcome,
  USAGE_HINT,
  usageErrorLine,
  recordPolicyProblem,
  valueRemedy,
  type FailureReport,
} from '../render/index.js';
import { LogError, OutcomeUnknown, readStandardInput } from '../log/index.js';
import { dashed, type Flags, type ParsedCall, parseWords, UsageError, wordOf } from './args.js';
import { type CliIO, type Command, statusAfterWrite } from './common.js';
import { unverifiedCode } from './unverified.js';
import { answerUsageAsHook, handedInput } from './hook-guard.js';
import type { Entry, Follow, HelpParts, Reading, WordParts } from './entries.js';

export { packageVersion } from '../log/index.js';

/*
 * One call run by the command table: the help and the usage errors drawn
 * from it, the call's words parsed by its entry, the command run, and every
 * failure reported with its exit code.
 * The bin hands over the table and the one command it loaded (entries.ts,
 * runBin); `run` hands over the table with every command at hand.
 */

/** The command of a name, when it is loaded (undefined when there is none). */
export type Commands = (name: string) => Command | undefined;

/** Runs one CLI call, as read by the table, with `commands`, in-process; returns the exit code. Never throws for a user's mistake. */
export function dispatch(read: Reading, io: CliIO, commands: Commands): number {
  const outcome = attempt(read, io, commands);
  // An in-process caller hands its standard input over whole: it can be looked at without waiting.
  return outcome instanceof UsageError ? usageFailure(outcome, read, io, handedInput(io)) : outcome;
}

/** What the bin hands over once its command's short path gave way: the command it loaded, standard input (replayable if the short path read it), and the stop of a command that stays up. */
export interface BinCall {
  command: Command | Follow | undefined;
  stdin: CliIO['stdin'];
  stop: () => Promise<unknown>;
}

/**
 * The bin's call, past its short path: a command that stays up follows the
 * log until stopped; any other is attempted as `run` attempts it. A usage
 * error is reported once standard input has said whether it was a person's
 * mistake or a misconfigured hook's.
 */
export async function dispatchBin(read: Reading, io: CliIO, call: BinCall): Promise<number> {
  const { command, stdin } = call;
  if (read.entry?.stays && command) return follow(read, io, call.stop, command as Follow);
  const outcome = attempt(read, { ...io, stdin: stdin ?? ((limit) => readStandardInput(limit)) }, () => command as Command | undefined);
  if (typeof outcome === 'number') return outcome;
  return usageFailure(outcome, read, io, await hookInput(io, stdin));
}

/** A command that stays up (`inspect`, `watch`, `serve`): Ctrl-C is how it ends, a clean stop, exit 0. */
async function follow(read: Reading, io: CliIO, stop: () => Promise<unknown>, command: Follow): Promise<number> {
  try {
    await command(parseCall(read), read.callIo({ ...io, stdin: (limit) => readStandardInput(limit) }), stop());
    return 0;
  } catch (error) {
    // A mistyped follow under a hook's input is a misconfigured hook's, as for any other command.
    if (error instanceof UsageError) return usageFailure(error, read, io, await hookInput(io, io.stdin));
    return failure(error, io, read.json);
  }
}

/** Standard input, when a usage error may be a misconfigured hook's: read without waiting on a pipe for ever. */
async function hookInput(io: CliIO, stdin: CliIO['stdin']): Promise<string | null> {
  return io.stdin ? handedInput({ stdin }) : ((await io.pendingStdin?.()) ?? null);
}

/**
 * Runs one CLI call and returns its exit code, every failure reported but a
 * usage error, which comes back unreported: whether it is a person's mistake
 * or a misconfigured hook's depends on standard input (see usageFailure).
 */
export function attempt(read: Reading, io: CliIO, command: Commands): number | UsageError {
  const { name, entry, table } = read;
  try {
    if (name === undefined) throw new UsageError('a command is needed');
    if (read.help === 'all' || (entry && read.help === 'command')) {
      io.stdout(entry ? commandHelp(entry) : helpText(table));
      return 0;
    }
    if (!entry) throw new UsageError(unknownCommand(name, table));
    const run = command(name);
    // A command that stays up runs only in the bin, which can stop it (dispatchBin); `run` cannot.
    if (entry.stays || !run) throw new UsageError(`${name} stays up until interrupted: run it from the gapflow bin`);
    runWithStatus(read, io, run);
    return 0;
  } catch (error) {
    return error instanceof UsageError ? error : failure(error, io, read.json);
  }
}

/**
 * A call's words parsed by its entry (its words from the registries read
 * first, where they come from there); a usage error thrown, or handed to a
 * command that answers its own (Entry.answersUsage).
 */
function parseCall(read: Reading): ParsedCall {
  const entry = read.entry!;
  const spec = typeof entry.words === 'function' ? entry.words(wordParts()) : entry.words;
  try {
    return parseWords(entry.name, read.words, spec, entry.jsonTakesFile);
  } catch (error) {
    if (!(error instanceof UsageError && entry.answersUsage)) throw error;
    return { verb: undefined, values: {}, args: [], problem: error };
  }
}

/** Runs a command on its parsed call, then rewrites status.md when the session asks for it after a write (statusAfterWrite, common.ts). */
function runWithStatus(read: Reading, io: CliIO, run: Command): void {
  const call = parseCall(read);
  const afterWrite = statusAfterWrite(read.entry!.records, call.values, io);
  try {
    run(call, read.callIo(io));
  } catch (error) {
    // Also after a refusal that recorded something: a failing verification check's run, which status.md shows.
    afterWrite?.(true);
    throw error;
  }
  afterWrite?.(false);
}

/**
 * Reports a usage error. With a hook's input on standard input (`stdin`) it
 * is a misconfigured hook: answered as one (the user told, the agent let
 * stop), exit 0, since Claude Code reads exit 2 as "block". Otherwise one
 * line on stderr (JSON with `--json`) and exit 2, or 1 when the words look like the stop hook's
 * (`Hook claude`): its input may not have been readable.
 */
export function usageFailure(error: UsageError, read: Pick<Reading, 'argv' | 'json'>, io: Pick<CliIO, 'stdout' | 'stderr'>, stdin: string | null): number {
  if (answerUsageAsHook(error, stdin, io)) return 0;
  const code = failure(error, io, read.json);
  return looksLikeHook(read.argv) ? 1 : code;
}

/** `hook claude` however mistyped (`Hook claude`, `--dir hook claude`): a stop hook's command line. */
function looksLikeHook(argv: readonly string[]): boolean {
  const words = argv.map((word) => word.toLowerCase());
  return words.some((word, i) => word === 'hook' && (i === 0 || words[i + 1] === 'claude'));
}

/** `unknown command "stauts" (did you mean status?)`: the nearest name in the table. */
function unknownCommand(name: string, table: readonly Entry[]): string {
  const { suggestion } = oneOf(
    name,
    table.map((entry) => entry.name),
  );
  return `unknown command ${shownValue(name)}${suggestion ? ` (did you mean ${suggestion}?)` : ''}`;
}

const WIDTH = 80;

/** `head`, then `words` wrapped at word breaks to `WIDTH`; each line after the first starts with `indent`. */
function wrap(head: string, words: readonly string[], indent: string): string[] {
  const lines = [head];
  for (const word of words) {
    const last = lines.at(-1)!;
    if (last.trim() !== '' && last.length + 1 + word.length > WIDTH) lines.push(`${indent}${word}`);
    else lines[lines.length - 1] = last.trim() === '' ? `${last}${word}` : `${last} ${word}`;
  }
  return lines;
}

/** A command and what it does, the text in the column the others use when the command leaves room. */
function column(command: string, text: string): string {
  return command.length < 34 ? `${command.padEnd(34)}${text}` : `${command}  ${text}`;
}

function flagUsage(flag: string, spec: FlagSpec): string {
  if (spec.type === 'boolean') return `--${flag}`;
  return `--${flag} ${spec.placeholder ?? 'VALUE'}${spec.multiple ? ' ...' : ''}`;
}

/** `record <policy>`'s flags as --help shows them: alternatives in parentheses, booleans and the command flag in brackets. */
function recordUsage(policy: AnyPolicy): string[] {
  const flags = Object.entries(policy.recordFlags);
  const oneOf = flags.filter(([, spec]) => spec.type === 'string' && spec.oneOf);
  const parts: string[] = [];
  for (const [flag, spec] of flags) {
    if (spec.type === 'string' && spec.oneOf) {
      if (flag === oneOf[0]![0]) parts.push(`(${oneOf.map(([f, s]) => flagUsage(f, s)).join(' | ')})`);
    } else parts.push(spec.type === 'boolean' ? `[${flagUsage(flag, spec)}]` : flagUsage(flag, spec));
  }
  const command = policy.recordCommand;
  if (command) parts.push(`[--${command.flag} "CMD"]`, `[--${command.timeoutFlag} S]`);
  if (parts.length === 0) parts.push('--json FILE|-');
  return wrap(`  record ${policy.name}`, parts, '       ');
}

/** Each policy: how to record it, what it is, and the settings `init` takes for it. */
function policyLines(): string[] {
  return metricPolicies().flatMap((policy) => {
    const settings = Object.keys(policy.settingFlags);
    return [
      ...recordUsage(policy),
      ...wrap('     ', policy.summary.split(' '), '     '),
      ...(settings.length > 0
        ? wrap(
            `     init --${policy.name}-SETTING:`,
            settings.map((s, i) => (i < settings.length - 1 ? `${s},` : s)),
            '       ',
          )
        : []),
    ];
  });
}

/** `round close` with the record flags of each policy that takes them there. */
function closeLines(): string[] {
  return metricPolicies()
    .filter((policy) => policy.recordOnClose)
    .flatMap((policy) => [
      ...wrap(
        '  round close',
        Object.entries(policy.recordFlags).map(([flag, spec]) => `[${flagUsage(flag, spec)}]`),
        '       ',
      ),
      `                                  with ${policy.name} enabled: its record, appended with the close`,
    ]);
}

/** The help's parts that come from the registries: each names the policies, formats and flags as they are. */
function helpParts(): HelpParts {
  const formats = stateFormatNames();
  return {
    gateFlag: GATE_FLAG,
    gateTimeoutFlag: GATE_TIMEOUT_FLAG,
    gateSeconds: GATE_DEFAULT_TIMEOUT_SECONDS,
    policyNames: POLICY_NAMES,
    closeLines: closeLines().join('\n'),
    policyLines: policyLines().join('\n'),
    stateFormats: formats.length > 0 ? ` [--format ${formats.join('|')}]` : '',
    row: column,
  };
}

/** The words of `init`, `round`, `decide` and `record` that come from the registries (WordParts). */
function wordParts(): WordParts {
  return {
    initFlags: () => ({ [GATE_FLAG]: { type: 'string' }, [GATE_TIMEOUT_FLAG]: { type: 'string' }, ...policyInitOptions() }),
    closeFlags: () =>
      Object.fromEntries(
        metricPolicies()
          .filter((policy) => policy.recordOnClose)
          .flatMap((policy) => Object.keys(policy.recordFlags).map((flag) => [flag, { type: 'string' as const }])),
      ),
    decide: {
      kinds: DECISION_KIND_WORDS,
      kindOf: (word) => wordOf('decide', word, DECISION_KIND_WORDS, { shown: dashed }),
      needs: `decide needs one of ${DECISION_KIND_WORDS.map(dashed).join(', ')}`,
    },
    record: {
      flags: () => Object.fromEntries(metricPolicies().map((policy) => [policy.name, recordFlags(policy)])),
      policyOf: (word) => policyArgument(word).name,
      needs: recordPolicyProblem(
        undefined,
        metricPolicies().map((p) => p.name),
        undefined,
      ),
    },
  };
}

/** `--<policy>-<setting>` for every metric policy, plus `--policy` and `--complete-when`, for `init`. */
function policyInitOptions(): Record<string, { type: 'string' }> {
  const options: Record<string, { type: 'string' }> = { policy: { type: 'string' }, 'complete-when': { type: 'string' } };
  for (const policy of metricPolicies()) {
    for (const flag of Object.keys(policy.settingFlags)) options[`${policy.name}-${flag}`] = { type: 'string' };
  }
  return options;
}

/** `record POLICY`'s flags: the policy's record flags and its record command's, as parseArgs takes them (it knows only type and multiple). */
function recordFlags(policy: AnyPolicy): Flags {
  const command = policy.recordCommand;
  const commandFlags: Record<string, FlagSpec> = command ? { [command.flag]: { type: 'string' }, [command.timeoutFlag]: { type: 'string' } } : {};
  const flags: Record<string, FlagSpec> = { ...policy.recordFlags, ...commandFlags };
  return Object.fromEntries(
    Object.entries(flags).map(([flag, spec]) => [flag, spec.type === 'string' && spec.multiple ? { type: spec.type, multiple: true } : { type: spec.type }]),
  );
}

/** The policy `record` names, in any spelling: a word that names no metric policy is invalid input (exit 1). */
function policyArgument(name: string): AnyPolicy {
  const known = metricPolicies().map((p) => p.name);
  const policy = policyNamed(spellingKey(name));
  if (policy?.readsGapEvents) throw new Refusal(recordPolicyProblem(name, known, 'record_gap_events'), 'record_gap_events');
  return policy ?? policyNamed(wordOf('POLICY', name, known))!;
}

/** An entry's lines in the help. */
export function entryHelp(entry: Entry, parts: HelpParts = helpParts()): string {
  return typeof entry.help === 'string' ? entry.help : entry.help(parts);
}

/** The whole `--help` text: every command of the table, under its section's heading, then the options. */
export function helpText(table: readonly Entry[]): string {
  const parts = helpParts();
  const listed = [...table].sort((a, b) => a.section.rank - b.section.rank);
  const lines = listed.flatMap((entry, i) => [...(entry.section === listed[i - 1]?.section ? [] : [entry.section.heading]), entryHelp(entry, parts)]);
  return `gapflow: is your refinement loop converging, flat, stalled, diverging, paused or complete?

Usage: gapflow <command> [options]

${lines.join('\n')}

${OPTIONS}`;
}

/** `gapflow COMMAND --help`: its own lines, then the options every command takes. */
export function commandHelp(entry: Entry): string {
  return `Usage: gapflow ${entry.name}${entry.verb ? ' <verb>' : ''} [options]

${entryHelp(entry)}

${OPTIONS}`;
}

/** The help's closing part: the global options, how words are spelt, the exit codes. */
const OPTIONS = `Options
  --dir DIR    session folder (else $GAPFLOW_DIR, else the nearest .gapflow
               holding a session, from here upward)
  --store URL|DIR --session NAME
               a session in a store of many: a PostgreSQL database
               (postgres://user:pass@host:5432/db) or a folder (NAME's session in
               DIR/NAME/.gapflow); else $GAPFLOW_STORE and $GAPFLOW_SESSION
  --expect-seq N  (writing commands) refuse unless the log ends at seq N
  --event-id ID   (writing commands) an id for the event; if it is already in
                  the log, nothing is appended and the original is shown
  --json       machine-readable output; a failure is then one JSON line on
               stderr: {"code","message","remedy"} (same exit code)
  -h, --help   this text;  --version  the version

Words from a list (severities, states, decisions, presets, policies) may be
written in any case, with - or _: in-progress, IN_PROGRESS and In_Progress are
one state, here and in append.

Exit codes: 0 done; 1 refused or invalid input (one line on stderr, nothing
written); 2 usage error (unknown command or option, missing argument).
`;

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
