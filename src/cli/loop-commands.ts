import { canonicalRequest, EventId, readIssue } from '../../events/index.js';
import { gapflowJsonSchemaText } from '../schema.js';
import { hookStep, Refusal, toStateJson } from '../core/index.js';
import { appendLines, type AppendedLine, type HookVerdict } from '../render/index.js';
import { type ParsedCall, writeOptions } from './args.js';
import { writePolicyReports } from './policy-commands.js';
import {
  BATCH_INPUT,
  EVENT_INPUT,
  FileLog,
  formatBytes,
  importLog,
  isFolder,
  LOG_FILE,
  LOG_INPUT,
  LogError,
  looksLikeLog,
  readTextFile,
  sessionDirsIn,
} from '../log/index.js';
import {
  draftSession,
  importedSession,
  openFileSession,
  Session,
  openLoopView,
  peekHead,
  recordDecided,
  type BatchRecorded,
  type BatchRequest,
} from '../session/index.js';
import { gatedBatch, type GatedRequest } from './gate.js';
import {
  readStdin,
  databaseSession,
  databaseStore,
  type CliIO,
  newStoreOf,
  open,
  parseUserJson,
  printJson,
  sessionDir,
  storeOf,
  type WhereOptions,
  command,
} from './common.js';
import type { APPEND_FLAGS } from './table.js';
import { harnessOf, hookAnswer, hookCallAt, hookOptions, type HookCommandCall, hookStop, printHookAnswer, printNext, type HookStop } from './loop-answers.js';

const { join, resolve } = process.getBuiltinModule('node:path');

/**
 * `gapflow hook HARNESS`: the stop hook of Claude Code, Codex, Copilot,
 * Cursor or Gemini CLI. It always exits 0 (Claude Code and Codex read exit
 * 2 as "block"): whatever goes wrong, the answer lets the agent stop and
 * tells the user why, so a broken hook never traps the user nor switches
 * the loop off unseen.
 */
export const hook = command<HookCommandCall>((call, io) => {
  printHookAnswer(io, harnessOf(call), () => {
    const options = hookOptions(call);
    return answerStop(hookStop(options.harness, readStdin(io, EVENT_INPUT), options, io), options.maxBlocks, io);
  });
});

/** The hook's verdict for this stop, with its binding recorded and its block count kept; null when no session here is this hook's business. */
function answerStop(stop: HookStop, maxBlocks: number, io: CliIO): HookVerdict | null {
  const { dir } = stop;
  if (dir === null) return null;
  const at = { ...stop, dir };
  const { call, blocks } = hookCallAt(at);
  // Most calls record nothing: they are answered from the head checkpoint, and the session is opened only to record.
  const step = recordDecided(
    () => openFileSession(dir),
    (view) => hookStep(view, call, { blocks, maxBlocks }),
    undefined,
    () => peekHead(new FileLog(dir)),
  );
  return hookAnswer({ ...at, call }, step, io);
}

/** `gapflow next`: the loop's next move for any framework. */
export const next = command<ParsedCall>(({ values }, io) => {
  // The head is enough here: the next step and the prompt read the open gaps and the last rounds, not the history.
  const database = databaseSession(values, io);
  if (database !== null) {
    const store = databaseStore(database);
    return printNext(io, openLoopView(store), values.json, store.location);
  }
  const dir = sessionDir(values, io);
  printNext(io, openLoopView(dir), values.json, join(dir, LOG_FILE));
});

interface BatchLine extends GatedRequest {
  /** The line's own `at`, kept apart from its body (only an import reads it). */
  at?: unknown;
}

/** Parses a JSONL batch: one `{"type","data","id"?}` a line (with `timed`, an `"at"` too); blank lines are skipped but counted. */
function parseBatch(text: string, source: string, timed = false): BatchLine[] {
  const requests: BatchLine[] = [];
  text.split('\n').forEach((raw, index) => {
    if (raw.trim() === '') return;
    const where = `${source} line ${index + 1}`;
    let json: unknown;
    try {
      json = parseUserJson(raw);
    } catch (error) {
      throw new Refusal(`${where}: not JSON${error instanceof SyntaxError && error.message.includes('__proto__') ? ` (${error.message})` : ''}`);
    }
    if (typeof json !== 'object' || json === null || Array.isArray(json)) {
      throw new Refusal(`${where}: not an object like {"type":"gap.opened","data":{...}}`);
    }
    const { id, ...body } = json as Record<string, unknown>;
    // An import's time is the envelope's, not the body's (anywhere else an `at` is a field the body refuses).
    const at = body.at;
    if (timed) delete body.at;
    if (id !== undefined) {
      const parsed = EventId.safeParse(id, { reportInput: true });
      if (!parsed.success) {
        const { message, bad } = readIssue(parsed.error);
        throw new Refusal(`${where}: id: ${message}`, undefined, { ...bad, field: 'id' });
      }
    }
    // The session checks the body (parseBody, then the rules): the cast only hands it the raw object.
    // Words in any spelling, as the CLI takes them: from here on every step sees the log's own (`METRICS.RECORDED` is metrics.recorded).
    requests.push({ line: index + 1, body: canonicalRequest(body) as BatchRequest['body'], id: id as string | undefined, ...(timed ? { at } : {}) });
  });
  return requests;
}

/** `gapflow append [--file F|-]`: a batch of events from any language, appended whole or not at all. */
export const append = command<ParsedCall<typeof APPEND_FLAGS>>(({ values }, io) => {
  const file = values.file === '-' ? undefined : values.file;
  const source = file ?? 'stdin';
  const text = file !== undefined ? readTextFile(resolve(io.cwd, file), BATCH_INPUT) : readStdin(io, BATCH_INPUT);
  const batch = parseBatch(text, source);
  const forged = batch.find((request) => request.body.type === 'verification.ran');
  if (forged)
    throw new Refusal(`${source} line ${forged.line}: verification.ran is recorded by gapflow when it runs the session's check itself, not taken from a batch`);
  const { expectSeq } = writeOptions(values);
  const gated = gatedBatch(batch, values, io);
  const requests = gated?.requests ?? batch;
  const where = (i: number) => `${source} line ${requests[i]!.line}`;
  // A batch that begins with session.started, where no session lives yet, makes one: whole, or not at all.
  const store = storeOf(values, io);
  if (requests[0]?.body.type === 'session.started' && !store.exists()) {
    return appendNewSession(requests, where, expectSeq, values, io);
  }
  // Gap and round lines are decided on the head when it is current; --json prints the whole state, read after the write.
  const session = gated?.session ?? open(values, io, { head: true });
  const done = gated ? gated.record(where, expectSeq) : session.recordAll(requests, where, { expectSeq });
  // Each policy's reports, however its metrics arrive.
  const reports = writePolicyReports(session, io, values, done.appended);
  const appended = appendedLines(requests, done);
  if (values.json) {
    const lines = appended.map(({ line, own, type, started, already }) => ({
      line,
      seq: own?.seq ?? null,
      id: own?.id ?? null,
      type,
      roundStartedSeq: started,
      alreadyRecorded: already,
    }));
    return printJson(io, { appended: lines, events: done.appended, reports, state: toStateJson(session.view) });
  }
  io.stdout(appendLines(appended, done.appended.length, reports, session.current));
});

/**
 * `append` of a batch that starts a session: decided whole on a session in
 * memory (its first line starts it, as `init` would, the rest as on any
 * session), then written as one new log, so a refused line leaves no session
 * half-made; made where `init` makes one. Lets a loop in any language do
 * everything with `append` and `next --json`.
 */
function appendNewSession(
  requests: readonly BatchLine[],
  where: (i: number) => string,
  expectSeq: number | undefined,
  values: WhereOptions & { json?: boolean | undefined },
  io: CliIO,
): void {
  if (expectSeq !== undefined && expectSeq !== 0) throw new Refusal(`--expect-seq ${expectSeq}: no session is here yet, so the log ends at seq 0`);
  const { events, view, groups } = draftSession(requests, where);
  newStoreOf(values, io).create(events);
  const appended = appendedLines(requests, { groups, appended: events });
  if (values.json) {
    const lines = appended.map(({ line, own, type, started: roundStarted, already }) => ({
      line,
      seq: own?.seq ?? null,
      id: own?.id ?? null,
      type,
      roundStartedSeq: roundStarted,
      alreadyRecorded: already,
    }));
    return printJson(io, { appended: lines, events, reports: [], state: toStateJson(view) });
  }
  io.stdout(appendLines(appended, events.length, [], view));
}

/**
 * `gapflow import FILE|-`: a recorded session brought in with its dates, as
 * a new session where `init` makes one. Each line is an `append` line with
 * the `at` it happened; decided whole in memory, then written as one new
 * log, so a refused line (or a time that goes backwards or lies in the
 * future) leaves nothing behind.
 */
export const importCommand = command<ParsedCall>(({ values, args }, io) => {
  const file = args[0] === '-' ? undefined : args[0];
  const path = file === undefined ? undefined : logInFolder(resolve(io.cwd, file));
  const source = path ?? 'stdin';
  const store = newStoreOf(values, io);
  const where = store instanceof FileLog ? store.dir : store.location;
  if (store.exists()) throw new Refusal(`a session already lives in ${where}: import makes a new one; name an empty folder with --dir, or a new --session`);
  // Read to a log's size: what `export` wrote is a log, and a log may be bigger than a batch.
  const text = path !== undefined ? readTextFile(path, LOG_INPUT) : readStdin(io, LOG_INPUT);
  if (looksLikeLog(text)) {
    const events = importLog(store, text, source);
    if (values.json) return printJson(io, { events: events.length, lastSeq: events.at(-1)!.seq, state: toStateJson(Session.open(store).view) });
    return io.stdout(
      `imported ${events.length} ${events.length === 1 ? 'event' : 'events'} as written (seq 1-${events.at(-1)!.seq}, checksums kept) into ${where}\n`,
    );
  }
  if (Buffer.byteLength(text) > BATCH_INPUT.maxBytes)
    throw new LogError(
      `${source} is over the ${formatBytes(BATCH_INPUT.maxBytes)} limit of ${BATCH_INPUT.name}, and it is not a log gapflow wrote; nothing was written`,
    );
  const requests = parseBatch(text, source, true);
  const { events, view } = importedSession(requests, (i) => `${source} line ${requests[i]!.line}`);
  store.create(events);
  if (values.json) return printJson(io, { events, state: toStateJson(view) });
  io.stdout(`imported ${events.length} ${events.length === 1 ? 'event' : 'events'} into ${where}, ${events[0]!.at} to ${events.at(-1)!.at}\n`);
});

/** A folder given to `import`: the log of the one session it holds (itself, its .gapflow, or one folder inside); a file: itself. */
function logInFolder(path: string): string {
  // Not a folder, or not to be seen: reading it names what is wrong.
  if (isFolder(path) !== true) return path;
  const dirs = sessionDirsIn(path);
  if (dirs.length !== 1)
    throw new Refusal(
      `${path}: ${dirs.length === 0 ? 'no session there' : `${dirs.length} sessions there`}; import takes one log (a folder holding one session, or its events.jsonl)`,
    );
  return join(dirs[0]!, LOG_FILE);
}

/** Each batch line's own event: the one of its type (a round.started before it, R8, or a policy's round.closed after it come with it). */
function appendedLines(requests: readonly BatchLine[], { groups, appended }: BatchRecorded): AppendedLine[] {
  // A line whose id was already in the log (a retry) comes back as its original event, appended before.
  const fresh = new Set(appended);
  return requests.map((r, i) => {
    const group = groups[i]!;
    // A snapshot that changes nothing records nothing: its line has no event.
    const own = group.find((e) => e.type === r.body.type) ?? group.at(-1) ?? null;
    const started = group.find((e) => e !== own && e.type === 'round.started')?.seq ?? null;
    return { line: r.line, own, type: r.body.type, started, already: own !== null && !fresh.has(own) };
  });
}

/** `gapflow schema`: the JSON Schema of every event (the same text as events/schema.json). */
export const schema = command((_, io) => {
  io.stdout(gapflowJsonSchemaText());
});
