import * as z from 'zod/mini';
import { bodySchema, EventId, RoundKind, SourceName, SyncFormat, type EventBodyInput, type GapflowEvent } from '../../events/index.js';
import { closedRoundNumbered, loopStep, Refusal, roundCount, standingStopRequest, type SessionView } from '../core/index.js';
import { optionEntries, renderPrompt } from '../render/index.js';
import { LogError } from '../log/index.js';
import type { BatchRecorded, BatchRequest, Session } from '../session/index.js';
import { readSnapshot, SyncInputError } from '../sync/index.js';

/*
 * The tools an agent calls, at most eight, each a request through the one
 * write path (the session's recordAll, as `gapflow append` takes it): where
 * the loop stands, open gaps, move gaps, start a round, close it, a decision
 * the loop offers, a tool's findings. Every input schema is cut from the
 * event schemas (one source of truth); every answer carries structured
 * content; a refusal is a tool error naming what was wrong, and nothing is
 * written. "Continue" is an answer, never an error.
 */

/** What a tool call works with: the session opened fresh for the call (another process's writes seen), a write through the one path, and the caller's files. */
export interface McpContext {
  open(): Session;
  /** Records `requests` all or nothing on `session` (the CLI's path: the verification gate runs the check when a write would complete). */
  record(session: Session, requests: BatchRequest[], write: { expectSeq?: number | undefined }): { done: BatchRecorded; session: Session };
  /** A file the caller names, read with the bounded reader; relative to the server's working folder. */
  readFile(path: string): { text: string; name: string };
  /** The folder absolute file paths in findings are shown relative to. */
  root: string;
}

/** How a write names its retry and the log version it expects: `requestId` (an event id; several requests take `ID.1`, `ID.2`…) and `expectedVersion` (the log's last seq). */
const WRITE = {
  requestId: z.optional(EventId),
  expectedVersion: z.optional(z.int().check(z.minimum(0))),
};

/** Where the loop stands after a call: what `next` says, in short. */
const Standing = z.object({
  action: z.enum(['continue', 'ask_user', 'stop']),
  reason: z.string(),
  state: z.string(),
  round: z.number(),
  roundOpen: z.boolean(),
  openGapCount: z.number(),
  weightedOpen: z.number(),
  lastSeq: z.number(),
});
type Standing = z.infer<typeof Standing>;

const Recorded = z.array(z.object({ seq: z.number(), type: z.string(), id: z.optional(z.string()) }));

/** A write's answer: the events it appended (none for a retry) and where the loop stands. */
const WriteAnswer = z.object({ recorded: Recorded, next: Standing });

function standing(view: SessionView): Standing {
  const step = loopStep(view, standingStopRequest(view));
  return {
    action: step.action,
    reason: step.reason,
    state: step.state,
    round: step.round,
    roundOpen: step.roundOpen,
    openGapCount: step.openGapCount,
    weightedOpen: step.weightedOpen,
    lastSeq: view.lastSeq,
  };
}

function recordedOf(events: readonly GapflowEvent[]) {
  return events.map((event) => ({
    seq: event.seq,
    type: event.type,
    ...('id' in event.data && typeof event.data.id === 'string' ? { id: event.data.id } : {}),
  }));
}

/** A tool's answer: its structured content, and the same as JSON text for a client that reads only text. */
function answer<T extends object>(content: T) {
  return { content: [{ type: 'text' as const, text: JSON.stringify(content) }], structuredContent: content as Record<string, unknown> };
}

/** What would make a refused call possible, in the tools' terms. */
const REMEDY: Record<string, string> = {
  resume: 'the session is paused: the user resumes it (decide resume)',
  decide: 'a decision is due: call next for the options, and decide with the one the user chooses',
  start_round: 'start a round first (start_round)',
  close_round: 'close the open round first (close_round)',
  acknowledge_risk: 'approving over CRITICAL gaps needs acknowledgment "critical_risk", from the user',
  give_rationale: 'approving over HIGH gaps needs a rationale, from the user',
  name_gaps: 'name the gaps (gaps)',
  approve_check: "the session's check is not approved on this machine: the user runs gapflow trust",
};

/**
 * A refusal as a tool error: one text naming what was wrong (the bad value)
 * and what to do, nothing written. It carries no structured content: a
 * client checks any it gets against the tool's output schema, the answer's
 * shape, which a refusal is not.
 */
function refused(error: Refusal | SyncInputError | LogError) {
  const remedy = error instanceof Refusal && error.remedy !== undefined ? (REMEDY[error.remedy] ?? null) : null;
  return { isError: true, content: [{ type: 'text' as const, text: `refused: ${error.message}${remedy ? `; ${remedy}` : ''}` }] };
}

/** Runs a tool's body, a refusal, a bad snapshot or a log's refusal (a file that is not there, too large, not a file) answered as a tool error. */
function guarded<A>(body: (args: A) => object) {
  return async (args: A) => {
    try {
      return answer(body(args));
    } catch (error) {
      if (error instanceof Refusal || error instanceof SyncInputError || error instanceof LogError) return refused(error);
      throw error;
    }
  };
}

/** Records `bodies` as one batch through the context's write path: the retry ids and the expected version as the tool was given them. */
function write(context: McpContext, bodies: EventBodyInput[], args: { requestId?: string | undefined; expectedVersion?: number | undefined }) {
  const session = context.open();
  const id = (i: number) => (args.requestId === undefined ? undefined : bodies.length === 1 ? args.requestId : `${args.requestId}.${i + 1}`);
  const requests = bodies.map((body, i) => ({ body, ...(id(i) === undefined ? {} : { id: id(i) }) }));
  const { done, session: after } = context.record(session, requests, { expectSeq: args.expectedVersion });
  return { session: after, done, answer: { recorded: recordedOf(done.appended), next: standing(after.view) } };
}

const GapOpened = bodySchema('gap.opened').shape.data;
const GapMoved = bodySchema('gap.moved').shape.data;
const Decision = bodySchema('decision.made').shape.data;

/** The tools, each with what the SDK registers: a description an agent can act on, its input and output schemas, and its call. */
export function gapflowTools(context: McpContext) {
  return {
    next: {
      description:
        'Where the refinement loop stands and what to do next: action (continue, ask_user or stop) and why, the open gaps by severity (the first 100, most severe first; openGapsNotListed counts the rest), claims a tool still disputes, and when a decision is due the options, each with the decision to record. Call it first, and after every round.',
      inputSchema: z.object({}),
      outputSchema: z.object({
        ...Standing.shape,
        outcome: z.nullable(z.string()),
        focus: z.array(z.string()),
        openGaps: z.record(z.string(), z.array(z.string())),
        openGapsNotListed: z.number(),
        claimedStillReported: z.array(z.string()),
        options: z.array(z.object({ kind: z.string(), label: z.string(), recommended: z.boolean(), effect: z.string() })),
        prompt: z.nullable(z.string()),
      }),
      annotations: { readOnlyHint: true },
      call: guarded(() => {
        const view = context.open().view;
        const step = loopStep(view, standingStopRequest(view));
        const asks = step.action === 'ask_user';
        return {
          ...standing(view),
          outcome: step.outcome,
          focus: step.focus,
          openGaps: step.openGaps,
          openGapsNotListed: step.openGapsNotListed,
          claimedStillReported: step.claimedStillReported,
          options: asks ? optionEntries(view).map(({ kind, label, recommended, effect }) => ({ kind, label, recommended, effect })) : [],
          prompt: asks ? renderPrompt(view) : null,
        };
      }),
    },
    open_gaps: {
      description:
        'Record new gaps (one or more, all or none): each an id (letters, digits, . _ -), a severity (CRITICAL, HIGH, MEDIUM, LOW or UNTRIAGED) and a title. Between rounds this starts the next round; before round 1 the gaps are the baseline.',
      inputSchema: z.object({ gaps: z.array(GapOpened).check(z.minLength(1), z.maxLength(1000)), ...WRITE }),
      outputSchema: WriteAnswer,
      call: guarded(
        (args: { gaps: z.input<typeof GapOpened>[]; requestId?: string; expectedVersion?: number }) =>
          write(
            context,
            args.gaps.map((data) => ({ type: 'gap.opened', data })),
            args,
          ).answer,
      ),
    },
    move_gaps: {
      description:
        'Move gaps through their lifecycle (one or more, all or none): to IN_PROGRESS, PROPOSED, ACCEPTED, RESOLVED when fixed, BLOCKED (blockedBy), DUPLICATE (of), WONT_FIX or back to OPEN, with a reason.',
      inputSchema: z.object({ moves: z.array(GapMoved).check(z.minLength(1), z.maxLength(1000)), ...WRITE }),
      outputSchema: WriteAnswer,
      call: guarded(
        (args: { moves: z.input<typeof GapMoved>[]; requestId?: string; expectedVersion?: number }) =>
          write(
            context,
            args.moves.map((data) => ({ type: 'gap.moved', data })),
            args,
          ).answer,
      ),
    },
    start_round: {
      description: 'Start the next round (a work round unless kind says review or consolidation). Gap moves between rounds start one by themselves.',
      inputSchema: z.object({ kind: z.optional(RoundKind), ...WRITE }),
      outputSchema: WriteAnswer,
      call: guarded(
        (args: { kind?: z.infer<typeof RoundKind>; requestId?: string; expectedVersion?: number }) =>
          write(context, [{ type: 'round.started', data: args.kind === undefined ? {} : { kind: args.kind } }], args).answer,
      ),
    },
    close_round: {
      description:
        "Close the open round: gapflow judges it and answers with the round's verdict (progress, flat, diverging, converged), the state it led to and what to do next.",
      inputSchema: z.object({ ...WRITE }),
      outputSchema: z.object({ ...WriteAnswer.shape, verdict: Verdict }),
      call: guarded((args: { requestId?: string; expectedVersion?: number }) => {
        const { session, answer: written } = write(context, [{ type: 'round.closed', data: {} }], args);
        return { ...written, verdict: verdictOf(session.view) };
      }),
    },
    decide: {
      description:
        "Record the user's decision when one is due (next says ask_user): only a kind next offers in its options, with the gaps, rationale, acknowledgment or rounds that option requires. Never decide for the user.",
      inputSchema: z.object({ ...Decision.shape, ...WRITE }),
      outputSchema: WriteAnswer,
      call: guarded((args: z.input<typeof Decision> & { requestId?: string; expectedVersion?: number }) => {
        const { requestId, expectedVersion, ...data } = args;
        const view = context.open().view;
        const offered = loopStep(view, standingStopRequest(view)).action === 'ask_user' ? optionEntries(view).map((option) => option.kind) : [];
        if (!offered.includes(data.kind)) {
          throw new Refusal(
            offered.length === 0
              ? `decide ${data.kind}: no decision is due (next says ${standing(view).action}); decisions are the user's, when the loop asks`
              : `decide ${data.kind}: not an option now; the options are ${offered.join(', ')}`,
          );
        }
        return write(context, [{ type: 'decision.made', data }], { requestId, expectedVersion }).answer;
      }),
    },
    sync: {
      description:
        "Record a tool's whole snapshot of findings from a file (SARIF 2.1.0 from a linter or scanner, JUnit XML from a test run, or gapflow's JSON list): new findings open gaps, gone ones resolve, returning ones reopen; close: true also closes the round.",
      inputSchema: z.object({
        file: z.string().check(z.minLength(1)),
        format: z.optional(SyncFormat),
        source: z.optional(SourceName),
        close: z.optional(z.boolean()),
        ...WRITE,
      }),
      outputSchema: z.object({ ...WriteAnswer.shape, source: z.string(), reported: z.number() }),
      call: guarded(
        (args: { file: string; format?: z.infer<typeof SyncFormat>; source?: string; close?: boolean; requestId?: string; expectedVersion?: number }) => {
          const { text, name } = context.readFile(args.file);
          const snapshot = readSnapshot(text, args.format, { file: name, root: context.root, ...(args.source === undefined ? {} : { source: args.source }) });
          const data = { ...snapshot, ...(args.close ? { close: true } : {}) };
          const { answer: written } = write(context, [{ type: 'findings.synced', data }], args);
          return { ...written, source: snapshot.source, reported: snapshot.findings.length };
        },
      ),
    },
  };
}

/** A round's verdict as `close_round` answers it. */
const Verdict = z.object({
  round: z.number(),
  verdict: z.string(),
  reason: z.string(),
  detail: z.string(),
  state: z.string(),
  resolved: z.number(),
  new: z.number(),
  openEnd: z.number(),
  weightedNet: z.number(),
});

function verdictOf(view: SessionView): z.infer<typeof Verdict> {
  const round = closedRoundNumbered(view, roundCount(view));
  if (round === undefined || round.combined === null) throw new Refusal('the round did not close');
  return {
    round: round.round,
    verdict: round.combined.verdict,
    reason: round.combined.reason,
    detail: round.combined.detail,
    state: round.state ?? view.machine.state,
    resolved: round.resolved,
    new: round.new,
    openEnd: round.openEnd ?? 0,
    weightedNet: round.weightedNet,
  };
}
