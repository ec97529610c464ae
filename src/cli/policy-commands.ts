import { spawnSync } from 'node:child_process';
import * as z from 'zod';
import { policyStates, Refusal } from '../core/index.js';
import type { GapflowEvent } from '../../events/index.js';
import { checkInputText, EVENT_INPUT, readInputFile, writeSessionFile } from '../log/index.js';
import { metricPolicies, POLICY_NAMES, policyNamed, qualityReport, questionsFrontmatter, type AnyPolicy, type FlagSpec, type FlagValues } from '../policies/index.js';
import { renderPolicyCheck, renderRoundReport } from '../render/index.js';
import type { Session } from '../session/index.js';
import { list, parse, UsageError } from './args.js';
import { announce, type CliIO, type Command, open, printJson, sessionDir, parseUserJson } from './common.js';
import { WRITE_OPTIONS, writeOptions } from './log-options.js';

/** `--<policy>-<setting>` for every metric policy, plus `--policy` and `--complete-when`, for `init`. */
export function policyInitOptions(): Record<string, { type: 'string' }> {
  const options: Record<string, { type: 'string' }> = { policy: { type: 'string' }, 'complete-when': { type: 'string' } };
  for (const policy of metricPolicies()) {
    for (const flag of Object.keys(policy.settingFlags)) options[`${policy.name}-${flag}`] = { type: 'string' };
  }
  return options;
}

/** A decimal as people type it: `85`, `-1`, `0.8`, `.8`, `8.`, `1e3`. */
const DECIMAL = /^[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i;

/** A flag's word as the schemas want it: a number, a boolean, or a lower-cased word (they judge the rest). */
function settingValue(raw: string): unknown {
  const word = raw.trim();
  if (DECIMAL.test(word)) return Number(word);
  if (word === 'true' || word === 'false') return word === 'true';
  return word.toLowerCase();
}

/** The session settings that `init`'s policy flags ask for; session.started's check judges them. */
export function policyInitSettings(values: Record<string, unknown>) {
  const policies = list(typeof values.policy === 'string' ? values.policy.toLowerCase() : undefined);
  if (policies !== undefined && policies.length === 0) throw new UsageError(`--policy needs one or more of ${POLICY_NAMES.join(', ')}`);
  const completeWhen = typeof values['complete-when'] === 'string' ? values['complete-when'].trim().toLowerCase() : undefined;
  const policySettings: Record<string, Record<string, unknown>> = {};
  for (const policy of metricPolicies()) {
    for (const [flag, key] of Object.entries(policy.settingFlags)) {
      const raw = values[`${policy.name}-${flag}`];
      if (typeof raw === 'string') (policySettings[policy.name] ??= {})[key] = settingValue(raw);
    }
  }
  return {
    policies,
    completeWhen,
    policySettings: Object.keys(policySettings).length > 0 ? policySettings : undefined,
  };
}

/** `record POLICY --json FILE|-` names the input; a bare `--json` (or one before another option) asks for JSON output. */
function takeJsonInput(argv: string[]): { rest: string[]; input: string | undefined } {
  const rest: string[] = [];
  let input: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i]!;
    const next = argv[i + 1];
    if (word.startsWith('--json=')) input = word.slice('--json='.length);
    else if (word === '--json' && next !== undefined && (next === '-' || !next.startsWith('-'))) {
      input = next;
      i += 1;
    } else rest.push(word);
  }
  return { rest, input };
}

function readMetricsJson(input: string, io: CliIO): Record<string, unknown> {
  let text: string;
  if (input === '-') {
    if (!io.stdin) throw new UsageError('--json - reads standard input, which this caller does not provide');
    text = checkInputText(io.stdin(EVENT_INPUT), 'standard input', EVENT_INPUT);
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
  if (typeof json !== 'object' || json === null || Array.isArray(json)) throw new Refusal(`--json ${input === '-' ? '(stdin)' : input}: the metrics must be a JSON object`);
  return json as Record<string, unknown>;
}

const VERIFY_FLAGS = { verify: { type: 'string' }, 'verify-timeout': { type: 'string' } } as const;

/**
 * Runs in a child node: starts the command in a process group of its own
 * and, on timeout, kills the whole group, so no grandchild outlives it.
 * Prints {exitCode, durationMs, timedOut} as JSON.
 */
const VERIFY_SCRIPT = `
const { spawn } = require('node:child_process');
const [command, ms] = process.argv.slice(1);
const start = performance.now();
let timedOut = false;
const done = (exitCode) => process.stdout.write(JSON.stringify({ exitCode, durationMs: Math.round(performance.now() - start), timedOut }));
const child = spawn('/bin/sh', ['-c', command], { detached: true, stdio: 'ignore' });
const timer = setTimeout(() => {
  timedOut = true;
  try { process.kill(-child.pid, 'SIGKILL'); } catch {}
}, Number(ms));
child.on('error', () => { clearTimeout(timer); done(null); });
child.on('exit', (code) => { clearTimeout(timer); done(timedOut ? null : code); });
`;

/** Runs the atoms base-case command at the edge, once; the event keeps what it did so replay never runs it. */
function runVerify(command: string, timeoutSeconds: number, io: CliIO) {
  const timeoutMs = Math.ceil(timeoutSeconds * 1000);
  // The outer limit only guards against the runner itself hanging; the runner enforces the timeout.
  const result = spawnSync(process.execPath, ['-e', VERIFY_SCRIPT, command, String(timeoutMs)], {
    cwd: io.cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
    timeout: timeoutMs + 30_000,
    killSignal: 'SIGKILL',
  });
  const parsed = VerifyOutcome.safeParse(safeJson(result.stdout));
  if (!parsed.success) throw new Refusal(`--verify: could not run ${JSON.stringify(command.slice(0, 80))} (${result.error?.message ?? 'the runner gave no result'})`);
  return { command, ...parsed.data };
}

const VerifyOutcome = z.strictObject({ exitCode: z.int().nullable(), durationMs: z.number().min(0), timedOut: z.boolean() });

function safeJson(text: string | null): unknown {
  try {
    return JSON.parse(text ?? '');
  } catch {
    return undefined;
  }
}

/** One clear line for a record flag whose value is not the kind of number it takes; the schema judges the range. */
function checkFlagValues(flags: Readonly<Record<string, FlagSpec>>, values: Record<string, unknown>): void {
  for (const [flag, spec] of Object.entries(flags)) {
    if (spec.type !== 'string' || spec.value === undefined) continue;
    const given = values[flag];
    for (const raw of Array.isArray(given) ? given : given === undefined ? [] : [given]) {
      const word = String(raw).trim();
      const shown = JSON.stringify(String(raw).slice(0, 40));
      if (spec.value === 'whole' && !/^\d+$/.test(word)) throw new Refusal(`--${flag} takes a whole number ≥ 0, not ${shown}`);
      if (spec.value === 'number' && !DECIMAL.test(word)) throw new Refusal(`--${flag} takes a number, not ${shown}`);
    }
  }
}

function policyArgument(name: string | undefined): AnyPolicy {
  const known = metricPolicies().map((p) => p.name).join(', ');
  if (name === undefined || name.startsWith('-')) throw new UsageError(`record needs a policy: ${known}`);
  const policy = policyNamed(name.toLowerCase());
  if (!policy) {
    const why = name === 'gaps' ? 'gaps are recorded with gapflow gap …' : `unknown policy "${name}"`;
    throw new UsageError(`${why}; record takes ${known}`);
  }
  return policy;
}

/** `record POLICY …`: one iteration's metrics. */
export const record: Command = (argv, io) => {
  const [name, ...words] = argv;
  const policy = policyArgument(name);
  const { rest, input } = takeJsonInput(words);
  const flags: Record<string, FlagSpec> = { ...policy.recordFlags, ...(policy.name === 'atoms' ? VERIFY_FLAGS : {}), ...WRITE_OPTIONS };
  // parseArgs knows only type and multiple.
  const options = Object.fromEntries(Object.entries(flags).map(([flag, spec]) => [flag, spec.type === 'string' && spec.multiple ? { type: spec.type, multiple: true } : { type: spec.type }]));
  const { values } = parse(rest, options as Record<string, { type: 'string' | 'boolean'; multiple?: boolean }>, []);
  const given = Object.keys(policy.recordFlags).filter((flag) => values[flag] !== undefined);
  if (input !== undefined && given.length > 0) throw new UsageError(`give ${policy.name}'s metrics as flags or as --json, not both`);
  if (input === undefined && given.length === 0) {
    const how = Object.keys(policy.recordFlags).map((f) => `--${f}`).join(', ');
    throw new UsageError(`record ${policy.name} needs its metrics: ${how ? `${how}, or ` : ''}--json FILE|-`);
  }
  checkFlagValues(policy.recordFlags, values);
  const metrics = input !== undefined ? readMetricsJson(input, io) : policy.fromFlags(values as FlagValues);
  const session = open(values, io);
  const write = writeOptions(values as Parameters<typeof writeOptions>[0]);
  const verifyCommand = values.verify as string | undefined;
  if (verifyCommand !== undefined) {
    if (verifyCommand.trim() === '') throw new UsageError('--verify needs a command');
    const rawTimeout = values['verify-timeout'] as string | undefined;
    const timeout = rawTimeout === undefined ? 300 : DECIMAL.test(rawTimeout.trim()) ? Number(rawTimeout) : Number.NaN;
    if (!Number.isFinite(timeout) || timeout <= 0) throw new Refusal(`--verify-timeout takes a number of seconds above 0, not ${JSON.stringify(String(rawTimeout))}`);
    // Before running anything: a retry of a recorded --event-id and a record that would be refused run nothing.
    const probe = { ...metrics, verify: { command: verifyCommand, exitCode: 0, durationMs: 0 } };
    if (session.dryRun({ type: 'metrics.recorded', data: { policy: policy.name, metrics: probe } }, write) === 'new') {
      metrics.verify = runVerify(verifyCommand, timeout, io);
    } else {
      metrics.verify = probe.verify;
    }
  } else if (values['verify-timeout'] !== undefined) {
    throw new UsageError('--verify-timeout goes with --verify');
  }
  const recorded = session.recordMetrics(policy.name, metrics, write);
  const { events } = recorded;
  const written = writePolicyReports(session, io, values.dir, events);
  announce(io, session, recorded, values.json, () => {
    const own = events.find((e) => e.type === 'metrics.recorded');
    const round = own?.type === 'metrics.recorded' ? own.data.round : session.view.rounds.length;
    const state = policyStates(session.view).find((p) => p.name === policy.name);
    const lines = [`Recorded ${policy.name} for round ${round}: ${state?.verdict} (${state?.reason}): ${state?.detail}`];
    for (const path of written) lines.push(`Wrote ${path}`);
    if (events.some((e) => e.type === 'round.closed')) lines.push(renderRoundReport(session.view).trimEnd());
    return lines.join('\n');
  });
};

/**
 * Seed 004: each quality iteration's report, `quality/v<N>/scores.json`
 * under the session folder, for every quality `metrics.recorded` among
 * `events` (however they came: `record`, `append`). Returns the paths written.
 */
export function writePolicyReports(session: Session, io: CliIO, dir: string | undefined, events: readonly GapflowEvent[]): string[] {
  const rounds = events.flatMap((e) => (e.type === 'metrics.recorded' && e.data.policy === 'quality' && e.data.round !== undefined ? [e.data.round] : []));
  if (rounds.length === 0) return [];
  const records = session.view.policies.records.get('quality') ?? [];
  const history = records.map((r) => r.metrics) as Parameters<typeof qualityReport>[1];
  const settings = session.view.policies.settings.get('quality') as Parameters<typeof qualityReport>[0];
  const written: string[] = [];
  for (const round of rounds) {
    const n = records.findIndex((r) => r.round === round) + 1;
    if (n === 0) continue;
    const report = qualityReport(settings, history, n);
    written.push(writeSessionFile(sessionDir(dir, io), `quality/v${report.iteration}/scores.json`, `${JSON.stringify(report, null, 2)}\n`));
  }
  return written;
}

/** `check [--verbose]`: each policy's current verdict; verbose adds seed 000's CONVERGENCE CHECK tree. */
export const check: Command = (argv, io) => {
  const { values } = parse(argv, { verbose: { type: 'boolean' } }, []);
  const session = open(values, io);
  if (values.json) return printJson(io, { policies: policyStates(session.view), state: session.view.machine.state });
  io.stdout(renderPolicyCheck(session.view, values.verbose === true));
};

/** `state --format frontmatter`: seed 000's `convergence:` block for the questions policy. */
export function questionsFrontmatterOf(session: Session): string {
  if (!session.view.policies.enabled.includes('questions')) {
    throw new Refusal(`state --format frontmatter: the questions policy is not enabled (enabled: ${session.view.policies.enabled.join(', ')})`);
  }
  const history = (session.view.policies.records.get('questions') ?? []).map((r) => r.metrics);
  return questionsFrontmatter(session.view.policies.settings.get('questions') as Parameters<typeof questionsFrontmatter>[0], history as Parameters<typeof questionsFrontmatter>[1]);
}
