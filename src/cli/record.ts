import { policyNamed, type FlagSpec, type FlagValues, type RecordCommand } from '../policies/index.js';
import { Refusal } from '../core/index.js';
import { validateInputText, EVENT_INPUT, readInputFile } from '../log/index.js';
import { recordedLines } from '../render/index.js';
import type { Session, WriteOptions } from '../session/index.js';
import { DECIMAL, type ParsedCall, UsageError, writeOptions } from './args.js';
import { announce, type CliIO, command, open, parseUserJson } from './common.js';
import type { WRITE_OPTIONS } from './entries.js';
import { writePolicyReports } from './policy-commands.js';
import { runRecordCommand } from './record-command.js';
import { throughGate } from './gate.js';

/** `record POLICY …`: one iteration's metrics, from the policy's own flags or `--json FILE|-` (its words: WordParts.record). */
export const record = command<ParsedCall<typeof WRITE_OPTIONS> & { verb: string }>((call, io) => {
  // The verb is the policy's name as the registry spells it (WordParts.record).
  const policy = policyNamed(call.verb)!;
  const input = call.jsonInput;
  const recordCommand = policy.recordCommand;
  // The policy's record flags come from the registry.
  const values = call.values as typeof call.values & Record<string, unknown>;
  const given = Object.keys(policy.recordFlags).filter((flag) => values[flag] !== undefined);
  if (input !== undefined && given.length > 0) throw new UsageError(`give ${policy.name}'s metrics as flags or as --json, not both`);
  if (input === undefined && given.length === 0) {
    const how = Object.keys(policy.recordFlags)
      .map((f) => `--${f}`)
      .join(', ');
    throw new UsageError(`record ${policy.name} needs its metrics: ${how ? `${how}, or ` : ''}--json FILE|-`);
  }
  validateFlagValues(policy.recordFlags, values);
  const metrics = input !== undefined ? readMetricsJson(input, io) : policy.fromFlags(values as FlagValues);
  const session = open(values, io);
  const write = writeOptions(values);
  // Metrics that would close the round and complete a session with a verification check run the check first (gate.ts).
  const recorded = throughGate(
    io,
    () => session,
    'round_close',
    values.json,
    () => {
      const withRun = recordCommand ? withCommandRun(recordCommand, values, { session, policy: policy.name, metrics, write }, io) : metrics;
      return session.recordMetrics(policy.name, withRun, write);
    },
  );
  const written = writePolicyReports(session, io, values, recorded.events);
  announce(io, session, recorded, values.json, () => recordedLines(session.view, policy.name, recorded.events, written));
});

function readMetricsJson(input: string, io: CliIO): Record<string, unknown> {
  let text: string;
  if (input === '-') {
    if (!io.stdin) throw new UsageError('--json - reads standard input, which this caller does not provide');
    text = validateInputText(io.stdin(EVENT_INPUT), 'standard input', EVENT_INPUT);
  } else {
    // A missing file, a folder, a FIFO, one past the limit or invalid UTF-8 is one line naming the file, as for append --file.
    text = readInputFile(input, io.cwd, EVENT_INPUT);
  }
  let json: unknown;
  try {
    json = parseUserJson(text);
  } catch (error) {
    const why = error instanceof SyntaxError && error.message.includes('__proto__') ? ` (${error.message})` : '';
    throw new Refusal(`--json ${input === '-' ? '(stdin)' : input}: not valid JSON${why}`);
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json))
    throw new Refusal(`--json ${input === '-' ? '(stdin)' : input}: the metrics must be a JSON object`);
  return json as Record<string, unknown>;
}

/** One clear line for a record flag whose value is not the kind of number it takes; the schema judges the range. */
export function validateFlagValues(flags: Readonly<Record<string, FlagSpec>>, values: Record<string, unknown>): void {
  for (const [flag, spec] of Object.entries(flags)) {
    if (spec.type !== 'string' || spec.value === undefined) continue;
    const given = values[flag];
    for (const raw of Array.isArray(given) ? given : given === undefined ? [] : [given]) {
      const word = String(raw).trim();
      const shown = JSON.stringify(String(raw).slice(0, 40));
      if (spec.value === 'whole' && !/^\d+$/.test(word)) throw new Refusal(`--${flag} takes a whole number ≥ 0, not ${shown}`);
      if (spec.value === 'number' && !DECIMAL.test(word)) throw new Refusal(`--${flag} takes a number, not ${shown}`);
      if (spec.value === 'amount' && (!DECIMAL.test(word) || Number(word) < 0)) throw new Refusal(`--${flag} takes a number of 0 or more, not ${shown}`);
    }
  }
}

interface Pending {
  session: Session;
  policy: string;
  metrics: Record<string, unknown>;
  write: WriteOptions;
}

/** The metrics with the policy's record command run into them, when its flag is given; the command runs only for a record that will be new. */
function withCommandRun(
  command: RecordCommand,
  values: Record<string, unknown>,
  { session, policy, metrics, write }: Pending,
  io: CliIO,
): Record<string, unknown> {
  const line = values[command.flag];
  const rawTimeout = values[command.timeoutFlag];
  if (typeof line !== 'string') {
    if (rawTimeout !== undefined) throw new UsageError(`--${command.timeoutFlag} goes with --${command.flag}`);
    return metrics;
  }
  if (line.trim() === '') throw new UsageError(`--${command.flag} needs a command`);
  const timeout = typeof rawTimeout !== 'string' ? command.defaultTimeoutSeconds : DECIMAL.test(rawTimeout.trim()) ? Number(rawTimeout) : Number.NaN;
  if (!Number.isFinite(timeout) || timeout <= 0) {
    throw new Refusal(`--${command.timeoutFlag} takes a number of seconds above 0, not ${JSON.stringify(String(rawTimeout))}`);
  }
  // Before running anything: a retry of a recorded --event-id and a record that would be refused run nothing.
  const probe = command.withRun(metrics, { command: line, exitCode: 0, durationMs: 0, timedOut: false });
  if (session.dryRun({ type: 'metrics.recorded', data: { policy, metrics: probe } }, write) !== 'new') return probe;
  return command.withRun(metrics, runRecordCommand(command.flag, line, timeout, io));
}
