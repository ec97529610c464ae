import { type HookCall, type HookStep, topListedGaps, viewForecast, loopStep, standingStopRequest, Refusal, type SessionView } from '../core/index.js';
import { commandApproved, findSessionDir, holdsSession, LOG_FILE, readHookBlocks, trustPlace, writeHookBlocks } from '../log/index.js';
import {
  gapEntry,
  harnessFailureAnswer,
  harnessHookAnswer,
  type Harness,
  type HookAnswer,
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
 * prompt when one is due. `--json` adds the first LISTED_GAPS gaps not
 * closed (id, severity, state, title), how many more there are, and, when the user must decide, the options, each with the
 * request that takes it.
 */
export function printNext(io: CliIO, view: SessionView, json: boolean | undefined, location: string): void {
  const step = loopStep(view, standingStopRequest(view));
  const asks = step.action === 'ask_user';
  const prompt = asks ? renderPrompt(view) : null;
  const unapproved = unapprovedCheck(view, location, io);
  if (json) {
    const verification = step.verification === null ? null : { ...step.verification, approvedHere: unapproved === null };
    const listed = topListedGaps(view);
    return printJson(io, {
      ...step,
      verification,
      forecast: viewForecast(view),
      gaps: listed.gaps.map(gapEntry),
      gapsNotListed: listed.notListed,
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

/** What the hook's command line asks: the harness, the session folder named, the block cap, and the subagent types it keeps going (null: all). */
export interface HookOptions {
  harness: Harness;
  dir: string | undefined;
  maxBlocks: number;
  agentTypes: string[] | null;
}

/** The hook's call: its harness, `--dir`, `--max-blocks` and `--agent-type` (its entry's words, HOOK_WORDS). */
export type HookCommandCall = VerbCall<(typeof HOOK_WORDS)['verbs']>;

/** The harness a hook call names; Claude Code's shape for a call whose harness could not be read (its answer is a usage error's). */
export function harnessOf(call: HookCommandCall): Harness {
  return call.verb ?? 'claude';
}

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
    throw new UsageError(`hook ${harnessOf(call)} works on a session folder (--dir), not on a store (--store, --session)`);
  return { harness: harnessOf(call), dir: values.dir, maxBlocks, agentTypes };
}

/** What gapflow reads of a stop hook's input, whichever harness sent it; other fields are ignored. */
interface StopInput {
  agentSession: string;
  event: 'Stop' | 'SubagentStop';
  /** Whether a hook's block made the agent go on (`stop_hook_active`); null where the harness does not say (gapflow counts). */
  stopHookActive: boolean | null;
  /** Where the agent works, nearest first: its cwd, or Cursor's workspace roots; none: the hook's own cwd. */
  places: string[];
  agentId?: string | undefined;
  agentType?: string | undefined;
  /** The user ended the turn (Cursor's `status` `aborted` or `error`). */
  userStopped: boolean;
  /** Follow-ups the harness has already sent for this conversation (Cursor's `loop_count`); 0 elsewhere. */
  loopCount: number;
}

/** Each harness's stop event, as the input names it, and how it is read (the user reads this in an error). */
const INPUT_NAMES: Readonly<Record<Harness, string>> = {
  claude: 'Stop or SubagentStop',
  codex: 'Codex Stop or SubagentStop',
  copilot: 'Copilot agentStop or Stop',
  cursor: 'Cursor stop',
  gemini: 'Gemini CLI AfterAgent',
};

/**
 * A harness's input checked by hand: the hook runs on every stop, and a
 * schema would cost more to build than the check. Its words are zod's, as
 * every other input's are: the first field wrong, in the order each reader
 * lists them.
 */
function stopInput(harness: Harness, json: unknown): StopInput {
  const wrong = (problem: string) => new Error(`stdin is not a ${INPUT_NAMES[harness]} hook input: ${problem}`);
  if (typeof json !== 'object' || json === null || Array.isArray(json)) throw wrong(`Invalid input: expected object, received ${received(json)}`);
  const input = json as Record<string, unknown>;
  const text = (key: string, optional: boolean, minLength: number): string | undefined => {
    const value = input[key];
    if (value === undefined && optional) return undefined;
    if (typeof value !== 'string') throw wrong(`${key}: Invalid input: expected string, received ${received(value)}`);
    if (value.length < minLength) throw wrong(`${key}: Too small: expected string to have >=${minLength} characters`);
    return value;
  };
  const event = (key: string, names: readonly string[]): string => {
    if (!names.includes(input[key] as string)) throw wrong(`${key}: Invalid option: expected one of ${names.map((name) => `"${name}"`).join('|')}`);
    return input[key] as string;
  };
  const flag = (key: string): boolean | null => {
    const value = input[key];
    if (value === undefined) return null;
    if (typeof value !== 'boolean') throw wrong(`${key}: Invalid input: expected boolean, received ${received(value)}`);
    return value;
  };
  const plain = { userStopped: false, loopCount: 0 };
  switch (harness) {
    case 'claude':
    case 'codex': {
      const agentSession = text('session_id', false, 1)!;
      const name = event('hook_event_name', ['Stop', 'SubagentStop']) as StopInput['event'];
      const stopHookActive = flag('stop_hook_active') ?? false;
      const cwd = text('cwd', true, 1);
      return {
        ...plain,
        agentSession,
        event: name,
        stopHookActive,
        places: cwd === undefined ? [] : [cwd],
        agentId: text('agent_id', true, 0),
        agentType: text('agent_type', true, 0),
      };
    }
    case 'copilot': {
      // `agentStop` in the hooks file sends camelCase; `Stop` sends snake_case. Older CLIs send no stop_hook_active.
      const camel = !('hook_event_name' in input);
      if (!camel) event('hook_event_name', ['Stop']);
      const agentSession = text(camel ? 'sessionId' : 'session_id', false, 1)!;
      const cwd = text('cwd', true, 1);
      return { ...plain, agentSession, event: 'Stop', stopHookActive: flag('stop_hook_active'), places: cwd === undefined ? [] : [cwd] };
    }
    case 'cursor': {
      const agentSession = text('conversation_id', false, 1)!;
      event('hook_event_name', ['stop']);
      const roots = input.workspace_roots;
      if (roots !== undefined && (!Array.isArray(roots) || roots.some((root) => typeof root !== 'string')))
        throw wrong('workspace_roots: Invalid input: expected array of strings');
      const status = event('status', ['completed', 'aborted', 'error']);
      const loopCount = input.loop_count ?? 0;
      if (typeof loopCount !== 'number' || !Number.isInteger(loopCount) || loopCount < 0)
        throw wrong(`loop_count: Invalid input: expected a whole number, received ${received(loopCount)}`);
      const places = ((roots as string[] | undefined) ?? []).filter((root) => root !== '');
      return { agentSession, event: 'Stop', stopHookActive: null, places, userStopped: status !== 'completed', loopCount };
    }
    case 'gemini': {
      const agentSession = text('session_id', false, 1)!;
      event('hook_event_name', ['AfterAgent']);
      const stopHookActive = flag('stop_hook_active') ?? false;
      const cwd = text('cwd', true, 1);
      return { ...plain, agentSession, event: 'Stop', stopHookActive, places: cwd === undefined ? [] : [cwd] };
    }
  }
}

/** A JSON value's kind as zod names it in "received …". */
function received(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number' && !Number.isFinite(value)) return String(value);
  return typeof value;
}

/**
 * One stop, as the hook reads it: the call, the session folder it concerns
 * (null: none here), whose blocks in a row it counts, and, where the
 * harness does not say whether a block made the agent go on, the count of
 * follow-ups it has sent (Cursor's; gapflow's own count stands in otherwise).
 */
export interface HookStop {
  harness: Harness;
  call: HookCall;
  /** The harness sends no `stop_hook_active`: the call's is made from the blocks in a row (hookCallAt). */
  counted: boolean;
  loopCount: number;
  dir: string | null;
  agent: string;
}

/**
 * The stop that standard input `stdin` tells of, in `harness`'s words, and
 * the session it concerns: none for a subagent whose type the hook is not
 * scoped to (it stops, and nothing is touched), nor when no session is
 * found from where the agent works. A folder named by `--dir` or
 * `$GAPFLOW_DIR` that holds no session is an error (the user is told):
 * naming it was asking for one.
 */
export function hookStop(harness: Harness, stdin: string, options: Pick<HookOptions, 'dir' | 'agentTypes'>, io: Pick<CliIO, 'cwd' | 'env'>): HookStop {
  let json: unknown;
  try {
    json = JSON.parse(stdin);
  } catch {
    throw new Error(`stdin is not JSON (a ${harness === 'claude' ? 'Claude Code ' : ''}${INPUT_NAMES[harness]} hook input was expected)`);
  }
  const input = stopInput(harness, json);
  const call: HookCall = { agentSession: input.agentSession, event: input.event, stopHookActive: input.stopHookActive ?? false };
  if (input.userStopped) call.userStopped = true;
  // Each subagent keeps its own count; the prefix keeps an odd agent id from being a special key.
  const agent = call.event === 'SubagentStop' ? `subagent:${input.agentId ?? ''}` : 'main';
  const scoped = options.agentTypes === null || call.event !== 'SubagentStop' || options.agentTypes.includes(input.agentType ?? '');
  const places = input.places.length > 0 ? input.places : [io.cwd];
  const dir = scoped ? firstSessionDir(options.dir, places, io) : null;
  return { harness, call, counted: input.stopHookActive === null, loopCount: input.loopCount, dir, agent };
}

/** The session for the first of `places` that has one (Cursor's workspace roots, in order), as hookSessionDir finds it. */
function firstSessionDir(dirOption: string | undefined, places: readonly string[], io: Pick<CliIO, 'env'>): string | null {
  for (const place of places) {
    const dir = hookSessionDir(dirOption, place, io);
    if (dir !== null) return dir;
  }
  return null;
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

/**
 * The blocks in a row this stop's agent has had before it, and the call as
 * the core decides it: where the harness does not say whether a block made
 * the agent go on, the count does (any block before this stop, or a Cursor
 * follow-up, and this stop is the agent going on), so blocking stays bounded
 * by `--max-blocks` whatever the harness sends.
 */
export function hookCallAt(stop: HookStop & { dir: string }): { call: HookCall; blocks: number } {
  const blocks = Math.max(readHookBlocks(stop.dir, stop.call.agentSession, stop.agent), stop.loopCount);
  return { call: stop.counted ? { ...stop.call, stopHookActive: blocks > 0 } : stop.call, blocks };
}

/** Words the step's decision, and keeps the agent's blocks in a row for its next stop (when they changed). */
export function hookAnswer(stop: HookStop & { dir: string }, step: HookStep, io: Pick<CliIO, 'env'>): HookVerdict {
  const verdict = hookVerdict(step.view, stop.call, step.context, step.decision);
  if (step.blocks !== null) writeHookBlocks(stop.dir, stop.call.agentSession, stop.agent, step.blocks);
  const unapproved = verdict.block ? unapprovedCheck(step.view, join(stop.dir, LOG_FILE), io) : null;
  return unapproved === null ? verdict : { ...verdict, reason: `${verdict.reason}\n\nNote: ${unapprovedCheckNote(unapproved)}.` };
}

/**
 * Prints the hook's answer in `harness`'s shape. Whatever goes wrong, the
 * answer lets the agent stop and tells the user why (a `systemMessage`
 * where the harness has one; the same line goes to stderr, its debug or
 * hook output), and the hook exits 0 (Claude Code and Codex read exit 2 as
 * "block"): a broken hook never traps the user, and never switches the loop
 * off unseen.
 */
export function printHookAnswer(io: CliIO, harness: Harness, answer: () => HookVerdict | null): void {
  let text: HookAnswer;
  try {
    text = harnessHookAnswer(harness, answer());
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    io.stderr(hookWarningLine(message));
    // A mistake in the command line (the harness's hook settings) shows the command line it should be.
    text = error instanceof UsageError ? { line: misfiredHookAnswer(message), note: null } : harnessFailureAnswer(harness, message);
  }
  io.stdout(text.line);
  if (text.note !== null) io.stderr(text.note);
}
