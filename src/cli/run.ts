import { formatCount, moveEffect, parseBody, Refusal, roundLimit, toStateJson, type Remedy } from '../core/index.js';
import { renderPrompt, renderRoundReport, renderStatus, renderSummary } from '../render/index.js';
import { FileLog, LogError, writeStatusFile } from '../log/index.js';
import { Session } from '../session/index.js';
import type { BodyOf, DecisionKind, GapState, SessionSettings, Severity } from '../../events/index.js';
import { enumWord, hoistGlobalOptions, list, parse, UsageError, wholeNumber } from './args.js';
import { announce, type CliIO, type Command, open, openNow, printJson, sessionDir } from './common.js';
import { HELP } from './help.js';
import { viz } from './viz-commands.js';
import { append, hook, next, schema } from './loop-commands.js';
import { check, policyInitOptions, policyInitSettings, questionsFrontmatterOf, record } from './policy-commands.js';
import { repair, unverifiedCode, verify } from './log-commands.js';
import { WRITE_OPTIONS, writeOptions } from './log-options.js';

export type { CliIO } from './common.js';

const init: Command = (argv, io) => {
  const { values } = parse(
    argv,
    {
      preset: { type: 'string' },
      'stall-threshold': { type: 'string' },
      'divergence-threshold': { type: 'string' },
      'max-rounds': { type: 'string' },
      'no-critical-override': { type: 'boolean' },
      'agent-session': { type: 'string' },
      ...policyInitOptions(),
      ...WRITE_OPTIONS,
    },
    [],
  );
  const settings = {
    preset: values.preset?.trim().toLowerCase(),
    stallThreshold: wholeNumber('stall-threshold', values['stall-threshold']),
    divergenceThreshold: wholeNumber('divergence-threshold', values['divergence-threshold']),
    maxRounds: wholeNumber('max-rounds', values['max-rounds']),
    criticalOverride: values['no-critical-override'] ? false : undefined,
    ...policyInitSettings(values),
  };
  const dir = sessionDir(values.dir, io);
  const agentSession = values['agent-session'];
  // Judged before the log exists, so a bad id leaves no half-made session behind.
  const bound = agentSession === undefined ? undefined : (parseBody({ type: 'session.bound', data: { agentSession } }) as BodyOf<'session.bound'>);
  // The schema judges the preset's spelling; the cast only lets it see the raw word.
  const made = Session.init(new FileLog(dir), settings as SessionSettings, undefined, writeOptions(values));
  const { session } = made;
  // A retried init (same --event-id) finds the session made and, if it went that far, bound.
  const binding = bound && session.view.agentSession !== bound.data.agentSession ? session.record(bound).events : [];
  const c = session.view.config;
  announce(io, session, { events: made.duplicate ? made.events : [...made.events, ...binding], duplicate: made.duplicate }, values.json, () =>
    [
      `Created a session in ${dir}`,
      session.view.policies.enabled.includes('gaps')
        ? `  stall_threshold ${c.stallThreshold}, divergence_threshold ${c.divergenceThreshold}, max_rounds ${c.maxRounds}, critical_override ${c.criticalOverride}${settings.preset ? `, preset ${settings.preset}` : ''}`
        : `  stall_threshold ${c.stallThreshold}, max_rounds ${roundLimit(session.view) ?? "none (each policy's own maximum)"}${settings.preset ? `, preset ${settings.preset}` : ''}`,
      ...(settings.policies ? [`  policies ${session.view.policies.enabled.join(', ')} (complete when ${session.view.policies.completeWhen} converged)`] : []),
      session.view.policies.enabled.includes('gaps')
        ? '  Record the baseline gaps, then `gapflow round start`.'
        : '  Record each iteration with `gapflow record POLICY …`.',
    ].join('\n'),
  );
};

const gap: Command = (argv, io) => {
  const [verb, ...rest] = argv;
  switch (verb) {
    case 'open': {
      const { values, args } = parse(
        rest,
        {
          severity: { type: 'string' },
          title: { type: 'string' },
          'spawned-by': { type: 'string' },
          'non-blocking': { type: 'boolean' },
          ...WRITE_OPTIONS,
        },
        ['ID'],
      );
      if (values.severity === undefined) throw new UsageError('gap open needs --severity CRITICAL|HIGH|MEDIUM|LOW');
      const session = open(values, io);
      const events = session.openGap(args[0]!, enumWord(values.severity) as Severity, {
        title: values.title,
        spawnedBy: values['spawned-by'],
        blocking: values['non-blocking'] ? false : undefined,
      }, writeOptions(values));
      const g = session.view.gaps.get(args[0]!)!;
      const when = g.openedInRound === 0 ? 'at baseline' : `in round ${g.openedInRound}`;
      return announce(io, session, events, values.json, () => `Opened ${g.id} (${g.severity}) ${when}; open count ${openNow(session)}`);
    }
    case 'move': {
      const { values, args } = parse(rest, { reason: { type: 'string' }, 'blocked-by': { type: 'string' }, ...WRITE_OPTIONS }, ['ID', 'STATE']);
      const session = open(values, io);
      const before = session.view.gaps.get(args[0]!)?.state;
      const events = session.moveGap(args[0]!, enumWord(args[1]!) as GapState, {
        reason: values.reason,
        blockedBy: values['blocked-by'],
      }, writeOptions(values));
      const g = session.view.gaps.get(args[0]!)!;
      const effect = before && session.view.roundOpen ? moveEffect(before, g.state) : 'none';
      const counted = { resolved: ' (counts as resolved)', reopened: ' (reopened: counts as new)', none: '' }[effect];
      return announce(io, session, events, values.json, () => `${g.id}: ${before} -> ${g.state}${counted}; open count ${openNow(session)}`);
    }
    case 'severity': {
      const { values, args } = parse(rest, { ...WRITE_OPTIONS }, ['ID', 'SEVERITY']);
      const session = open(values, io);
      const before = session.view.gaps.get(args[0]!)?.severity;
      const events = session.changeSeverity(args[0]!, enumWord(args[1]!) as Severity, writeOptions(values));
      const g = session.view.gaps.get(args[0]!)!;
      return announce(io, session, events, values.json, () => `${g.id}: ${before} -> ${g.severity}; weighted open ${formatCount(session.view.open.weighted)}`);
    }
    default:
      throw new UsageError(verb && !verb.startsWith('-') ? `unknown gap command "${verb}" (open, move, severity)` : 'gap needs open, move or severity');
  }
};

const round: Command = (argv, io) => {
  const [verb, ...rest] = argv;
  if (verb !== 'start' && verb !== 'close') {
    throw new UsageError(verb && !verb.startsWith('-') ? `unknown round command "${verb}" (start, close)` : 'round needs start or close');
  }
  const { values } = parse(rest, { ...WRITE_OPTIONS }, []);
  if (verb === 'start') {
    const session = open(values, io);
    const events = session.startRound(writeOptions(values));
    const r = session.view.rounds.at(-1)!;
    return announce(io, session, events, values.json, () =>
      `Round ${r.round} started: open count ${formatCount(r.openStart)} (weighted ${formatCount(r.weightedOpenStart)})`,
    );
  }
  const session = open(values, io);
  const events = session.closeRound(writeOptions(values));
  announce(io, session, events, values.json, () => renderRoundReport(session.view).trimEnd());
};

const DECISIONS: Readonly<Record<string, DecisionKind>> = {
  'narrow-scope': 'narrow_scope',
  'accept-complexity': 'accept_complexity',
  'prioritize-critical': 'prioritize_critical',
  pause: 'pause',
  resume: 'resume',
  'force-complete': 'force_complete',
  abandon: 'abandon',
  approve: 'approve',
};

const decide: Command = (argv, io) => {
  const [word, ...rest] = argv;
  const kind = word !== undefined && Object.hasOwn(DECISIONS, word) ? DECISIONS[word] : undefined;
  if (!kind) {
    const not = word && !word.startsWith('-') ? `, not "${word}"` : '';
    throw new UsageError(`decide needs one of ${Object.keys(DECISIONS).join(', ')}${not}`);
  }
  const { values } = parse(
    rest,
    { gaps: { type: 'string' }, 'accept-critical': { type: 'boolean' }, rationale: { type: 'string' }, ...WRITE_OPTIONS },
    [],
  );
  const session = open(values, io);
  const before = session.view.machine.state;
  const events = session.decide(kind, {
    gaps: list(values.gaps),
    acceptCritical: values['accept-critical'],
    rationale: values.rationale,
  }, writeOptions(values));
  const last = session.view.history.at(-1);
  announce(io, session, events, values.json, () => `${word}: ${before} -> ${session.view.machine.state} (${last?.reason ?? ''})`);
};

const state: Command = (argv, io) => {
  const { values } = parse(argv, { format: { type: 'string' } }, []);
  const session = open(values, io);
  const s = toStateJson(session.view);
  if (values.format !== undefined) {
    if (values.format.trim().toLowerCase() !== 'frontmatter') throw new UsageError(`state --format takes frontmatter, not "${values.format}"`);
    return io.stdout(questionsFrontmatterOf(session));
  }
  if (values.json) return printJson(io, s);
  const gaps = session.view.policies.enabled.includes('gaps');
  io.stdout(
    [
      `State: ${s.state}${s.outcome ? ` (${s.outcome})` : ''}`,
      `Rounds closed: ${s.round}${roundLimit(session.view) === null ? '' : ` of max ${s.config.maxRounds}`}${s.roundOpen ? ` (round ${s.round + 1} open)` : ''}`,
      gaps
        ? `Open count: ${formatCount(s.openGapCount)} (weighted ${formatCount(s.weightedOpen)}); flat_count ${s.flatCount}/${s.config.stallThreshold}`
        : `flat_count ${s.flatCount}/${s.config.stallThreshold}`,
      ...s.policies.filter((p) => p.name !== 'gaps').map((p) => `Policy ${p.name}: ${p.verdict ? `${p.verdict} (${p.reason}): ${p.detail}` : 'no iteration recorded yet'}`),
      `Next: ${s.decision.action}: ${s.decision.reason}`,
      '',
    ].join('\n'),
  );
};

const status: Command = (argv, io) => {
  const { values } = parse(argv, { write: { type: 'boolean' } }, []);
  const session = open(values, io);
  const text = renderStatus(session.view);
  if (!values.write) return io.stdout(text);
  const path = writeStatusFile(sessionDir(values.dir, io), text);
  io.stdout(values.json ? `${JSON.stringify({ written: path })}\n` : `Wrote ${path}\n`);
};

const prompt: Command = (argv, io) => {
  const { values } = parse(argv, {}, []);
  const session = open(values, io);
  const text = renderPrompt(session.view);
  if (values.json) return printJson(io, { due: text !== null, prompt: text, state: session.view.machine.state });
  io.stdout(text ?? `Nothing to decide: the session is ${session.view.machine.state}.\n`);
};

const summary: Command = (argv, io) => {
  const { values } = parse(argv, {}, []);
  const session = open(values, io);
  const text = renderSummary(session.view);
  if (text === null) {
    throw new Refusal(`summary: the session is ${session.view.machine.state}, not COMPLETE; the summary comes when it completes`);
  }
  io.stdout(values.json ? `${JSON.stringify({ summary: text })}\n` : text);
};

const replayCommand: Command = (argv, io) => {
  const { values } = parse(argv, {}, []);
  const session = open(values, io);
  const s = toStateJson(session.view);
  if (values.json) return printJson(io, { events: session.view.lastSeq, state: s });
  io.stdout(`Replayed ${session.view.lastSeq} events: ${s.state}${s.outcome ? ` (${s.outcome})` : ''}, ${s.round} rounds closed, open count ${formatCount(s.openGapCount)}\n`);
};

const COMMANDS: Record<string, Command> = {
  init,
  gap,
  round,
  decide,
  state,
  status,
  prompt,
  summary,
  replay: replayCommand,
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

/** What to type to get past a refusal. */
const REMEDY_HINT: Record<Remedy, string> = {
  resume: 'run: gapflow decide resume',
  decide: 'run: gapflow prompt, for the options',
  start_round: 'run: gapflow round start',
  close_round: 'run: gapflow round close',
  acknowledge_risk: 'add --accept-critical',
  give_rationale: 'add --rationale TEXT',
  name_gaps: 'add --gaps ID[,ID...]',
  record_metrics: 'run: gapflow record POLICY ...',
  record_gap_events: 'run: gapflow gap open|move|severity ...',
  choose_policies_at_init: '--policy',
};

/**
 * An error stays one line whatever a caller typed into it: control and
 * line-breaking characters are shown escaped, as JSON would write them.
 */
function oneLine(message: string): string {
  // eslint-disable-next-line no-control-regex -- control characters are exactly what this escapes
  return message.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, (c) => JSON.stringify(c).slice(1, -1));
}

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
    io.stderr(`gapflow: ${oneLine(error.message)} (gapflow --help lists the commands)\n`);
    return 2;
  }
  if (error instanceof Refusal) {
    const hint = error.remedy ? ` (${REMEDY_HINT[error.remedy]})` : '';
    io.stderr(`gapflow: refused: ${oneLine(error.message)}${hint}\n`);
    return 1;
  }
  if (error instanceof LogError) {
    io.stderr(`gapflow: ${oneLine(error.message)}\n`);
    return 1;
  }
  // An environment failure (permissions, a full disk): one line, never a stack trace.
  const message = error instanceof Error ? error.message : String(error);
  io.stderr(`gapflow: ${oneLine(message.split('\n')[0]!)}\n`);
  return 1;
}
