/*
 * The renderers' second door: the words of `next` and a stop hook, which
 * load no schema, statechart or immer, for the bin's short path from the
 * head checkpoint (src/cli/head-answers.ts). Everything here is in
 * index.ts too.
 */
export { nextLine, unapprovedCheckNote, usageErrorLine } from './cli-messages.js';
export { terminalSafe } from './terminal.js';
export { hookVerdict, HOOK_TEXT_CAP, type HookVerdict } from './hook.js';
export { claudeHookAnswer, hookFailureAnswer, hookWarningLine, misfiredHookAnswer } from './hook-answer.js';
export { renderPrompt } from './prompt.js';
export { gapEntry, optionEntries, type GapEntry, type OptionEntry } from './options.js';
export { gapMovedLine, gapOpenedLine, renderAnnouncement, severityChangedLine } from './gap-lines.js';
