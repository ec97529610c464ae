import { fitLines } from './fit.js';
import { oneLine } from './one-line.js';
import { HOOK_TEXT_BUDGET, type HookVerdict } from './hook.js';

/*
 * The JSON line a stop hook prints, in each harness's own shape. Every
 * answer lets the agent stop except a block, and every string in it fits
 * the hook output limit (Claude Code's; the others document none lower).
 */

/** The agent harnesses whose stop hook gapflow answers, as `gapflow hook HARNESS` names them. */
export const HARNESSES = ['claude', 'codex', 'copilot', 'cursor', 'gemini'] as const;
export type Harness = (typeof HARNESSES)[number];

/** What the stop hook's command line looks like, for a user whose line gapflow could not run. */
export const HOOK_COMMAND = `gapflow hook ${HARNESSES.join('|')} [--dir DIR] [--max-blocks N] [--agent-type TYPE[,TYPE...]]`;

/**
 * A hook's answer: the line for standard output, and what the user should
 * read where the harness has no field for it (Copilot, Cursor): written to
 * standard error, which they show in their hook output. Null: nothing.
 */
export interface HookAnswer {
  line: string;
  note: string | null;
}

/** The harnesses whose answer has a field the user reads (a `systemMessage`). */
const TELLS_USER: ReadonlySet<Harness> = new Set(['claude', 'codex', 'gemini']);

/**
 * What `harness` reads from a stop hook: go on with the reason (Claude Code,
 * Codex and Copilot: `decision: "block"`; Gemini: `decision: "deny"`;
 * Cursor: a `followup_message`, sent as the next user message), or stop,
 * with a message for the user where there is one. Gemini is told to stop
 * outright (`continue: false`) when the user must decide. Codex's answer
 * holds only the keys its output schema allows.
 */
export function harnessHookAnswer(harness: Harness, verdict: HookVerdict | null): HookAnswer {
  if (verdict === null) return { line: answerLine({}), note: null };
  if (verdict.block) {
    if (harness === 'cursor') return { line: answerLine({ followup_message: verdict.reason }), note: null };
    return { line: answerLine({ decision: harness === 'gemini' ? 'deny' : 'block', reason: verdict.reason }), note: null };
  }
  const message = verdict.systemMessage;
  if (message === null) return { line: answerLine({}), note: null };
  if (!TELLS_USER.has(harness)) return { line: answerLine({}), note: `${message}\n` };
  if (harness === 'gemini' && verdict.rule === 'ask_user')
    return { line: answerLine({ continue: false, stopReason: verdict.reason, systemMessage: message }), note: null };
  return { line: answerLine({ systemMessage: message }), note: null };
}

/** What Claude Code reads from a Stop or SubagentStop hook: block with the reason, or let the agent stop (with a message for the user). */
export function claudeHookAnswer(verdict: HookVerdict | null): string {
  return harnessHookAnswer('claude', verdict).line;
}

/** The hook could not answer, in `harness`'s shape: the user is told (on stderr too, where the harness shows no message), and the agent may stop. */
export function harnessFailureAnswer(harness: Harness, message: string): HookAnswer {
  const text = `gapflow hook: ${firstLine(message)}. The hook let the agent stop; the loop goes on once this is fixed.`;
  return TELLS_USER.has(harness) ? { line: answerLine({ systemMessage: text }), note: null } : { line: answerLine({}), note: `${text}\n` };
}

/** The hook could not answer (a broken log, a bad option, an input it cannot read): the user is told in Claude Code, and the agent may stop. */
export function hookFailureAnswer(message: string): string {
  return harnessFailureAnswer('claude', message).line;
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
function answerLine(answer: Record<string, string | boolean>): string {
  const held = Object.fromEntries(
    Object.entries(answer).map(([key, value]) => [key, typeof value === 'string' ? fitLines([[value]], HOOK_TEXT_BUDGET).text : value]),
  );
  return `${JSON.stringify(held)}\n`;
}
