import { EVENT_INPUT } from '../log/index.js';
import { misfiredHookAnswer, usageErrorLine } from '../render/index.js';
import type { CliIO } from './common.js';
import type { UsageError } from './args.js';

/*
 * A command line gapflow cannot run, called as a Claude Code hook (a typo
 * in settings.json: `gapflow hooks claude`). Claude Code reads a hook's
 * exit 2 as "block" and feeds the usage error to the agent as a reason to
 * keep going, so when standard input is a hook's input the usage error is
 * answered in the hook's terms instead: the user is told, the agent may
 * stop, exit 0. Loads no schema, statechart or immer.
 */

/** How long the bin waits for standard input to end before it takes the call for a person's, not a hook's. */
export const HOOK_INPUT_WAIT_MS = 1000;

/**
 * Whether `text` is what a harness hands a stop hook on standard input: a
 * JSON object naming its hook event and session (Claude Code, Codex, Gemini
 * CLI and Copilot's `Stop`), its session alone (Copilot's `agentStop`), or
 * its event and conversation (Cursor).
 */
export function isHookInput(text: string | null): boolean {
  if (text === null) return false;
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return false;
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return false;
  const input = json as Record<string, unknown>;
  const named = typeof input.hook_event_name === 'string';
  return (named && (typeof input.session_id === 'string' || typeof input.conversation_id === 'string')) || typeof input.sessionId === 'string';
}

/**
 * Reports a usage error as a hook's answer when `stdin` (the call's standard
 * input, null when there is none to read) is a hook's input: the answer on
 * stdout, the usage error on stderr (Claude Code's debug output). Returns
 * whether it did; if not, nothing was written.
 */
export function answerUsageAsHook(error: UsageError, stdin: string | null, io: Pick<CliIO, 'stdout' | 'stderr'>): boolean {
  if (!isHookInput(stdin)) return false;
  io.stdout(misfiredHookAnswer(error.message));
  io.stderr(usageErrorLine(error.message));
  return true;
}

/** The text a caller hands over as standard input, or null when it has none or it cannot be read (too long, not text). */
export function handedInput(io: Pick<CliIO, 'stdin'>): string | null {
  if (!io.stdin) return null;
  try {
    return io.stdin(EVENT_INPUT);
  } catch {
    return null;
  }
}

/**
 * The process's standard input when it is not a terminal and ends within
 * `waitMs` (a hook's does at once: Claude Code writes the input and closes
 * it), at most `EVENT_INPUT` bytes; null otherwise. It never blocks past
 * the wait, so a usage error with an open pipe on stdin is only that late.
 */
export function pendingInput(waitMs = HOOK_INPUT_WAIT_MS): Promise<string | null> {
  const stdin = process.stdin;
  if (stdin.isTTY) return Promise.resolve(null);
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = (text: string | null) => {
      clearTimeout(timer);
      stdin.removeAllListeners('data').removeAllListeners('end').removeAllListeners('error');
      stdin.pause();
      resolve(text);
    };
    const timer = setTimeout(() => finish(null), waitMs);
    stdin.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > EVENT_INPUT.maxBytes) finish(null);
      else chunks.push(chunk);
    });
    stdin.on('end', () => finish(Buffer.concat(chunks).toString('utf8')));
    stdin.on('error', () => finish(null));
  });
}
