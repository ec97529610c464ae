import { parseBody } from '../core/index.js';
import { decidedLine, gapMovedLine, gapOpenedLine, initLines, roundClosedLines, roundStartedLine, severityChangedLine } from '../render/index.js';
import { FileLog } from '../log/index.js';
import { Session } from '../session/index.js';
import type { BodyOf, DecisionKind, GapState, SessionSettings, Severity } from '../../events/index.js';
import { enumWord, list, parse, UsageError, wholeNumber } from './args.js';
import { announce, type Command, open, sessionDir } from './common.js';
import { policyInitOptions, policyInitSettings } from './policy-commands.js';
import { WRITE_OPTIONS, writeOptions } from './log-options.js';

/** `gapflow init`: a new session with its settings (and, with `--agent-session`, bound to that agent). */
export const init: Command = (argv, io) => {
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
  const events = made.duplicate ? made.events : [...made.events, ...binding];
  announce(io, session, { events, duplicate: made.duplicate }, values.json, () => initLines(dir, session.view));
};

export const gap: Command = (argv, io) => {
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
      return announce(io, session, events, values.json, () => gapOpenedLine(session.view, args[0]!));
    }
    case 'move': {
      const { values, args } = parse(rest, { reason: { type: 'string' }, 'blocked-by': { type: 'string' }, ...WRITE_OPTIONS }, ['ID', 'STATE']);
      const session = open(values, io);
      const before = session.view;
      const events = session.moveGap(args[0]!, enumWord(args[1]!) as GapState, {
        reason: values.reason,
        blockedBy: values['blocked-by'],
      }, writeOptions(values));
      return announce(io, session, events, values.json, () => gapMovedLine(before, session.view, args[0]!));
    }
    case 'severity': {
      const { values, args } = parse(rest, { ...WRITE_OPTIONS }, ['ID', 'SEVERITY']);
      const session = open(values, io);
      const before = session.view;
      const events = session.changeSeverity(args[0]!, enumWord(args[1]!) as Severity, writeOptions(values));
      return announce(io, session, events, values.json, () => severityChangedLine(before, session.view, args[0]!));
    }
    default:
      throw new UsageError(verb && !verb.startsWith('-') ? `unknown gap command "${verb}" (open, move, severity)` : 'gap needs open, move or severity');
  }
};

export const round: Command = (argv, io) => {
  const [verb, ...rest] = argv;
  if (verb !== 'start' && verb !== 'close') {
    throw new UsageError(verb && !verb.startsWith('-') ? `unknown round command "${verb}" (start, close)` : 'round needs start or close');
  }
  const { values } = parse(rest, { ...WRITE_OPTIONS }, []);
  const session = open(values, io);
  if (verb === 'start') return announce(io, session, session.startRound(writeOptions(values)), values.json, () => roundStartedLine(session.view));
  announce(io, session, session.closeRound(writeOptions(values)), values.json, () => roundClosedLines(session.view));
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

export const decide: Command = (argv, io) => {
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
  const before = session.view;
  const events = session.makeDecision(kind, {
    gaps: list(values.gaps),
    acceptCritical: values['accept-critical'],
    rationale: values.rationale,
  }, writeOptions(values));
  announce(io, session, events, values.json, () => decidedLine(word!, before, session.view));
};
