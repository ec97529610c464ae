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
const UNSAFE_ON_TERMINAL = /[\p{Cc}\u2028\u2029\p{Cf}\u{E0000}-\u{E007F}]/gu;

/** `text` with every character a terminal must not get raw spelt out as `\u{…}` (ESC is `\u{1b}`). */
export function terminalSafe(text: string): string {
  return text.replace(UNSAFE_ON_TERMINAL, (c) => `\\u{${c.codePointAt(0)!.toString(16)}}`);
}

/** Lines of text as terminalSafe makes them, the newlines between them kept (a document: status.md, a prompt). */
export function terminalSafeLines(text: string): string {
  return text.split('\n').map(terminalSafe).join('\n');
}
