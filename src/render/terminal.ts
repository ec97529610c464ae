import { HIDDEN_CHARACTER } from '../../events/index.js';

/*
 * Text from a log, a folder name or a database row, as a terminal may be
 * handed it. A terminal obeys what it is sent: ESC and the C1 controls
 * start sequences that move the cursor, retitle the window or (OSC 52)
 * write the clipboard; a bidirectional control shows a line in another
 * order than it reads; a format character or a Unicode tag shows nothing
 * at all while a program reading the same bytes sees it. Every such
 * character is spelt out visibly instead, so what is shown is what is
 * there.
 */

/**
 * Controls (C0, DEL, C1: `\p{Cc}`), the line and paragraph separators,
 * format characters (`\p{Cf}`: bidirectional marks, overrides and
 * isolates, zero-width characters, assigned tags) and the whole tag block.
 */
const UNSAFE_ON_TERMINAL = new RegExp(`[\\p{Cc}\\u2028\\u2029]|${HIDDEN_CHARACTER.source}`, 'gu');

/** `text` with every character a terminal must not get raw spelt out as `\u{…}` (ESC is `\u{1b}`). */
export function terminalSafe(text: string): string {
  return text.replace(UNSAFE_ON_TERMINAL, (c) => `\\u{${c.codePointAt(0)!.toString(16)}}`);
}

/** Lines of text as terminalSafe makes them, the newlines between them kept (a document: status.md, a prompt). */
export function terminalSafeLines(text: string): string {
  return text.split('\n').map(terminalSafe).join('\n');
}

/** What JSON.stringify leaves raw that a terminal must not get: DEL, C1, the separators, format characters and tags. */
const LEFT_RAW_BY_JSON = new RegExp(`[\\u007f-\\u009f\\u2028\\u2029]|${HIDDEN_CHARACTER.source}`, 'gu');

/**
 * JSON text as a terminal may be handed it: the characters JSON leaves raw
 * (it escapes only C0) written as JSON escapes, a tag character as its two
 * UTF-16 halves. The value a JSON reader gets back is the same.
 */
export function terminalSafeJson(json: string): string {
  return json.replace(LEFT_RAW_BY_JSON, (c) => Array.from({ length: c.length }, (_, i) => `\\u${c.charCodeAt(i).toString(16).padStart(4, '0')}`).join(''));
}
