import { GATE_DEFAULT_TIMEOUT_SECONDS, GATE_FLAG, GATE_TIMEOUT_FLAG, Refusal, type SessionView } from '../core/index.js';
import {
  decidedLine,
  gapMovedLine,
  gapOpenedLine,
  gapRenamedLine,
  gapSplitLine,
  initLines,
  recordedButNotWrittenLine,
  roundClosedLines,
  roundStartedLine,
  severityChangedLine,
} from '../render/index.js';
import { FileLog, writeSessionConfig } from '../log/index.js';
import {
  changeSeverityBody,
  closeRoundBody,
  recordMetricsBody,
  moveGapBody,
  openGapBody,
  parseBody,
  renameGapBody,
  Session,
  splitGapBody,
  startRoundBody,
} from '../session/index.js';
import type { BodyOf, DecisionKind, EventBodyInput, SessionSettings, Severity } from '../../events/index.js';
import { GAP_STATE_WORDS, PRESET_WORDS, ROUND_KIND_WORDS, SEVERITY_WORDS, shownValue, VERIFY_TIMEOUT_MAX } from '../../events/index.js';
import { DECIMAL, dashed, list, type ParsedCall, UsageError, type VerbCall, wholeNumber, wordOf, writeOptions } from './args.js';
import { announce, command, databaseSession, databaseStore, type CliIO, newSessionDir, open, type WhereOptions } from './common.js';
import { policyInitSettings } from './policy-commands.js';
import type { DECIDE_FLAGS, GAP_VERBS, INIT_FLAGS, ROUND_START, WRITE_OPTIONS } from './entries.js';
import { gatedBatch, throughGate } from './gate.js';
import { keepTypedCommand } from './trust.js';
import { validateFlagValues } from './record.js';
import { metricPolicies, type FlagValues } from '../policies/index.js';

// Dispatch comes from this module for the commands here, so the bin's build bundles the two as one file (entries.ts, EntryBase.dispatch).
export { dispatchBin } from './dispatch.js';

/** `gapflow init`: a new session with its settings (and, with `--agent-session`, bound to that agent). */
export const init = command<ParsedCall<typeof INIT_FLAGS & typeof WRITE_OPTIONS>>(({ values }, io) => {
  // The gate's and the policies' flags come from the registries (WordParts.initFlags).
  const registered = values as Record<string, string | undefined>;
  const settings = {
    preset: values.preset === undefined ? undefined : wordOf('--preset', values.preset, PRESET_WORDS),
    stallThreshold: wholeNumber('stall-threshold', values['stall-threshold']),
    divergenceThreshold: wholeNumber('divergence-threshold', values['divergence-threshold']),
    maxRounds: wholeNumber('max-rounds', values['max-rounds']),
    criticalOverride: values['no-critical-override'] ? false : undefined,
    pingPong: wholeNumber('ping-pong', values['ping-pong']),
    verify: gateSetting(registered[GATE_FLAG], registered[GATE_TIMEOUT_FLAG]),
    ...policyInitSettings(values),
  };
  const database = databaseSession(values, io);
  if (database !== null && values['write-status']) {
    throw new UsageError(
      'init --write-status keeps status.md in the session folder, and a database session has none: run `gapflow status --write --dir FOLDER` when you want the file',
    );
  }
  const dir = database === null ? newSessionDir(values, io) : null;
  const agentSession = values['agent-session'];
  // Judged before the log exists, so a bad id leaves no half-made session behind.
  const bound = agentSession === undefined ? undefined : (parseBody({ type: 'session.bound', data: { agentSession } }) as BodyOf<'session.bound'>);
  // The schema judges the preset's spelling; the cast only lets it see the raw word.
  const made = Session.init(dir === null ? databaseStore(database!) : new FileLog(dir), settings as SessionSettings, undefined, writeOptions(values));
  const { session } = made;
  // A retried init (same --event-id) finds the session made and, if it went that far, bound.
  const binding = bound && session.view.agentSession !== bound.data.agentSession ? session.record(bound).events : [];
  const events = made.duplicate ? made.events : [...made.events, ...binding];
  // Set as asked, also over a config a session that lived here before left behind.
  const writeStatus = values['write-status'] === true;
  if (dir !== null) keepConfig(dir, writeStatus, events[0]!.id, io);
  if (settings.verify !== undefined) keepTypedCommand(session, settings.verify.command, io);
  announce(io, session, { events, duplicate: made.duplicate }, values.json, () => initLines(dir ?? session.log.location, session.view, writeStatus));
});

/**
 * The session's config.json, once its log exists: one that cannot be written
 * costs the setting, not the init (the session is made, and an init run again
 * without its event id would be refused); the same init with that id writes it.
 */
function keepConfig(dir: string, writeStatus: boolean, startedId: string, io: CliIO): void {
  try {
    writeSessionConfig(dir, { writeStatus });
  } catch (error) {
    const why = error instanceof Error ? error.message.split('\n')[0]! : String(error);
    io.stderr(recordedButNotWrittenLine('config.json', `${why} (the same init with --event-id ${startedId} writes it)`));
  }
}

/** The verification gate's flags at init: its command and time limit (session.started's schema judges the rest). */
function gateSetting(command: string | undefined, timeout: string | undefined): SessionSettings['verify'] {
  const [flag, timeoutFlag] = [`--${GATE_FLAG}`, `--${GATE_TIMEOUT_FLAG}`];
  if (command === undefined) {
    if (timeout !== undefined) throw new UsageError(`${timeoutFlag} goes with ${flag}`);
    return undefined;
  }
  if (command.trim() === '') throw new UsageError(`${flag} needs a command`);
  if (timeout === undefined) return { command, timeoutSeconds: GATE_DEFAULT_TIMEOUT_SECONDS };
  const seconds = DECIMAL.test(timeout.trim()) ? Number(timeout) : Number.NaN;
  if (!Number.isFinite(seconds) || seconds <= 0 || seconds > VERIFY_TIMEOUT_MAX) {
    throw new Refusal(`${timeoutFlag} takes a number of seconds above 0 and at most ${VERIFY_TIMEOUT_MAX}, not ${shownValue(timeout)}`, undefined, {
      field: timeoutFlag,
      value: timeout,
      valid: null,
      suggestion: null,
    });
  }
  return { command, timeoutSeconds: seconds };
}

export const gap = command<VerbCall<typeof GAP_VERBS>>((call, io) => {
  switch (call.verb) {
    case 'open': {
      const { values, args } = call;
      if (values.severity === undefined) throw new UsageError('gap open needs --severity CRITICAL|HIGH|MEDIUM|LOW|UNTRIAGED');
      const body = openGapBody(args[0]!, wordOf('--severity', values.severity, SEVERITY_WORDS, { about: `gap open ${args[0]!}` }), {
        title: values.title,
        spawnedBy: values['spawned-by'],
        blocking: values['non-blocking'] ? false : undefined,
      });
      return recordAndAnnounce(io, values, body, (_, after) => gapOpenedLine(after, args[0]!));
    }
    case 'move': {
      const { values, args } = call;
      const to = wordOf('STATE', args[1]!, GAP_STATE_WORDS, { about: `gap move ${args[0]!}` });
      if (to === 'DUPLICATE' && values.of === undefined) throw new UsageError(`gap move ${args[0]!} DUPLICATE needs --of ID (the gap it duplicates)`);
      const body = moveGapBody(args[0]!, to, { reason: values.reason, blockedBy: values['blocked-by'], of: values.of });
      return recordAndAnnounce(io, values, body, (before, after) => gapMovedLine(before, after, args[0]!));
    }
    case 'severity': {
      const { values, args } = call;
      const body = changeSeverityBody(args[0]!, wordOf('SEVERITY', args[1]!, SEVERITY_WORDS, { about: `gap severity ${args[0]!}` }));
      return recordAndAnnounce(io, values, body, (before, after) => severityChangedLine(before, after, args[0]!));
    }
    case 'split': {
      const { values, args } = call;
      if (values.into === undefined) throw new UsageError(`gap split ${args[0]!} needs --into ID:SEVERITY,ID:SEVERITY[,...]`);
      const body = splitGapBody(args[0]!, splitParts(args[0]!, values.into), { reason: values.reason });
      return recordAndAnnounce(io, values, body, (_, after) => gapSplitLine(after, args[0]!));
    }
    case 'rename': {
      const { values, args } = call;
      return recordAndAnnounce(io, values, renameGapBody(args[0]!, args[1]!), () => gapRenamedLine(args[0]!, args[1]!));
    }
  }
});

/**
 * `--into A:HIGH,B:low`: each part's id and severity (any spelling); a part
 * without a severity is invalid input naming it. The id's own rules are the
 * schema's to judge.
 */
function splitParts(id: string, into: string): { id: string; severity: Severity }[] {
  return into
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean)
    .map((item) => {
      const at = item.lastIndexOf(':');
      if (at <= 0) {
        throw new Refusal(`gap split ${id}: --into: part ${shownValue(item)} needs a severity (ID:SEVERITY, as A:HIGH)`, undefined, {
          field: '--into',
          value: item,
          valid: null,
          suggestion: null,
        });
      }
      const partId = item.slice(0, at);
      return { id: partId, severity: wordOf('--into', item.slice(at + 1), SEVERITY_WORDS, { about: `gap split ${id}: part ${partId}` }) };
    });
}

/** A gap or round request, or one worded from the session as it stands (a round's number). */
type GapOrRound = EventBodyInput | ((view: SessionView) => EventBodyInput);

/**
 * Records one gap or round request and announces it. The session opens from
 * its head checkpoint when that is current, so a gap or round write costs
 * what changed, not the log's length; `--json` prints the whole state, which
 * reads the whole view after the write.
 */
function recordAndAnnounce(
  io: CliIO,
  values: Parameters<typeof writeOptions>[0] & WhereOptions & { json?: boolean | undefined },
  body: GapOrRound,
  line: (before: SessionView, after: SessionView) => string,
): void {
  const session = open(values, io, { head: true });
  const before = session.current;
  const recorded = session.record(typeof body === 'function' ? body(before) : body, writeOptions(values));
  announce(io, session, recorded, values.json, () => line(session.before ?? before, session.current));
}

/** `round close`'s call: the write options, and the record flags of the policies that record on the close (WordParts.closeFlags). */
type RoundClose = ParsedCall<typeof WRITE_OPTIONS> & { verb: 'close' };

export const round = command<(ParsedCall<(typeof ROUND_START)['flags']> & { verb: 'start' }) | RoundClose>((call, io) => {
  if (call.verb === 'start') {
    const { values } = call;
    const kind = values.kind === undefined ? undefined : wordOf('--kind', values.kind, ROUND_KIND_WORDS, { about: 'round start' });
    return recordAndAnnounce(
      io,
      values,
      (view) => startRoundBody(view, kind),
      (_, after) => roundStartedLine(after),
    );
  }
  const { values } = call;
  const closers = metricPolicies().filter((policy) => policy.recordOnClose);
  const given = values as Record<string, unknown>;
  const records = closers.filter((policy) => Object.keys(policy.recordFlags).some((flag) => given[flag] !== undefined));
  for (const policy of records) validateFlagValues(policy.recordFlags, given);
  if (records.length > 0)
    return closeWithRecords(
      io,
      values,
      records.map((policy) => ({ policy: policy.name, metrics: policy.fromFlags(given as FlagValues) })),
    );
  // A close that would complete a session with a verification check runs the check first (gate.ts).
  throughGate(
    io,
    () => open(values, io),
    'round_close',
    values.json,
    () => recordAndAnnounce(io, values, closeRoundBody, (_, after) => roundClosedLines(after)),
  );
});

/**
 * `round close` with the record flags of a policy that takes them there
 * (`recordOnClose`): its record for the round and the close, appended together
 * or not at all (a close that would be refused leaves no record behind).
 * `--event-id ID` names the close; each record takes `ID:POLICY`, so a
 * retry finds them all.
 */
function closeWithRecords(
  io: CliIO,
  values: Parameters<typeof writeOptions>[0] & { dir?: string | undefined; json?: boolean | undefined },
  records: { policy: string; metrics: Record<string, unknown> }[],
): void {
  const write = writeOptions(values);
  const before = open(values, io).view;
  const requests = [
    ...records.map(({ policy, metrics }) => ({
      body: recordMetricsBody(policy, metrics),
      id: write.eventId === undefined ? undefined : `${write.eventId}:${policy}`,
    })),
    { body: closeRoundBody(before), id: write.eventId },
  ];
  // A close that would complete a session with a verification check: the check's run goes into the batch just
  // before the close (recorded first, the run would no longer be the last event when the close is decided).
  const gated = gatedBatch(
    requests.map((request, i) => ({ ...request, line: i + 1 })),
    values,
    io,
  );
  const session = gated?.session ?? open(values, io);
  const { groups, appended } = gated ? gated.record(null, write.expectSeq) : session.recordAll(requests, null, { expectSeq: write.expectSeq });
  announce(io, session, { events: groups.flat(), duplicate: appended.length === 0 }, values.json, () => roundClosedLines(session.view));
}

/**
 * `gapflow decide KIND`: the user's decision. KIND is spelt as the log
 * spells it or with `-` (`narrow-scope`, `NARROW_SCOPE`); a word that is no
 * decision is invalid input (exit 1), none at all a usage error (exit 2).
 */
export const decide = command<ParsedCall<typeof DECIDE_FLAGS> & { verb: DecisionKind }>(({ verb: kind, values, args }, io) => {
  // The kind as the log spells it (WordParts.decide), and its N for `extend-rounds` (R24).
  const rounds = kind === 'extend_rounds' ? roundsToAdd(args[0]!) : undefined;
  const session = open(values, io);
  let before = session.view;
  // An approval that would complete a session with a verification check runs the check first (gate.ts).
  const events = throughGate(
    io,
    () => session,
    'approve',
    values.json,
    () => {
      before = session.view;
      return session.makeDecision(
        kind,
        { gaps: list(values.gaps), acceptCritical: values['accept-critical'], rationale: values.rationale, rounds },
        writeOptions(values),
      );
    },
  );
  announce(io, session, events, values.json, () => decidedLine(dashed(kind), before, session.view));
});

/** The N of `decide extend-rounds N`: a whole number of rounds, 1 or more. */
function roundsToAdd(value: string): number {
  if (!/^\d+$/.test(value.trim()) || Number(value) < 1) {
    throw new Refusal(`decide extend-rounds N takes a whole number of rounds from 1, not ${shownValue(value)}`, undefined, {
      field: 'N',
      value,
      valid: null,
      suggestion: null,
    });
  }
  return Number(value);
}
