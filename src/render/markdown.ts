import { terminalSafe, terminalSafeLines } from './terminal.js';

/**
 * Text from events shown in Markdown: every character that could open markup
 * (a table cell, emphasis, a link, HTML) is escaped, so a title can never
 * break a table or inject anything into status.md.
 */
export function escapeMarkdown(text: string): string {
  const markup = text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/[\\`*[\]|~]/g, (c) => `\\${c}`)
    // An underscore inside a word (weighted_net) cannot start emphasis; only one at a word's edge is escaped.
    .replace(/(?<![\p{L}\p{N}])_|_(?![\p{L}\p{N}])/gu, '\\_')
    .replace(/\r?\n|\r/g, ' ');
  // A character that shows nothing or turns text around is spelt out: whoever reads the file sees what an agent reads.
  return terminalSafe(markup);
}

const TERMINAL_ESCAPES: Readonly<Record<string, string>> = { '&amp;': '\\&', '&lt;': '\\<', '&gt;': '\\>' };

/**
 * A Markdown document as a terminal shows it: the entities escapeMarkdown
 * wrote (`&lt;`, unreadable on a terminal) become backslash escapes, the
 * same Markdown to any renderer (`a&lt;b` and `a\<b` both show `a<b`).
 * One pass, so text that itself read `&lt;` (escaped as `&amp;lt;`) stays
 * `\&lt;`. Files keep the entities they always had. Controls and
 * invisible characters are spelt out (terminal.ts).
 */
export function terminalMarkdown(text: string): string {
  return terminalSafeLines(text.replace(/&(?:amp|lt|gt);/g, (entity) => TERMINAL_ESCAPES[entity]!));
}

/** A GitHub-flavoured Markdown table; cells are taken as already escaped. */
export function table(headers: readonly string[], rows: readonly (readonly string[])[]): string {
  const head = `| ${headers.join(' | ')} |`;
  const rule = `|${headers.map((h) => '-'.repeat(h.length + 2)).join('|')}|`;
  return [head, rule, ...rows.map((row) => `| ${row.join(' | ')} |`)].join('\n');
}
