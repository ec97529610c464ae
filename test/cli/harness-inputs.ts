import { stopInput, type HookInput } from './hook-inputs.js';

/*
 * What each agent harness hands its stop hook on stdin, every field its
 * published reference lists, as the hook's tests feed it:
 * - Codex: the Stop input schema (test/fixtures/hooks/, checked against it);
 * - GitHub Copilot: the hooks reference's `agentStop` (camelCase) and `Stop`
 *   (snake_case) payloads (docs.github.com, copilot/reference/hooks-reference),
 *   with and without `stop_hook_active` (older CLIs send none);
 * - Cursor: the hooks page's common fields and the stop hook's `status` and
 *   `loop_count` (cursor.com/docs/agent/hooks);
 * - Gemini CLI: AfterAgent's input (packages/core/src/hooks/types.ts).
 */

export type Harness = 'claude' | 'codex' | 'copilot' | 'cursor' | 'gemini';

/** One harness input, named for the test, and whether it says a block made the agent go on. */
export interface HarnessCase {
  name: string;
  harness: Harness;
  /** The input for an agent working in `cwd`, a first stop of its turn (or, with `active`, one after a block). */
  input: (cwd: string, active?: boolean) => HookInput;
}

const CODEX_SESSION = '019a3f2e-7c1d-7b40-9e55-0c2d8f1a6b73';
const COPILOT_SESSION = 'c0p1l0t-5e55-4a1b-8c2d-3e4f5a6b7c8d';
const CURSOR_CONVERSATION = '8c5d2f4e-1a3b-4c6d-9e8f-0a1b2c3d4e5f';
const GEMINI_SESSION = 'f3b2a1c0-9d8e-4f7a-b6c5-d4e3f2a1b0c9';

export function codexStop(cwd: string, active = false): HookInput {
  return {
    session_id: CODEX_SESSION,
    turn_id: '019a3f2e-8a11-7c02-a3b4-5d6e7f809102',
    transcript_path: `/home/dev/.codex/sessions/2026/11/29/rollout-${CODEX_SESSION}.jsonl`,
    cwd,
    hook_event_name: 'Stop',
    model: 'gpt-5-codex',
    permission_mode: 'default',
    stop_hook_active: active,
    last_assistant_message: 'Round 1 is done; the parser gap is resolved.',
  };
}

/** Copilot's `agentStop`: camelCase, a timestamp in milliseconds, and (newer CLIs) `stop_hook_active` in snake_case. */
export function copilotAgentStop(cwd: string, active?: boolean): HookInput {
  return {
    sessionId: COPILOT_SESSION,
    timestamp: 1_796_000_000_000,
    cwd,
    transcriptPath: `/home/dev/.copilot/session-state/${COPILOT_SESSION}/events.jsonl`,
    stopReason: 'end_turn',
    ...(active === undefined ? {} : { stop_hook_active: active }),
  };
}

/** Copilot's `Stop` (the VS Code-compatible name): snake_case, an ISO timestamp. */
export function copilotStop(cwd: string, active?: boolean): HookInput {
  return {
    hook_event_name: 'Stop',
    session_id: COPILOT_SESSION,
    timestamp: '2026-11-29T12:00:00.000Z',
    cwd,
    transcript_path: `/home/dev/.copilot/session-state/${COPILOT_SESSION}/events.jsonl`,
    stop_reason: 'end_turn',
    ...(active === undefined ? {} : { stop_hook_active: active }),
  };
}

/** Cursor's stop: no cwd and no session id, but the conversation and the workspace roots; `loop_count` follow-ups sent so far. */
export function cursorStop(roots: string[], status: 'completed' | 'aborted' | 'error' = 'completed', loopCount = 0): HookInput {
  return {
    conversation_id: CURSOR_CONVERSATION,
    generation_id: '2b7e1f4a-6c3d-4e5f-8a9b-0c1d2e3f4a5b',
    model: 'claude-4.5-sonnet',
    hook_event_name: 'stop',
    cursor_version: '2.1.0',
    workspace_roots: roots,
    user_email: 'dev@example.com',
    status,
    loop_count: loopCount,
  };
}

export function geminiAfterAgent(cwd: string, active = false): HookInput {
  return {
    session_id: GEMINI_SESSION,
    transcript_path: `/home/dev/.gemini/tmp/3f2e/chats/session-${GEMINI_SESSION}.json`,
    cwd,
    hook_event_name: 'AfterAgent',
    timestamp: '2026-11-29T12:00:00.000Z',
    prompt: 'Work the open gaps of the loop.',
    prompt_response: 'Round 1 is done; the parser gap is resolved.',
    stop_hook_active: active,
  };
}

/** Every harness input the tests feed, Copilot in both spellings, with and without stop_hook_active. */
export const HARNESS_CASES: readonly HarnessCase[] = [
  { name: 'claude Stop', harness: 'claude', input: (cwd, active = false) => stopInput(cwd, { stop_hook_active: active }) },
  { name: 'codex Stop', harness: 'codex', input: codexStop },
  { name: 'copilot agentStop', harness: 'copilot', input: (cwd, active) => copilotAgentStop(cwd, active) },
  { name: 'copilot agentStop, stop_hook_active sent', harness: 'copilot', input: (cwd, active = false) => copilotAgentStop(cwd, active) },
  { name: 'copilot Stop', harness: 'copilot', input: (cwd, active) => copilotStop(cwd, active) },
  { name: 'cursor stop', harness: 'cursor', input: (cwd) => cursorStop([cwd]) },
  { name: 'gemini AfterAgent', harness: 'gemini', input: geminiAfterAgent },
];
