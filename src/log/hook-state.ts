import { HOOK_STATE_LIMIT, PRIVATE_FILE_MODE, readSideFile, writeWhole } from './files.js';
import { LOG_FILE } from './log-name.js';
import { withLock } from './lock.js';
import { LogError } from './types.js';

const { rmSync } = process.getBuiltinModule('node:fs');
const { join } = process.getBuiltinModule('node:path');

/**
 * `<dir>/hook-state.json`: how many times in a row the stop hook has blocked
 * each agent (the main agent and each subagent) of the bound agent session.
 * A count of hook calls is not a fact about the loop, so it stays out of the
 * event log; it is written whole (temp + rename) and, if unreadable, counts
 * as zero: a lost count can only let an agent stop sooner, never trap it.
 * What gapflow never writes there (a symlink, a FIFO or a device, a file
 * past HOOK_STATE_LIMIT) is refused, naming it, so the user sees it.
 */
export const HOOK_STATE_FILE = 'hook-state.json';

interface HookState {
  agentSession: string;
  blocks: Record<string, number>;
}

export function readHookBlocks(dir: string, agentSession: string, agent: string): number {
  const state = readState(join(dir, HOOK_STATE_FILE));
  if (state?.agentSession !== agentSession) return 0;
  const blocks = state.blocks && Object.hasOwn(state.blocks, agent) ? state.blocks[agent] : undefined;
  return typeof blocks === 'number' && Number.isInteger(blocks) && blocks > 0 ? blocks : 0;
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
  const state = readState(path);
  let counts = new Map<string, number>();
  if (state?.agentSession === agentSession && typeof state.blocks === 'object' && state.blocks !== null) {
    counts = new Map(Object.entries(state.blocks));
  }
  if (blocks > 0) counts.set(agent, blocks);
  else counts.delete(agent);
  // Never written past what a read takes: the other agents' counts go first, then this one's (a lost count lets an agent stop sooner).
  const kept = [counts, new Map(blocks > 0 ? [[agent, blocks]] : []), new Map<string, number>()]
    .map((each) => `${JSON.stringify({ agentSession, blocks: Object.fromEntries(each) })}\n`)
    .find((text) => Buffer.byteLength(text, 'utf8') <= HOOK_STATE_LIMIT.maxBytes);
  if (kept === undefined) rmSync(path, { force: true });
  else writeWhole(path, kept, PRIVATE_FILE_MODE);
}

/** The state as stored, or null when there is none or it cannot be read or parsed; a file gapflow never writes there is refused (LogError). */
function readState(path: string): Partial<HookState> | null {
  let text: string | null;
  try {
    text = readSideFile(path, HOOK_STATE_LIMIT);
  } catch (error) {
    if (error instanceof LogError) throw error;
    return null; // out of reach (permissions): a count of zero, as for a missing file
  }
  if (text === null) return null;
  try {
    const state = JSON.parse(text) as unknown;
    return typeof state === 'object' && state !== null ? (state as Partial<HookState>) : null;
  } catch {
    return null;
  }
}
