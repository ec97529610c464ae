/*
 * The JSON Claude Code hands a stop hook on stdin, as its hooks reference
 * lists it (https://code.claude.com/docs/en/hooks): the common fields and
 * the Stop ones, and for SubagentStop the subagent's id, type and
 * transcript. Shared by the hook's tests, so every one feeds the same shape.
 */

export type HookInput = Record<string, unknown>;

/** The Claude Code session the inputs come from. */
export const SESSION = '4f3c1a2e-8d7b-4c4e-9a51-2b6f0e9d1c33';

/** A Stop hook's input, every field the reference lists for it. */
export function stopInput(cwd: string, more: HookInput = {}): HookInput {
  return {
    session_id: SESSION,
    transcript_path: `/home/dev/.claude/projects/-work-app/${SESSION}.jsonl`,
    cwd,
    permission_mode: 'default',
    hook_event_name: 'Stop',
    stop_hook_active: false,
    last_assistant_message: 'Round 1 is done; the parser gap is resolved.',
    ...more,
  };
}

/** A SubagentStop hook's input: the Stop fields and the subagent's id, type and transcript. */
export function subagentStopInput(cwd: string, more: HookInput = {}): HookInput {
  return stopInput(cwd, {
    hook_event_name: 'SubagentStop',
    agent_id: 'a91f0c2',
    agent_type: 'reviewer',
    agent_transcript_path: `/home/dev/.claude/projects/-work-app/${SESSION}/subagents/agent-a91f0c2.jsonl`,
    ...more,
  });
}
