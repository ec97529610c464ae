import * as z from 'zod';
import {
  ACKNOWLEDGMENT_WORDS,
  AGENT_SESSION_MAX,
  COMPLETE_WHEN_WORDS,
  EVENT_VERSION,
  GATES_WORDS,
  REASON_MAX,
  SPLIT_PARTS_MAX,
  TITLE_MAX,
  VERIFY_COMMAND_MAX,
  VERIFY_OUTPUT_MAX,
  VERIFY_OUTPUT_PATTERN,
  VERIFY_TIMEOUT_MAX,
} from './lean.js';
import {
  ConvergenceState,
  DecisionKind,
  GapId,
  GapState,
  Outcome,
  PolicyName,
  Preset,
  ResumableState,
  RoundKind,
  Severity,
  Text,
  Verdict,
} from './vocabulary.js';

/**
 * The version this build writes. Version 6 adds the ping-pong setting and
 * the verification gate (`verify` at session.started, `verification.ran`);
 * version 5 lines are version 6 lines that use neither. Version 5 adds the gap moves real sessions
 * made: a move to DUPLICATE naming the gap it duplicates (`of`), a split
 * (`gap.split`), a rename (`gap.renamed`), the UNTRIAGED severity, and a
 * round close's withdrawn figures; version 4 lines are version 5 lines that
 * use none of them. Version 4 round closes always carry the
 * combined verdict that drove the machine, a policy's stop request is the
 * `stopped` verdict, and steps name no guard. Version 3 round closes and
 * decisions carry their outcome (what the machine decided, R19);
 * version 2 lines lack it and version 1 lines (gapflow 0.1) also lack the
 * checksum chained to the line before. Older lines are upcast on read (see
 * upcast.ts and the core's outcome upcaster).
 */
export { AGENT_SESSION_MAX, EVENT_VERSION, REASON_MAX, TITLE_MAX } from './lean.js';

const SessionStartedData = z.strictObject({
  preset: Preset.optional(),
  stallThreshold: z.int().min(1).max(1000).optional(),
  divergenceThreshold: z.int().min(0).max(1_000_000).optional(),
  maxRounds: z.int().min(1).max(100_000).optional(),
  criticalOverride: z.boolean().optional(),
  /** The policies that judge each round (R15); `gaps` alone when absent. Names are checked against the registry at decide time. */
  policies: z.array(PolicyName).min(1).max(16).optional(),
  /** Each policy's own settings, validated by that policy's schema at decide time (so replay re-checks them). */
  policySettings: z.record(PolicyName, z.record(z.string().max(64), z.unknown())).optional(),
  /** Whether every enabled policy (`all`, the default) or any one (`any`) must have converged to complete. */
  completeWhen: z.enum(COMPLETE_WHEN_WORDS).optional(),
  /** Ping-pong: how many reopens after a resolve name a gap as going back and forth (2 when absent). */
  pingPong: z.int().min(1).max(1000).optional(),
  /** The verification gate: a shell command that must pass, run when the session would complete as done (converged or approved). */
  verify: z
    .strictObject({
      command: Text(VERIFY_COMMAND_MAX).refine((command) => command.trim() !== '', 'the command is empty'),
      timeoutSeconds: z.number().gt(0).max(VERIFY_TIMEOUT_MAX),
    })
    .optional(),
});

const RoundData = z.strictObject({ round: z.int().min(1) });
/** A request may leave its round out: gapflow numbers it (the next round for a start, the open one for a close). */
const RoundRequestData = z.strictObject({ round: z.int().min(1).optional() });
/** R25: a round starts as `work` unless told; the log records a kind only for a round that is not work. */
const RoundStartRequestData = RoundRequestData.extend({ kind: RoundKind.optional() });
const RoundStartData = RoundData.extend({ kind: RoundKind.optional() });

const GapOpenedData = z.strictObject({
  id: GapId,
  severity: Severity,
  title: Text(TITLE_MAX).default(''),
  spawnedBy: GapId.optional(),
  blocking: z.boolean().default(true),
});

const GapMovedData = z.strictObject({
  id: GapId,
  to: GapState,
  reason: Text(REASON_MAX).optional(),
  /** For a move to BLOCKED: the gap it waits on. */
  blockedBy: GapId.optional(),
  /** For a move to DUPLICATE: the gap it duplicates. */
  of: GapId.optional(),
});

/** One part of a split gap: a new id and its severity (the title, when left out, is the parent's). */
const SplitPart = z.strictObject({
  id: GapId,
  severity: Severity,
  title: Text(TITLE_MAX).optional(),
});

/** A gap split into parts: it closes as SPLIT and its parts open, in one event. */
const GapSplitData = z.strictObject({
  id: GapId,
  into: z.array(SplitPart).min(2, 'a split has at least two parts').max(SPLIT_PARTS_MAX, `a split has at most ${SPLIT_PARTS_MAX} parts`),
  reason: Text(REASON_MAX).optional(),
});

/** A gap given a new id: the gap is the same, the old id is retired for good. */
const GapRenamedData = z.strictObject({ id: GapId, newId: GapId });

const GapSeverityChangedData = z.strictObject({ id: GapId, to: Severity });

/**
 * One run of the verification gate, as the edge ran it when the session
 * would have completed: recorded so that replay reads it and never runs the
 * command again. `output` is the tail of what it printed, made safe to show.
 */
const VerificationRanData = z.strictObject({
  command: Text(VERIFY_COMMAND_MAX),
  /** null when the command was killed (its time limit, a signal) or could not start. */
  exitCode: z.int().nullable(),
  durationMs: z.number().min(0),
  timedOut: z.boolean(),
  output: z.string().max(VERIFY_OUTPUT_MAX).regex(VERIFY_OUTPUT_PATTERN, 'printable text, one line per line').default(''),
  /** What the run was for: the round close or the approval it gates. */
  gates: z.enum(GATES_WORDS),
});

/** The agent session (a Claude Code `session_id`) whose stop hook may drive this session. */
const SessionBoundData = z.strictObject({ agentSession: Text(AGENT_SESSION_MAX).min(1) });
/**
 * One policy's metrics for one round. The payload is the policy's own
 * business: its zod schema judges it at decide time and again on replay.
 */
const MetricsRecordedData = z.strictObject({
  policy: PolicyName,
  /** The round the metrics belong to; filled in by decide when the caller leaves it out. */
  round: z.int().min(1).optional(),
  // A key an object inherits (`constructor`) is refused, not read through; `__proto__` is refused where JSON is parsed.
  metrics: z.record(
    z
      .string()
      .max(64)
      .refine((key) => !['__proto__', 'constructor', 'prototype'].includes(key), 'reserved key name'),
    z.unknown(),
  ),
});

const DecisionMadeData = z.strictObject({
  kind: DecisionKind,
  gaps: z.array(GapId).max(10_000).optional(),
  /** `critical_risk`: the user accepts completing with CRITICAL gaps open. */
  acknowledgment: z.literal(ACKNOWLEDGMENT_WORDS[0]).optional(),
  rationale: Text(2000).optional(),
  /** `extend_rounds` (R24): how many rounds the limit is raised by. */
  rounds: z.int().min(1).max(100_000).optional(),
});

/**
 * The machine's state as a round close or a decision left it: the one small
 * record of it gapflow keeps. `pausedFrom` is the value of the machine's
 * history state while it is PAUSED (where RESUME returns), null otherwise.
 */
export const MachineState = z.strictObject({
  state: ConvergenceState,
  flatCount: z.int().min(0),
  outcome: Outcome.nullable(),
  pausedFrom: ResumableState.nullable(),
});
export type MachineState = z.infer<typeof MachineState>;

/** One state change the machine made (STALLED's pass-through included, R4). */
const MachineStep = z.strictObject({ from: ConvergenceState, to: ConvergenceState });

/** The longest text a recorded verdict carries (its detail, a figure); longer text is cut to this when it is decided. */
export const VERDICT_TEXT_MAX = 10_000;
/** The longest detail of a combined verdict (the deciding policies' details joined). */
export const COMBINED_TEXT_MAX = 20_000;

const Figure = z.union([z.number(), z.string().max(VERDICT_TEXT_MAX), z.boolean(), z.null()]);

const NamedVerdict = z.strictObject({
  policy: PolicyName,
  verdict: Verdict,
  reason: z.string().max(64),
  detail: z.string().max(VERDICT_TEXT_MAX),
  figures: z.record(z.string().max(64), Figure),
});

const CombinedVerdict = z.strictObject({
  verdict: Verdict,
  reason: z.string().max(64),
  policies: z.array(PolicyName).max(16),
  detail: z.string().max(COMBINED_TEXT_MAX),
});

/**
 * What the machine decided when a round closed (R19: history is a
 * fact): the round's figures as they stood, every policy's verdict, the
 * combined verdict that drove the machine (its reason code says why), the
 * state reached and each microstep on the way (STALLED included).
 */
export const RoundOutcome = z.strictObject({
  figures: z.strictObject({
    openEnd: z.number(),
    weightedOpenEnd: z.number(),
    resolved: z.int().min(0),
    new: z.int().min(0),
    weightedResolved: z.number(),
    weightedNew: z.number(),
    /** Gaps withdrawn as duplicates this round (absent: none, as in every line before version 5). */
    withdrawn: z.int().min(0).optional(),
    weightedWithdrawn: z.number().optional(),
    criticalIntroduced: z.array(GapId),
  }),
  verdicts: z.array(NamedVerdict).max(16),
  combined: CombinedVerdict,
  machine: MachineState,
  steps: z.array(MachineStep).max(8),
  /** R25: the round's kind when it was not `work` (a flat round of another kind left flat_count as it was). */
  kind: RoundKind.exclude(['work']).optional(),
});
export type RoundOutcome = z.infer<typeof RoundOutcome>;

/** What the machine decided on a user decision: the state it left and each step taken. */
export const DecisionOutcome = z.strictObject({
  machine: MachineState,
  steps: z.array(MachineStep).max(8),
  /** `extend_rounds` (R24): the round limit the decision left. */
  maxRounds: z.int().min(1).optional(),
});
export type DecisionOutcome = z.infer<typeof DecisionOutcome>;

/** The event bodies: what a caller asks to record, before the log stamps it. */
export const SessionStarted = z.strictObject({ type: z.literal('session.started'), data: SessionStartedData });
export const RoundStarted = z.strictObject({ type: z.literal('round.started'), data: RoundStartRequestData });
export const RoundClosed = z.strictObject({ type: z.literal('round.closed'), data: RoundRequestData });
export const GapOpened = z.strictObject({ type: z.literal('gap.opened'), data: GapOpenedData });
export const GapMoved = z.strictObject({ type: z.literal('gap.moved'), data: GapMovedData });
export const GapSeverityChanged = z.strictObject({
  type: z.literal('gap.severity_changed'),
  data: GapSeverityChangedData,
});
export const GapSplit = z.strictObject({ type: z.literal('gap.split'), data: GapSplitData });
export const GapRenamed = z.strictObject({ type: z.literal('gap.renamed'), data: GapRenamedData });
export const DecisionMade = z.strictObject({ type: z.literal('decision.made'), data: DecisionMadeData });
export const SessionBound = z.strictObject({ type: z.literal('session.bound'), data: SessionBoundData });
export const MetricsRecorded = z.strictObject({ type: z.literal('metrics.recorded'), data: MetricsRecordedData });
export const VerificationRan = z.strictObject({ type: z.literal('verification.ran'), data: VerificationRanData });

export const EventBody = z.discriminatedUnion('type', [
  SessionStarted,
  RoundStarted,
  RoundClosed,
  GapOpened,
  GapMoved,
  GapSeverityChanged,
  GapSplit,
  GapRenamed,
  DecisionMade,
  SessionBound,
  MetricsRecorded,
  VerificationRan,
]);
export type EventBody = z.infer<typeof EventBody>;
/** What a caller may pass: defaults (title, blocking) not yet filled in. */
export type EventBodyInput = z.input<typeof EventBody>;
export type EventType = EventBody['type'];
export type EventOf<T extends EventType> = Extract<GapflowEvent, { type: T }>;
export type BodyOf<T extends EventType> = Extract<EventBody, { type: T }>;
/** What a caller passes for one type of event, before defaults are filled in. */
export type BodyInputOf<T extends EventType> = Extract<EventBodyInput, { type: T }>;

/**
 * Rounds as they are stored: numbered. Round closes and decisions as they
 * are stored: with the outcome gapflow decided (a caller never gives one: a
 * request's schema has no such field). Lines older than version 3 have
 * none; they are upcast when read.
 */
const StoredRoundStarted = z.strictObject({ type: z.literal('round.started'), data: RoundStartData });
const StoredRoundClosed = z.strictObject({ type: z.literal('round.closed'), data: RoundData.extend({ outcome: RoundOutcome.optional() }) });
const StoredDecisionMade = z.strictObject({ type: z.literal('decision.made'), data: DecisionMadeData.extend({ outcome: DecisionOutcome.optional() }) });

/** When an event happened: an ISO 8601 date-time with its offset (`Z` or `+02:00`). */
export const EventTime = z.iso.datetime({ offset: true });

const Envelope = {
  v: z.literal(EVENT_VERSION),
  seq: z.int().min(1),
  // Stored ids keep the older, looser rule (gapflow 0.1 and a library caller's newId may have made any);
  // ids a caller passes to make an append idempotent are held to EventId where they come in.
  id: z
    .string()
    .min(1)
    .max(128)
    // eslint-disable-next-line no-control-regex -- control characters are exactly what the rule keeps out
    .regex(/^[^\u0000-\u001f\u007f]+$/, 'an event id has no control characters'),
  at: EventTime,
};

/** One line of the log: an event body in its envelope. */
export const GapflowEvent = z.discriminatedUnion('type', [
  SessionStarted.extend(Envelope),
  StoredRoundStarted.extend(Envelope),
  StoredRoundClosed.extend(Envelope),
  GapOpened.extend(Envelope),
  GapMoved.extend(Envelope),
  GapSeverityChanged.extend(Envelope),
  GapSplit.extend(Envelope),
  GapRenamed.extend(Envelope),
  StoredDecisionMade.extend(Envelope),
  SessionBound.extend(Envelope),
  MetricsRecorded.extend(Envelope),
  VerificationRan.extend(Envelope),
]);
export type GapflowEvent = z.infer<typeof GapflowEvent>;

type Settled<E> = E extends { type: 'round.closed'; data: infer D }
  ? Omit<E, 'data'> & { data: D & { outcome: RoundOutcome } }
  : E extends { type: 'decision.made'; data: infer D }
    ? Omit<E, 'data'> & { data: D & { outcome: DecisionOutcome } }
    : E;

/** A stored event whose outcome is known (recorded, or computed once by the upcaster): what the view folds. */
export type SettledEvent = Settled<GapflowEvent>;
export type SettledOf<T extends EventType> = Extract<SettledEvent, { type: T }>;

/** What `decide` returns: the events a request records, outcomes included, before the log stamps them. */
export type Decided = SettledEvent extends infer E ? (E extends unknown ? Omit<E, 'v' | 'seq' | 'id' | 'at'> : never) : never;

export type SessionSettings = z.infer<typeof SessionStartedData>;
export type DecisionData = z.infer<typeof DecisionMadeData>;
export type MetricsData = z.infer<typeof MetricsRecordedData>;
