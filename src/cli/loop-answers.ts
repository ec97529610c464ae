import { type HookCall, type HookStep, listedGaps, viewForecast, loopStep, standingStopRequest, Refusal, type SessionView } from '../core/index.js';
import { commandApproved, findSessionDir, holdsSession, LOG_FILE, readHookBlocks, trustPlace, writeHookBlocks } from '../log/index.js';
import {
  claudeHookAnswer,
  gapEntry,
  hookFailureAnswer,
  hookWarningLine,
  misfiredHookAnswer,
  nextLine,
  hookVerdict,
  type HookVerdict,
  optionEntries,
  renderPrompt,
  unapprovedCheckNote,
} from '../render/index.js';
import { list, UsageError, type VerbCall, wholeNumber } from './args.js';
import { printJson, namedSessionDir, ownFolder, type CliIO } from './common.js';
import type { HOOK_WORDS } from './table.js';

const { join } = process.getBuiltinModule('node:path');

/*
 * What `next` and `gapflow hook claude` make of a call and of the view they
 * answer from, shared by the full commands (loop-commands.ts) and the bin's
 * short path from the head checkpoint (head-answers.ts), so the two answer
 * byte for byte alike. Loads no schema, statechart or immer.
 */

const DEFAULT_MAX_BLOCKS = 5;

/**
 * `gapflow next`'s answer from `view`: the next step, with the decision
 * prompt when one is due. `--json` adds the gaps not closed (id, severity,
 * state, title) and, when the user must decide, the options, each with the
 * request that takes it.
 */
export function printNext(io: CliIO, view: SessionView, json: boolean | undefined, location: string): void {
  const step = loopStep(view, standingStopRequest(view));
  const asks = step.action === 'ask_user';
  const prompt = asks ? renderPrompt(view) : null;
  const unapproved = unapprovedCheck(view, location, io);
  if (json) {
    const verification = step.verification === null ? null : { ...step.verification, approvedHere: unapproved === null };
    return printJson(io, {
      ...step,
      verification,
      forecast: viewForecast(view),
      gaps: listedGaps(view).map(gapEntry),
      options: asks ? optionEntries(view) : [],
      prompt,
    });
  }
  io.stdout(unapproved === null || step.action !== 'continue' ? nextLine(step) : `${nextLine(step).trimEnd()}; ${unapprovedCheckNote(unapproved)}\n`);
}

/**
 * The session's check when this user has not approved it on this machine
 * (src/cli/trust.ts): the write that would complete will be refused, so
 * `next` and the hook say so while the loop goes on. Null otherwise.
 */
function unapprovedCheck(view: SessionView, location: string, io: Pick<CliIO, 'env'>): string | null {
  const command = view.settings?.verify?.command;
  return command === undefined || commandApproved(io.env, trustPlace(location), command) ? null : command;
}

/** What the hook's command line asks: the session folder named, the block cap, and the subagent types it keeps going (null: all). */
export interface HookOptions {
  dir: string | undefined;
  maxBlocks: number;
  agentTypes: string[] | null;
}

/** The hook's call: `claude`, `--dir`, `--max-blocks` and `--agent-type` (its entry's words, HOOK_WORDS). */
export type HookCommandCall = VerbCall<(typeof HOOK_WORDS)['verbs']>;

/** What the hook's call asks; a mistake in its words (`call.problem`) is thrown here, where the hook answers it. */
export function hookOptions(call: HookCommandCall): HookOptions {
  if (call.problem) throw call.problem;
  const { values } = call;
  const maxBlocks = wholeNumber('max-blocks', values['max-blocks']) ?? DEFAULT_MAX_BLOCKS;
  if (maxBlocks < 0) throw new Refusal('--max-blocks takes a whole number of 0 or more');
  const agentTypes = list(values['agent-type']) ?? null;
  if (agentTypes !== null && agentTypes.length === 0) throw new UsageError('--agent-type needs a subagent type (or several, comma-separated)');
  // The hook keeps each agent's blocks in a row beside the log: it works on session folders.
  if (values.store !== undefined || values.session !== undefined)
    throw new UsageError('hook claude works on a session folder (--dir), not on a store (--store, --session)');
  return { dir: values.dir, maxBlocks, agentTypes };
}

/** What gapflow reads of a Claude Code Stop or SubagentStop hook's input; other fields are ignored. */
interface ClaudeStopInput {
  session_id: string;
  hook_event_name: 'Stop' | 'SubagentStop';
  stop_hook_active?: boolean;
  cwd?: string;
  agent_id?: string;
  agent_type?: string;
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
  text('agent_type', true, 0);
  return input as unknown as ClaudeStopInput;
}

/** A JSON value's kind as zod names it in "received …". */
function received(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number' && !Number.isFinite(value)) return String(value);
  return typeof value;
}

/** One stop, as the hook reads it: the call, the session folder it concerns (null: none here), and whose blocks in a row it counts. */
export interface ClaudeStop {
  call: HookCall;
  dir: string | null;
  agent: string;
}

/**
 * The stop that standard input `stdin` tells of, and the session it
 * concerns: none for a subagent whose type the hook is not scoped to (it
 * stops, and nothing is touched), nor when no session is found from the
 * agent's cwd. A folder named by `--dir` or `$GAPFLOW_DIR` that holds no
 * session is an error (the user is told): naming it was asking for one.
 */
export function claudeStop(stdin: string, options: Pick<HookOptions, 'dir' | 'agentTypes'>, io: Pick<CliIO, 'cwd' | 'env'>): ClaudeStop {
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
  // Each subagent keeps its own count; the prefix keeps an odd agent id from being a special key.
  const agent = call.event === 'SubagentStop' ? `subagent:${input.agent_id ?? ''}` : 'main';
  const scoped = options.agentTypes === null || call.event !== 'SubagentStop' || options.agentTypes.includes(input.agent_type ?? '');
  return { call, dir: scoped ? hookSessionDir(options.dir, input.cwd ?? io.cwd, io) : null, agent };
}

/**
 * Where the hook finds its session: the folder `--dir` or `$GAPFLOW_DIR`
 * names, else the nearest `.gapflow` holding a session from the agent's cwd
 * upward, as every command finds it (sessionDir); null when there is none.
 */
function hookSessionDir(dirOption: string | undefined, cwd: string, io: Pick<CliIO, 'env'>): string | null {
  // The hook works on folders (an agent's blocks in a row live beside the log): a team-wide $GAPFLOW_STORE is not its business.
  const where = { cwd, env: { ...io.env, GAPFLOW_STORE: undefined } };
  const named = namedSessionDir({ dir: dirOption }, where);
  if (named === null) {
    const found = findSessionDir(cwd, io.env.CLAUDE_PROJECT_DIR || undefined);
    return found === null ? null : ownFolder(found, io);
  }
  if (!holdsSession(named)) {
    const by = dirOption !== undefined ? '--dir' : '$GAPFLOW_DIR';
    throw new Error(`no session in ${named}, the folder ${by} names (gapflow init --dir ${named} creates one)`);
  }
  return ownFolder(named, io);
}

/** The blocks in a row this stop's agent has had before it. */
export function blocksBefore(stop: ClaudeStop & { dir: string }): number {
  return readHookBlocks(stop.dir, stop.call.agentSession, stop.agent);
}

/** Words the step's decision, and keeps the agent's blocks in a row for its next stop (when they changed). */
export function hookAnswer(stop: ClaudeStop & { dir: string }, step: HookStep, io: Pick<CliIO, 'env'>): HookVerdict {
  const verdict = hookVerdict(step.view, stop.call, step.context, step.decision);
  if (step.blocks !== null) writeHookBlocks(stop.dir, stop.call.agentSession, stop.agent, step.blocks);
  const unapproved = verdict.block ? unapprovedCheck(step.view, join(stop.dir, LOG_FILE), io) : null;
  return unapproved === null ? verdict : { ...verdict, reason: `${verdict.reason}\n\nNote: ${unapprovedCheckNote(unapproved)}.` };
}

/**
 * Prints the hook's answer to Claude Code. Whatever goes wrong, the answer
 * lets the agent stop and tells the user why (a `systemMessage`; the same
 * line goes to stderr, Claude Code's debug output), and the hook exits 0
 * (Claude Code reads exit 2 as "block"): a broken hook never traps the user,
 * and never switches the loop off unseen.
 */
export function printHookAnswer(io: CliIO, answer: () => HookVerdict | null): void {
  let text: string;
  try {
    text = claudeHookAnswer(answer());
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    io.stderr(hookWarningLine(message));
    // A mistake in the command line (settings.json) shows the command line it should be.
    text = error instanceof UsageError ? misfiredHookAnswer(message) : hookFailureAnswer(message);
  }
  io.stdout(text);
}
