import { dirname, join, resolve, sep } from 'node:path';
import { EventId, formatIssue } from '../../events/index.js';
import { gapflowJsonSchemaText } from '../schema.js';
import { hookStep, loopStep, Refusal, standingStopRequest, toStateJson, type HookCall } from '../core/index.js';
import { appendLines, claudeHookAnswer, hookVerdict, hookWarningLine, nextLine, renderPrompt, type AppendedLine, type HookVerdict } from '../render/index.js';
import { WRITE_OPTIONS, writeOptions } from './log-options.js';
import { writePolicyReports } from './policy-commands.js';
import { BATCH_INPUT, validateInputText, EVENT_INPUT, FileLog, readHookBlocks, readTextFile, writeHookBlocks, type InputLimit } from '../log/index.js';
import { openFileSession, openLoopView, peekHead, recordDecided, recordOnHead, stamper, type BatchRecorded, type BatchRequest } from '../session/index.js';
import { parse, UsageError, wholeNumber } from './args.js';
import { type CliIO, type Command, open, parseUserJson, printJson, sessionDir } from './common.js';

const DEFAULT_MAX_BLOCKS = 5;

/** Standard input, held to `limit` whoever hands it over (the bin stops reading there; an in-process caller's text is measured). */
function readStdin(io: CliIO, limit: InputLimit): string {
  if (!io.stdin) throw new UsageError('this caller gives no standard input');
  return validateInputText(io.stdin(limit), 'standard input', limit);
}

/** What gapflow reads of a Claude Code Stop or SubagentStop hook's input; other fields are ignored. */
interface ClaudeStopInput {
  session_id: string;
  hook_event_name: 'Stop' | 'SubagentStop';
  stop_hook_active?: boolean;
  cwd?: string;
  agent_id?: string;
}

const STOP_EVENTS: readonly unknown[] = ['Stop', 'SubagentStop'];

/**
 * The hook's input checked by hand: the hook runs on every stop, and a
 * schema would cost more to build than the check. Its words are zod's, as
 * every other input's are: the first field wrong, in the order listed above.
 */
function claudeStopInput(json: unknown): ClaudeStopInput {
  const wrong = (problem: string) => new Error(`stdin is not a Stop or SubagentStop hook input: ${problem}`);
  if (typeof json !== 'object' || json === null || Array.isArray(json)) throw wrong(`Invalid input: expected object, received ${received(json)}`);
  const input = json as Record<string, unknown>;
  const text = (key: string, optional: boolean, minLength: number): void => {
    const value = input[key];
    if (value === undefined && optional) return;
    if (typeof value !== 'string') throw wrong(`${key}: Invalid input: expected string, received ${received(value)}`);
    if (value.length < minLength) throw wrong(`${key}: Too small: expected string to have >=${minLength} characters`);
  };
  text('session_id', false, 1);
  if (!STOP_EVENTS.includes(input.hook_event_name)) throw wrong('hook_event_name: Invalid option: expected one of "Stop"|"SubagentStop"');
  const active = input.stop_hook_active;
  if (active !== undefined && typeof active !== 'boolean') throw wrong(`stop_hook_active: Invalid input: expected boolean, received ${received(active)}`);
  text('cwd', true, 1);
  text('agent_id', true, 0);
  return input as unknown as ClaudeStopInput;
}

/** A JSON value's kind as zod names it in "received …". */
function received(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number' && !Number.isFinite(value)) return String(value);
  return typeof value;
}

/**
 * `gapflow hook claude`: the Stop and SubagentStop hook. It always exits 0
 * (Claude Code reads exit 2 as "block"): whatever goes wrong, a one-line
 * warning on stderr and `{}` let the agent stop, so a broken hook never traps
 * the user.
 */
export const hook: Command = (argv, io) => {
  try {
    const [verb, ...rest] = argv;
    if (verb !== 'claude') throw new UsageError(verb && !verb.startsWith('-') ? `unknown hook "${verb}" (claude)` : 'hook needs claude');
    const { values } = parse(rest, { 'max-blocks': { type: 'string' } }, []);
    const maxBlocks = wholeNumber('max-blocks', values['max-blocks']) ?? DEFAULT_MAX_BLOCKS;
    if (maxBlocks < 0) throw new Refusal('--max-blocks takes a whole number of 0 or more');
    io.stdout(claudeHookAnswer(answerClaude(readStdin(io, EVENT_INPUT), values.dir, maxBlocks, io)));
  } catch (error) {
    io.stderr(hookWarningLine(error instanceof Error ? error.message : String(error)));
    io.stdout(claudeHookAnswer(null));
  }
};

/** The hook's verdict for this Stop call, with its binding recorded and its block count kept; null when no session here is this hook's business. */
function answerClaude(stdin: string, dirOption: string | undefined, maxBlocks: number, io: CliIO): HookVerdict | null {
  let json: unknown;
  try {
    json = JSON.parse(stdin);
  } catch {
    throw new Error('stdin is not JSON (a Claude Code Stop or SubagentStop hook input was expected)');
  }
  const input = claudeStopInput(json);
  const call: HookCall = {
    agentSession: input.session_id,
    event: input.hook_event_name,
    stopHookActive: input.stop_hook_active ?? false,
  };
  const dir = hookSessionDir(dirOption, input.cwd ?? io.cwd, io);
  // Each subagent keeps its own count; the prefix keeps an odd agent id from being a special key.
  const agent = call.event === 'SubagentStop' ? `subagent:${input.agent_id ?? ''}` : 'main';
  if (dir === null) return null;
  // Most calls record nothing: they are answered from the head checkpoint, and the session is opened only to record.
  const step = recordDecided(
    () => openFileSession(dir),
    (view) => hookStep(view, call, { blocks: readHookBlocks(dir, call.agentSession, agent), maxBlocks }),
    undefined,
    () => peekHead(new FileLog(dir)),
  );
  if (step.blocks !== null) writeHookBlocks(dir, call.agentSession, agent, step.blocks);
  return hookVerdict(step.view, call, step.context, step.decision);
}

/**
 * Where the hook finds its session: `--dir`, else `$GAPFLOW_DIR`, else the
 * nearest `.gapflow` holding a log from the agent's cwd upward (an agent may
 * have `cd`-ed into a subfolder; inside `$CLAUDE_PROJECT_DIR` no higher than
 * its root), else `$CLAUDE_PROJECT_DIR/.gapflow`; null
 * when there is none (the hook then lets the agent stop and touches nothing).
 */
function hookSessionDir(dirOption: string | undefined, cwd: string, io: CliIO): string | null {
  if (dirOption !== undefined || io.env.GAPFLOW_DIR) {
    const dir = sessionDir(dirOption, { ...io, cwd });
    return new FileLog(dir).exists() ? dir : null;
  }
  const project = io.env.CLAUDE_PROJECT_DIR ? resolve(io.env.CLAUDE_PROJECT_DIR) : null;
  const start = resolve(cwd);
  // Inside the project, the search stops at its root: another folder's loop above it is not this agent's.
  const top = project !== null && (start === project || start.startsWith(`${project}${sep}`)) ? project : null;
  for (let at = start; ; at = dirname(at)) {
    const dir = join(at, '.gapflow');
    if (new FileLog(dir).exists()) return dir;
    if (at === top || dirname(at) === at) break;
  }
  const fallback = project ? join(project, '.gapflow') : null;
  return fallback && new FileLog(fallback).exists() ? fallback : null;
}

/** `gapflow next`: the loop's next move for any framework. */
export const next: Command = (argv, io) => {
  const { values } = parse(argv, {}, []);
  // The head is enough here: the next step and the prompt read the open gaps and the last rounds, not the history.
  const view = openLoopView(sessionDir(values.dir, io));
  const step = loopStep(view, standingStopRequest(view));
  const prompt = step.action === 'ask_user' ? renderPrompt(view) : null;
  if (values.json) return printJson(io, { ...step, prompt });
  io.stdout(nextLine(step));
};

interface BatchLine extends BatchRequest {
  line: number;
}

/** Parses a JSONL batch: one `{"type","data","id"?}` a line; blank lines are skipped but counted. */
function parseBatch(text: string, source: string): BatchLine[] {
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
    if (id !== undefined) {
      const parsed = EventId.safeParse(id);
      if (!parsed.success) throw new Refusal(`${where}: id: ${formatIssue(parsed.error)}`);
    }
    // The session checks the body (parseBody, then the rules): the cast only hands it the raw object.
    requests.push({ line: index + 1, body: body as BatchRequest['body'], id: id as string | undefined });
  });
  return requests;
}

/** `gapflow append [--file F|-]`: a batch of events from any language, appended whole or not at all. */
export const append: Command = (argv, io) => {
  const { values } = parse(argv, { file: { type: 'string' }, 'expect-seq': WRITE_OPTIONS['expect-seq'] }, []);
  const file = values.file === '-' ? undefined : values.file;
  const source = file ?? 'stdin';
  const text = file !== undefined ? readTextFile(resolve(io.cwd, file), BATCH_INPUT) : readStdin(io, BATCH_INPUT);
  const requests = parseBatch(text, source);
  const { expectSeq } = writeOptions(values);
  const where = (i: number) => `${source} line ${requests[i]!.line}`;
  // Gap and round lines are decided on the head when it is current (no metrics among them: no policy report to write).
  // --json prints the whole state, so it opens the whole session.
  const quick = values.json ? null : recordOnHead(new FileLog(sessionDir(values.dir, io)), requests, where, { expectSeq }, stamper({}));
  if (quick !== null) return io.stdout(appendLines(appendedLines(requests, quick), quick.appended.length, [], quick.view));
  const session = open(values, io);
  const done = session.recordAll(requests, where, { expectSeq });
  // Each policy's reports, however its metrics arrive.
  const reports = writePolicyReports(session, io, values.dir, done.appended);
  const appended = appendedLines(requests, done);
  if (values.json) {
    const lines = appended.map(({ line, own, started, already }) => ({ line, seq: own.seq, id: own.id, type: own.type, roundStartedSeq: started, alreadyRecorded: already }));
    return printJson(io, { appended: lines, events: done.appended, reports, state: toStateJson(session.view) });
  }
  io.stdout(appendLines(appended, done.appended.length, reports, session.view));
};

/** Each batch line's own event: the one of its type (a round.started before it, R8, or a policy's round.closed after it come with it). */
function appendedLines(requests: readonly BatchLine[], { groups, appended }: BatchRecorded): AppendedLine[] {
  // A line whose id was already in the log (a retry) comes back as its original event, appended before.
  const fresh = new Set(appended);
  return requests.map((r, i) => {
    const group = groups[i]!;
    const own = group.find((e) => e.type === r.body.type) ?? group.at(-1)!;
    const started = group.find((e) => e !== own && e.type === 'round.started')?.seq ?? null;
    return { line: r.line, own, started, already: !fresh.has(own) };
  });
}

/** `gapflow schema`: the JSON Schema of every event (the same text as events/schema.json). */
export const schema: Command = (argv, io) => {
  parse(argv, {}, []);
  io.stdout(gapflowJsonSchemaText());
};
