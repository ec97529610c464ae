import { spawnSync } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { Refusal } from '../core/index.js';
import { readInputFile, writeSessionFile } from '../log/index.js';
import { metricPolicies, POLICY_NAMES, policyNamed, qualityReport, questionsFrontmatter, type AnyPolicy, type FlagSpec, type FlagValues } from '../policies/index.js';
import { renderPolicyCheck } from '../render/index.js';
import type { Session } from '../session.js';
import { list, parse, UsageError } from './args.js';
import { announce, type CliIO, type Command, open, printJson, sessionDir } from './common.js';
import { WRITE_OPTIONS, writeOptions } from './log-options.js';

/** `--<policy>-<setting>` for every metric policy, plus `--policy` and `--complete-when`, for `init`. */
export function policyInitOptions(): Record<string, { type: 'string' }> {
  const options: Record<string, { type: 'string' }> = { policy: { type: 'string' }, 'complete-when': { type: 'string' } };
  for (const policy of metricPolicies()) {
    for (const flag of Object.keys(policy.settingFlags)) options[`${policy.name}-${flag}`] = { type: 'string' };
  }
  return options;
}

/** A flag's word as the schemas want it: a number, a boolean, or a lower-cased word (they judge the rest). */
function settingValue(raw: string): unknown {
  const word = raw.trim();
  if (/^-?\d+(\.\d+)?$/.test(word)) return Number(word);
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
    text = io.stdin();
  } else {
    try {
      text = readInputFile(input, io.cwd);
    } catch (error) {
      throw new Refusal(`--json ${input}: cannot read it (${error instanceof Error && 'code' in error ? String(error.code) : 'unreadable'})`);
    }
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new Refusal(`--json ${input === '-' ? '(stdin)' : input}: not valid JSON`);
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) throw new Refusal(`--json ${input === '-' ? '(stdin)' : input}: the metrics must be a JSON object`);
  return json as Record<string, unknown>;
}

const VERIFY_FLAGS = { verify: { type: 'string' }, 'verify-timeout': { type: 'string' } } as const;

/** Runs the atoms base-case command at the edge, once; the event keeps what it did so replay never runs it. */
function runVerify(command: string, timeoutSeconds: number, io: CliIO) {
  const start = performance.now();
  const result = spawnSync(command, { shell: true, cwd: io.cwd, timeout: timeoutSeconds * 1000, stdio: 'ignore', killSignal: 'SIGKILL' });
  const durationMs = Math.round(performance.now() - start);
  const timedOut = (result.error as NodeJS.ErrnoException | undefined)?.code === 'ETIMEDOUT';
  return { command, exitCode: result.status, durationMs, timedOut };
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
  const { values } = parse(rest, flags as Record<string, { type: 'string' | 'boolean'; multiple?: boolean }>, []);
  const given = Object.keys(policy.recordFlags).filter((flag) => values[flag] !== undefined);
  if (input !== undefined && given.length > 0) throw new UsageError(`give ${policy.name}'s metrics as flags or as --json, not both`);
  if (input === undefined && given.length === 0) {
    const how = Object.keys(policy.recordFlags).map((f) => `--${f}`).join(', ');
    throw new UsageError(`record ${policy.name} needs its metrics: ${how ? `${how}, or ` : ''}--json FILE|-`);
  }
  const metrics = input !== undefined ? readMetricsJson(input, io) : policy.fromFlags(values as FlagValues);
  const session = open(values, io);
  const verifyCommand = values.verify as string | undefined;
  if (verifyCommand !== undefined) {
    if (verifyCommand.trim() === '') throw new UsageError('--verify needs a command');
    const timeout = Number(values['verify-timeout'] ?? 300);
    if (!Number.isFinite(timeout) || timeout <= 0) throw new Refusal(`--verify-timeout takes a number of seconds, not "${String(values['verify-timeout'])}"`);
    // Check the record could go in before running anything.
    session.dryRun({ type: 'metrics.recorded', data: { policy: policy.name, metrics: { ...metrics, verify: { command: verifyCommand, exitCode: 0, durationMs: 0 } } } });
    metrics.verify = runVerify(verifyCommand, timeout, io);
  } else if (values['verify-timeout'] !== undefined) {
    throw new UsageError('--verify-timeout goes with --verify');
  }
  const events = session.recordMetrics(policy.name, metrics, writeOptions(values as Parameters<typeof writeOptions>[0]));
  const written = policy.name === 'quality' ? writeQualityReport(session, io, values.dir) : undefined;
  announce(io, session, events, values.json, () => {
    const recorded = events.find((e) => e.type === 'metrics.recorded');
    const round = recorded?.type === 'metrics.recorded' ? recorded.data.round : session.view.rounds.length;
    const state = session.state().policies.find((p) => p.name === policy.name);
    const lines = [`Recorded ${policy.name} for round ${round}: ${state?.verdict} (${state?.reason}): ${state?.detail}`];
    if (written) lines.push(`Wrote ${written}`);
    if (events.some((e) => e.type === 'round.closed')) lines.push(session.roundReport().trimEnd());
    return lines.join('\n');
  });
};

/** Seed 004: each iteration's report, `quality/v<N>/scores.json` under the session folder. */
function writeQualityReport(session: Session, io: CliIO, dir: string | undefined): string {
  const history = (session.view.policies.records.get('quality') ?? []).map((r) => r.metrics);
  const report = qualityReport(session.view.policies.settings.get('quality') as Parameters<typeof qualityReport>[0], history as Parameters<typeof qualityReport>[1]);
  return writeSessionFile(sessionDir(dir, io), `quality/v${report.iteration}/scores.json`, `${JSON.stringify(report, null, 2)}\n`);
}

/** `check [--verbose]`: each policy's current verdict; verbose adds seed 000's CONVERGENCE CHECK tree. */
export const check: Command = (argv, io) => {
  const { values } = parse(argv, { verbose: { type: 'boolean' } }, []);
  const session = open(values, io);
  if (values.json) return printJson(io, { policies: session.state().policies, state: session.view.machine.state });
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
