import { fitLines } from './fit.js';
import { oneLine } from './one-line.js';
import { HOOK_TEXT_BUDGET, type HookVerdict } from './hook.js';

/*
 * The JSON line a Claude Code hook prints. Every answer lets the agent stop
 * except a block, and every string in it fits the hook output limit.
 */

/** What the stop hook's command line looks like, for a user whose line gapflow could not run. */
export const HOOK_COMMAND = 'gapflow hook claude [--dir DIR] [--max-blocks N] [--agent-type TYPE[,TYPE...]]';

/** What Claude Code reads from a Stop or SubagentStop hook: block with the reason, or let the agent stop (with a message for the user). */
export function claudeHookAnswer(verdict: HookVerdict | null): string {
  if (verdict === null) return answerLine({});
  if (verdict.block) return answerLine({ decision: 'block', reason: verdict.reason });
  return answerLine(verdict.systemMessage === null ? {} : { systemMessage: verdict.systemMessage });
}

/** The hook could not answer (a broken log, a bad option, an input it cannot read): the user is told in Claude Code, and the agent may stop. */
export function hookFailureAnswer(message: string): string {
  return answerLine({ systemMessage: `gapflow hook: ${firstLine(message)}. The hook let the agent stop; the loop goes on once this is fixed.` });
}

/**
 * A hook's input on standard input, but a command line gapflow cannot run
 * (`gapflow hooks claude`): Claude Code would read the usage error's exit 2
 * as "block", so the user is told instead, and the agent may stop.
 */
export function misfiredHookAnswer(message: string): string {
  return answerLine({
    systemMessage: `gapflow: the hook's command line is wrong (${firstLine(message)}), so it let the agent stop. The stop hook's command is: ${HOOK_COMMAND}`,
  });
}

/** The hook failed: it says so on stderr too (Claude Code's debug output), and lets the agent stop. */
export function hookWarningLine(message: string): string {
  return `gapflow hook: ${firstLine(message)}; letting the agent stop\n`;
}

function firstLine(message: string): string {
  return oneLine(message.split('\n')[0]!);
}

/** One JSON object on one line, each string held to the budget (a last guard: the words were fitted where they were made). */
function answerLine(answer: Record<string, string>): string {
  const held = Object.fromEntries(Object.entries(answer).map(([key, text]) => [key, fitLines([[text]], HOOK_TEXT_BUDGET).text]));
  return `${JSON.stringify(held)}\n`;
}
