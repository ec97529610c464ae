import * as z from 'zod/mini';
import { ACKNOWLEDGMENT_WORDS, COMPLETE_WHEN_WORDS, EVENT_TYPES, GATES_WORDS, ROUND_KIND_WORDS } from './words.js';
import {
  AGENT_SESSION_MAX,
  EVENT_VERSION,
  PLAIN_TEXT_PATTERN,
  REASON_MAX,
  SNAPSHOT_FINDINGS_MAX,
  SPLIT_PARTS_MAX,
  TITLE_MAX,
  VERIFY_COMMAND_MAX,
  VERIFY_OUTPUT_MAX,
  VERIFY_OUTPUT_PATTERN,
  VERIFY_TIMEOUT_MAX,
} from './limits.js';
import {
  ConvergenceState,
  DecisionKind,
  EventId,
  GapId,
  GapState,
  Outcome,
  PolicyName,
  Preset,
  ResumableState,
  RoundKind,
  Severity,
  SourceName,
  SyncFormat,
  Verdict,
} from './vocabulary.js';

/**
 * The version this build writes. Version 7 adds findings from tools:
 * `findings.synced` (a source's snapshot, reconciled), the source a gap
 * belongs to (`source` at gap.opened) and the source whose snapshot moved it
 * (`by` at gap.moved); version 6 lines are version 7 lines that use none of
 * them. Version 6 adds the ping-pong setting and
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
 * `upcast` below and the core's outcome upcaster).
 */

/**
 * A schema built the first time it is asked for, then kept. Every event
 * type's schema is built this way, so a call that parses one request (or
 * reads lines of a few types) pays for those types only, not for the whole
 * vocabulary: a one-shot CLI process starts within its speed goals.
 */
function once<T>(build: () => T): () => T {
  let built: { value: T } | undefined;
  return () => (built ??= { value: build() }).value;
}

/**
 * Free text shown to people: one line, bounded, with no control characters
 * (C0, C1, line and paragraph separators, bidirectional overrides), so it can
 * neither break a table nor rewrite a terminal.
 */
const Text = (max: number) =>
  z.string().check(z.maxLength(max, `at most ${max} characters`), z.regex(PLAIN_TEXT_PATTERN, 'no control characters (newlines included)'));

/** A whole number from `min` (to `max`). */
const int = (min: number, max?: number) => (max === undefined ? z.int().check(z.minimum(min)) : z.int().check(z.minimum(min), z.maximum(max)));
/** Text bounded in characters, with no other rule. */
const upTo = (max: number) => z.string().check(z.maxLength(max));

const SessionStartedData = once(() =>
  z.strictObject({
    preset: z.optional(Preset),
    stallThreshold: z.optional(int(1, 1000)),
    divergenceThreshold: z.optional(int(0, 1_000_000)),
    maxRounds: z.optional(int(1, 100_000)),
    criticalOverride: z.optional(z.boolean()),
    /** The policies that judge each round (R15); `gaps` alone when absent. Names are checked against the registry at decide time. */
    policies: z.optional(z.array(PolicyName).check(z.minLength(1), z.maxLength(16))),
    /** Each policy's own settings, validated by that policy's schema at decide time (so replay re-checks them). */
    policySettings: z.optional(z.record(PolicyName, z.record(upTo(64), z.unknown()))),
    /** Whether every enabled policy (`all`, the default) or any one (`any`) must have converged to complete. */
    completeWhen: z.optional(z.enum(COMPLETE_WHEN_WORDS)),
    /** Ping-pong: how many reopens after a resolve name a gap as going back and forth (2 when absent). */
    pingPong: z.optional(int(1, 1000)),
    /** The verification gate: a shell command that must pass, run when the session would complete as done (converged or approved). */
    verify: z.optional(
      z.strictObject({
        command: Text(VERIFY_COMMAND_MAX).check(z.refine((command) => command.trim() !== '', 'the command is empty')),
        timeoutSeconds: z.number().check(z.gt(0), z.maximum(VERIFY_TIMEOUT_MAX)),
      }),
    ),
  }),
);

const RoundData = once(() => z.strictObject({ round: int(1) }));
/** A request may leave its round out: gapflow numbers it (the next round for a start, the open one for a close). */
const RoundRequestData = once(() => z.strictObject({ round: z.optional(int(1)) }));
/** R25: a round starts as `work` unless told; the log records a kind only for a round that is not work. */
const RoundStartRequestData = once(() => z.extend(RoundRequestData(), { kind: z.optional(RoundKind) }));
const RoundStartData = once(() => z.extend(RoundData(), { kind: z.optional(RoundKind) }));

const GapOpenedData = once(() =>
  z.strictObject({
    id: GapId,
    severity: Severity,
    title: z._default(Text(TITLE_MAX), ''),
    spawnedBy: z.optional(GapId),
    blocking: z._default(z.boolean(), true),
  }),
);

const GapMovedData = once(() =>
  z.strictObject({
    id: GapId,
    to: GapState,
    reason: z.optional(Text(REASON_MAX)),
    /** For a move to BLOCKED: the gap it waits on. */
    blockedBy: z.optional(GapId),
    /** For a move to DUPLICATE: the gap it duplicates. */
    of: z.optional(GapId),
  }),
);

/**
 * What a snapshot adds to the gap events it makes, as they are stored: the
 * source a gap belongs to (gap.opened), and the source whose snapshot moved it
 * (gap.moved). Only `findings.synced` writes them; a request cannot, so no
 * hand move can pass for a tool's, nor a hand gap for a source's.
 */
const GapOpenedStored = once(() =>
  z.extend(GapOpenedData(), {
    /** The findings source whose snapshot opened it; absent for a gap opened by hand, which belongs to no source. */
    source: z.optional(SourceName),
  }),
);
const GapMovedStored = once(() =>
  z.extend(GapMovedData(), {
    /** The findings source whose snapshot made the move; absent for a move made by hand. */
    by: z.optional(SourceName),
  }),
);

/**
 * A whole snapshot of one source's findings, as a caller asks `sync` to
 * reconcile it: each finding with the gap id its identity gives. With
 * `close`, the round it belongs to closes after it. What the log records is
 * what the reconciliation did (FindingsSyncedData) and the gap events it made.
 */
const FindingsSyncRequestData = once(() =>
  z.strictObject({
    source: SourceName,
    format: z._default(SyncFormat, 'json'),
    findings: z
      .array(z.strictObject({ id: GapId, severity: Severity, title: z._default(Text(TITLE_MAX), '') }))
      .check(z.maxLength(SNAPSHOT_FINDINGS_MAX, `a snapshot has at most ${SNAPSHOT_FINDINGS_MAX} findings`)),
    close: z.optional(z.boolean()),
  }),
);

/**
 * A snapshot as the log records it: the source, how many findings it
 * reported, and what reconciling it did. The gap events it made follow it in
 * the same write. `claimed`: gaps moved to RESOLVED or ACCEPTED by hand that
 * the snapshot still reported, reopened.
 */
const FindingsSyncedData = once(() =>
  z.strictObject({
    source: SourceName,
    format: SyncFormat,
    reported: int(0),
    opened: int(0),
    resolved: int(0),
    reopened: int(0),
    claimed: int(0),
  }),
);

/** A gap split into parts: it closes as SPLIT and its parts open, in one event. */
const GapSplitData = once(() => {
  /** One part of a split gap: a new id and its severity (the title, when left out, is the parent's). */
  const SplitPart = z.strictObject({
    id: GapId,
    severity: Severity,
    title: z.optional(Text(TITLE_MAX)),
  });
  return z.strictObject({
    id: GapId,
    into: z
      .array(SplitPart)
      .check(z.minLength(2, 'a split has at least two parts'), z.maxLength(SPLIT_PARTS_MAX, `a split has at most ${SPLIT_PARTS_MAX} parts`)),
    reason: z.optional(Text(REASON_MAX)),
  });
});

/** A gap given a new id: the gap is the same, the old id is retired for good. */
const GapRenamedData = once(() => z.strictObject({ id: GapId, newId: GapId }));

const GapSeverityChangedData = once(() => z.strictObject({ id: GapId, to: Severity }));

/**
 * One run of the verification gate, as the edge ran it when the session
 * would have completed: recorded so that replay reads it and never runs the
 * command again. `output` is the tail of what it printed, made safe to show.
 */
const VerificationRanData = once(() =>
  z.strictObject({
    command: Text(VERIFY_COMMAND_MAX),
    /** null when the command was killed (its time limit, a signal) or could not start. */
    exitCode: z.nullable(z.int()),
    durationMs: z.number().check(z.minimum(0)),
    timedOut: z.boolean(),
    output: z._default(z.string().check(z.maxLength(VERIFY_OUTPUT_MAX), z.regex(VERIFY_OUTPUT_PATTERN, 'printable text, one line per line')), ''),
    /** What the run was for: the round close or the approval it gates. */
    gates: z.enum(GATES_WORDS),
  }),
);

/** The agent session (a Claude Code `session_id`) whose stop hook may drive this session. */
const SessionBoundData = once(() => z.strictObject({ agentSession: Text(AGENT_SESSION_MAX).check(z.minLength(1)) }));
/**
 * One policy's metrics for one round. The payload is the policy's own
 * business: its zod schema judges it at decide time and again on replay.
 */
const MetricsRecordedData = once(() =>
  z.strictObject({
    policy: PolicyName,
    /** The round the metrics belong to; filled in by decide when the caller leaves it out. */
    round: z.optional(int(1)),
    // A key an object inherits (`constructor`) is refused, not read through; `__proto__` is refused where JSON is parsed.
    metrics: z.record(upTo(64).check(z.refine((key) => !['__proto__', 'constructor', 'prototype'].includes(key), 'reserved key name')), z.unknown()),
  }),
);

const DecisionMadeData = once(() =>
  z.strictObject({
    kind: DecisionKind,
    gaps: z.optional(z.array(GapId).check(z.maxLength(10_000))),
    /** `critical_risk`: the user accepts completing with CRITICAL gaps open. */
    acknowledgment: z.optional(z.literal(ACKNOWLEDGMENT_WORDS[0])),
    rationale: z.optional(Text(2000)),
    /** `extend_rounds` (R24): how many rounds the limit is raised by. */
    rounds: z.optional(int(1, 100_000)),
  }),
);

/**
 * The machine's state as a round close or a decision left it: the one small
 * record of it gapflow keeps. `pausedFrom` is the value of the machine's
 * history state while it is PAUSED (where RESUME returns), null otherwise.
 */
const MachineStateSchema = once(() =>
  z.strictObject({
    state: ConvergenceState,
    flatCount: int(0),
    outcome: z.nullable(Outcome),
    pausedFrom: z.nullable(ResumableState),
  }),
);
export type MachineState = z.infer<ReturnType<typeof MachineStateSchema>>;

/** One state change the machine made (STALLED's pass-through included, R4). */
const MachineStep = once(() => z.strictObject({ from: ConvergenceState, to: ConvergenceState }));

/** The longest text a recorded verdict carries (its detail, a figure); longer text is cut to this when it is decided. */
export const VERDICT_TEXT_MAX = 10_000;
/** The longest detail of a combined verdict (the deciding policies' details joined). */
export const COMBINED_TEXT_MAX = 20_000;

/** A round's kinds other than `work`: the ones a round close records. */
const NOT_WORK = ROUND_KIND_WORDS.filter((kind): kind is Exclude<RoundKind, 'work'> => kind !== 'work');

/**
 * What the machine decided when a round closed (R19: history is a
 * fact): the round's figures as they stood, every policy's verdict, the
 * combined verdict that drove the machine (its reason code says why), the
 * state reached and each microstep on the way (STALLED included).
 */
const RoundOutcomeSchema = once(() => {
  const Figure = z.union([z.number(), upTo(VERDICT_TEXT_MAX), z.boolean(), z.null()]);
  const NamedVerdict = z.strictObject({
    policy: PolicyName,
    verdict: Verdict,
    reason: upTo(64),
    detail: upTo(VERDICT_TEXT_MAX),
    figures: z.record(upTo(64), Figure),
  });
  const CombinedVerdict = z.strictObject({
    verdict: Verdict,
    reason: upTo(64),
    policies: z.array(PolicyName).check(z.maxLength(16)),
    detail: upTo(COMBINED_TEXT_MAX),
  });
  return z.strictObject({
    figures: z.strictObject({
      openEnd: z.number(),
      weightedOpenEnd: z.number(),
      resolved: int(0),
      new: int(0),
      weightedResolved: z.number(),
      weightedNew: z.number(),
      /** Gaps withdrawn as duplicates this round (absent: none, as in every line before version 5). */
      withdrawn: z.optional(int(0)),
      weightedWithdrawn: z.optional(z.number()),
      criticalIntroduced: z.array(GapId),
    }),
    verdicts: z.array(NamedVerdict).check(z.maxLength(16)),
    combined: CombinedVerdict,
    machine: MachineStateSchema(),
    steps: z.array(MachineStep()).check(z.maxLength(8)),
    /** R25: the round's kind when it was not `work` (a flat round of another kind left flat_count as it was). */
    kind: z.optional(z.enum(NOT_WORK)),
  });
});
export type RoundOutcome = z.infer<ReturnType<typeof RoundOutcomeSchema>>;

/** What the machine decided on a user decision: the state it left and each step taken. */
const DecisionOutcomeSchema = once(() =>
  z.strictObject({
    machine: MachineStateSchema(),
    steps: z.array(MachineStep()).check(z.maxLength(8)),
    /** `extend_rounds` (R24): the round limit the decision left. */
    maxRounds: z.optional(int(1)),
  }),
);
export type DecisionOutcome = z.infer<ReturnType<typeof DecisionOutcomeSchema>>;

/** An event of one type: its `type` and its data, built on first use. */
function eventOf<const T extends EventType, D extends z.ZodMiniObject>(type: T, data: () => D) {
  return once(() => z.strictObject({ type: z.literal(type), data: data() }));
}

/** The event bodies: what a caller asks to record, before the log stamps it. Each type's data is written once, above. */
const BODIES = {
  'session.started': eventOf('session.started', SessionStartedData),
  'round.started': eventOf('round.started', RoundStartRequestData),
  'round.closed': eventOf('round.closed', RoundRequestData),
  'gap.opened': eventOf('gap.opened', GapOpenedData),
  'gap.moved': eventOf('gap.moved', GapMovedData),
  'gap.severity_changed': eventOf('gap.severity_changed', GapSeverityChangedData),
  'gap.split': eventOf('gap.split', GapSplitData),
  'gap.renamed': eventOf('gap.renamed', GapRenamedData),
  'decision.made': eventOf('decision.made', DecisionMadeData),
  'session.bound': eventOf('session.bound', SessionBoundData),
  'metrics.recorded': eventOf('metrics.recorded', MetricsRecordedData),
  'verification.ran': eventOf('verification.ran', VerificationRanData),
  'findings.synced': eventOf('findings.synced', FindingsSyncRequestData),
};

/** The event types, in the order the unions (and the JSON Schema) list them. */
type EventType = (typeof EVENT_TYPES)[number];

/** One schema per event type, in EVENT_TYPES' order. */
type OptionsOf<M, T extends readonly unknown[] = typeof EVENT_TYPES> = {
  [I in keyof T]: T[I] extends keyof M ? (M[T[I]] extends () => infer O ? O : never) : never;
};
/** The whole union of one schema per event type. */
type UnionOf<M> = OptionsOf<M> extends infer O extends readonly z.core.$ZodType[] ? z.ZodMiniDiscriminatedUnion<O, 'type'> : never;

/**
 * A discriminated union on `type` that builds only what a parse needs: the
 * schema of the input's type, the first time that type is parsed. The whole
 * union (`whole()`, and `options`) is built only when something needs every
 * type at once: its JSON Schema, a union of a caller's own, or an input
 * whose type is none of them (so that its refusal is the union's own).
 * Parsing gives what the whole union gives: a discriminated union hands an
 * object whose `type` it knows to that type's schema, and nothing else.
 */
export interface LazyUnion<U extends z.ZodMiniDiscriminatedUnion = z.ZodMiniDiscriminatedUnion> {
  /** The whole union, built on first call. */
  whole(): U;
  /** The union's options, one per event type (builds the whole union). */
  readonly options: U['_zod']['def']['options'];
  /** The schema of one type, built on first use; undefined when `type` is none of the union's. */
  option(type: unknown): U['_zod']['def']['options'][number] | undefined;
  safeParse(data: unknown, params?: z.core.ParseContext<z.core.$ZodIssue>): z.core.util.SafeParseResult<z.output<U>>;
  parse(data: unknown, params?: z.core.ParseContext<z.core.$ZodIssue>): z.output<U>;
}

function lazyUnion<M extends Record<EventType, () => z.ZodMiniObject>>(byType: M): LazyUnion<UnionOf<M>> {
  type Option = UnionOf<M>['_zod']['def']['options'][number];
  const whole = once(
    () => z.discriminatedUnion('type', EVENT_TYPES.map((type) => byType[type]()) as [z.ZodMiniObject, ...z.ZodMiniObject[]]) as unknown as UnionOf<M>,
  );
  const known = (type: unknown): z.ZodMiniObject | undefined =>
    typeof type === 'string' && Object.hasOwn(byType, type) ? byType[type as EventType]() : undefined;
  // As the union reads its input: an object (not a list) and its `type`; anything else is the union's to refuse.
  const schemaFor = (data: unknown): z.ZodMiniType =>
    (typeof data === 'object' && data !== null && !Array.isArray(data) ? known((data as { type?: unknown }).type) : undefined) ?? whole();
  return {
    whole,
    get options() {
      return whole()._zod.def.options;
    },
    option: (type) => known(type) as Option | undefined,
    safeParse: (data, params) => schemaFor(data).safeParse(data, params) as z.core.util.SafeParseResult<z.output<UnionOf<M>>>,
    parse: (data, params) => schemaFor(data).parse(data, params) as z.output<UnionOf<M>>,
  };
}

/** The event bodies, as one union: what `decide` parses a request with. */
export const EventBody = lazyUnion(BODIES);
export type EventBody = z.infer<ReturnType<(typeof EventBody)['whole']>>;
/** What a caller may pass: defaults (title, blocking) not yet filled in. */
export type EventBodyInput = z.input<ReturnType<(typeof EventBody)['whole']>>;
export type EventOf<T extends EventType> = Extract<GapflowEvent, { type: T }>;
export type BodyOf<T extends EventType> = Extract<EventBody, { type: T }>;
/** What a caller passes for one type of event, before defaults are filled in. */
export type BodyInputOf<T extends EventType> = Extract<EventBodyInput, { type: T }>;
export type { EventType };

/** The schema of one event type's body, built on first use. */
export function bodySchema<T extends EventType>(type: T): ReturnType<(typeof BODIES)[T]> {
  return BODIES[type]() as ReturnType<(typeof BODIES)[T]>;
}

/** When an event happened: an ISO 8601 date-time with its offset (`Z` or `+02:00`). */
export const EventTime = z.iso.datetime({ offset: true });

const Envelope = once(() => ({
  v: z.literal(EVENT_VERSION),
  seq: int(1),
  // Stored ids keep the older, looser rule (gapflow 0.1 and a library caller's newId may have made any);
  // ids a caller passes to make an append idempotent are held to EventId where they come in.
  id: z.string().check(
    z.minLength(1),
    z.maxLength(128),
    // eslint-disable-next-line no-control-regex -- control characters are exactly what the rule keeps out
    z.regex(/^[^\u0000-\u001f\u007f]+$/, 'an event id has no control characters'),
  ),
  at: EventTime,
}));

/** An event as it is stored: its body in its envelope. */
function storedOf<O extends z.ZodMiniObject>(event: () => O) {
  return once(() => z.extend(event(), Envelope()));
}

/**
 * Rounds as they are stored: numbered. Round closes and decisions as they
 * are stored: with the outcome gapflow decided (a caller never gives one: a
 * request's schema has no such field). Lines older than version 3 have
 * none; they are upcast when read.
 */
const STORED = {
  'session.started': storedOf(BODIES['session.started']),
  'round.started': storedOf(eventOf('round.started', RoundStartData)),
  'round.closed': storedOf(eventOf('round.closed', () => z.extend(RoundData(), { outcome: z.optional(RoundOutcomeSchema()) }))),
  'gap.opened': storedOf(eventOf('gap.opened', GapOpenedStored)),
  'gap.moved': storedOf(eventOf('gap.moved', GapMovedStored)),
  'gap.severity_changed': storedOf(BODIES['gap.severity_changed']),
  'gap.split': storedOf(BODIES['gap.split']),
  'gap.renamed': storedOf(BODIES['gap.renamed']),
  'decision.made': storedOf(eventOf('decision.made', () => z.extend(DecisionMadeData(), { outcome: z.optional(DecisionOutcomeSchema()) }))),
  'session.bound': storedOf(BODIES['session.bound']),
  'metrics.recorded': storedOf(BODIES['metrics.recorded']),
  'verification.ran': storedOf(BODIES['verification.ran']),
  'findings.synced': storedOf(eventOf('findings.synced', FindingsSyncedData)),
};

/** One line of the log: an event body in its envelope. */
export const GapflowEvent = lazyUnion(STORED);
export type GapflowEvent = z.infer<ReturnType<(typeof GapflowEvent)['whole']>>;

/**
 * One line of a batch given to `gapflow append`: an event body and, if the
 * caller wants to name its event, an `id`. The writer adds `v`, `seq` and `at`.
 */
const withId = once(() => ({ id: z.optional(EventId) }));
function requestOf<O extends z.ZodMiniObject>(event: () => O) {
  return once(() => z.extend(event(), withId()));
}

export const EventRequest = lazyUnion({
  'session.started': requestOf(BODIES['session.started']),
  'round.started': requestOf(BODIES['round.started']),
  'round.closed': requestOf(BODIES['round.closed']),
  'gap.opened': requestOf(BODIES['gap.opened']),
  'gap.moved': requestOf(BODIES['gap.moved']),
  'gap.severity_changed': requestOf(BODIES['gap.severity_changed']),
  'gap.split': requestOf(BODIES['gap.split']),
  'gap.renamed': requestOf(BODIES['gap.renamed']),
  'decision.made': requestOf(BODIES['decision.made']),
  'session.bound': requestOf(BODIES['session.bound']),
  'metrics.recorded': requestOf(BODIES['metrics.recorded']),
  'verification.ran': requestOf(BODIES['verification.ran']),
  'findings.synced': requestOf(BODIES['findings.synced']),
});
export type EventRequest = z.infer<ReturnType<(typeof EventRequest)['whole']>>;

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

/**
 * A request as `decide` takes it: the typed body, with its policy's part
 * read by that policy's own schema where the text entered (the policies'
 * `readCommand`), so the core runs no schema. A metrics.recorded carries its
 * metrics as the schema reads them (defaults filled in) and, when the schema
 * refuses them, its objection in the refusal's words (`metrics.x: ...`); a
 * session.started carries, by policy, the objection to that policy's
 * settings. `decide` refuses an objection where its rules put it, after the
 * checks that come before it.
 */
export type Command =
  | Exclude<EventBody, { type: 'metrics.recorded' | 'session.started' }>
  | (BodyOf<'metrics.recorded'> & { readonly objection: string | null })
  | (BodyOf<'session.started'> & { readonly objections: Readonly<Record<string, string>> });
export type CommandOf<T extends EventType> = Extract<Command, { type: T }>;

export type SessionSettings = z.infer<ReturnType<typeof SessionStartedData>>;
export type DecisionData = z.infer<ReturnType<typeof DecisionMadeData>>;
export type MetricsData = z.infer<ReturnType<typeof MetricsRecordedData>>;

// Older lines.

/** The oldest event version this build still reads. */
export const OLDEST_VERSION = 1;

/**
 * Why a stored `v` cannot be read, or null when it can. A newer version is
 * named, so the message says which gapflow to install.
 */
export function versionProblem(v: unknown): string | null {
  if (typeof v !== 'number' || !Number.isInteger(v))
    return `no event version ("v" must be a whole number, not ${JSON.stringify(v)?.slice(0, 20) ?? 'missing'})`;
  if (v > EVENT_VERSION) {
    return `event version ${v} was written by a newer gapflow; this one reads versions ${OLDEST_VERSION} to ${EVENT_VERSION}: install a gapflow that reads version ${v}`;
  }
  if (v < OLDEST_VERSION) return `event version ${v} does not exist (versions start at ${OLDEST_VERSION})`;
  return null;
}

/**
 * The versions whose lines read as the current version's as they stand
 * (versions 5 to 7 only added words, fields and an event type): a sealed line of one of these
 * gets the reader's quick look, as a current line does.
 */
export const READ_AS_CURRENT: ReadonlySet<unknown> = new Set([4, 5, 6, EVENT_VERSION]);

/**
 * Brings a stored event of a readable version to the shape this build
 * writes, before the schema judges it. Version 1 lacks the line checksum,
 * which the log handles; versions 1 and 2 lack the outcome of a round close
 * or a decision, which needs the session's state to compute, so the core
 * adds it as it folds (`settle`); their bodies are otherwise current.
 * Version 3 outcomes are reshaped as they stand; version 4 lines are
 * current but for their number.
 */
export function upcast(stored: Readonly<Record<string, unknown>>): Readonly<Record<string, unknown>> {
  if (stored.v === 1 || stored.v === 2) return { ...stored, v: EVENT_VERSION };
  if (stored.v === 3) return { ...stored, v: EVENT_VERSION, data: outcomeToV4(stored.data) };
  // Versions 5 to 7 only added words, fields and an event type: a version 4 to 6 line is a version 7 line as it stands.
  if (stored.v === 4 || stored.v === 5 || stored.v === 6) return { ...stored, v: EVENT_VERSION };
  return stored;
}

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * A version 3 outcome in version 4's shape, deciding nothing anew: a stop
 * request (`limit` for `stop_requested`) becomes the `stopped` verdict; a
 * gaps-only round close, which recorded no combined verdict because the gap
 * policy's one verdict drove the machine, gets that verdict as its combined
 * one, worded as combining one verdict words it; the guard names go. Anything
 * unexpected is left for the schema to name.
 */
function outcomeToV4(data: unknown): unknown {
  if (!isObject(data) || !isObject(data.outcome)) return data;
  const { rule: _rule, ...outcome } = data.outcome;
  if (Array.isArray(outcome.steps)) outcome.steps = outcome.steps.map((step) => (isObject(step) ? (({ rule: _r, ...kept }) => kept)(step) : step));
  const verdicts = outcome.verdicts;
  if (Array.isArray(verdicts)) {
    outcome.verdicts = verdicts.map(stopRequestToStopped);
    const only: unknown = verdicts[0];
    if (outcome.combined === null && verdicts.length === 1 && isObject(only)) {
      outcome.combined = { verdict: only.verdict, reason: only.reason, policies: [only.policy], detail: `${String(only.policy)}: ${String(only.detail)}` };
    }
  }
  if (outcome.combined !== undefined) outcome.combined = stopRequestToStopped(outcome.combined);
  return { ...data, outcome };
}

function stopRequestToStopped(verdict: unknown): unknown {
  return isObject(verdict) && verdict.verdict === 'limit' && verdict.reason === 'stop_requested' ? { ...verdict, verdict: 'stopped' } : verdict;
}
