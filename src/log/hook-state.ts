import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { LOG_FILE } from './log-path.js';
import { withLock } from './lock.js';
import { PRIVATE_FILE_MODE, writeWhole } from './durable.js';

/**
 * `<dir>/hook-state.json`: how many times in a row the stop hook has blocked
 * each agent (the main agent and each subagent) of the bound agent session.
 * A count of hook calls is not a fact about the loop, so it stays out of the
 * event log; it is written whole (temp + rename) and, if unreadable, counts
 * as zero: a lost count can only let an agent stop sooner, never trap it.
 */
export const HOOK_STATE_FILE = 'hook-state.json';

interface HookState {
  agentSession: string;
  blocks: Record<string, number>;
}

export function readHookBlocks(dir: string, agentSession: string, agent: string): number {
  try {
    const state = JSON.parse(readFileSync(join(dir, HOOK_STATE_FILE), 'utf8')) as Partial<HookState>;
    if (state.agentSession !== agentSession) return 0;
    const blocks = state.blocks && Object.hasOwn(state.blocks, agent) ? state.blocks[agent] : undefined;
    return typeof blocks === 'number' && Number.isInteger(blocks) && blocks > 0 ? blocks : 0;
  } catch {
    return 0;
  }
}

/**
 * Keeps `blocks` for `agent`, dropping every other agent session's counts.
 * Under the log's lock: subagents stopping at once must not overwrite each
 * other's counts.
 */
export function writeHookBlocks(dir: string, agentSession: string, agent: string, blocks: number): void {
  withLock(join(dir, LOG_FILE), () => writeUnlocked(dir, agentSession, agent, blocks));
}

function writeUnlocked(dir: string, agentSession: string, agent: string, blocks: number): void {
  const path = join(dir, HOOK_STATE_FILE);
  let counts = new Map<string, number>();
  try {
    const state = JSON.parse(readFileSync(path, 'utf8')) as Partial<HookState>;
    if (state.agentSession === agentSession && typeof state.blocks === 'object' && state.blocks !== null) {
      counts = new Map(Object.entries(state.blocks));
    }
  } catch {
    // no file yet, or an unreadable one: start afresh
  }
  if (blocks > 0) counts.set(agent, blocks);
  else counts.delete(agent);
  writeWhole(path, `${JSON.stringify({ agentSession, blocks: Object.fromEntries(counts) })}\n`, PRIVATE_FILE_MODE);
}
