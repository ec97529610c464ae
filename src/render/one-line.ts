import { terminalSafe } from './terminal.js';

const SHORT: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/**
 * An error stays one line whatever a caller typed into it, and cannot
 * restyle or reorder the terminal it lands on: line breaks are shown as
 * `\n`, `\r`, `\t` (what people read in an error), every other character
 * a terminal must not get raw as terminalSafe spells it (`\u{1b}`).
 */
export function oneLine(message: string): string {
  return terminalSafe(message.replace(/[\n\r\t]/g, (c) => SHORT[c]!));
}
