import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';

/** The repository's root, where README.md and docs/ are. */
export const repoRoot = join(import.meta.dirname, '..', '..');

export function readDoc(file: string): string {
  return readFileSync(join(repoRoot, file), 'utf8');
}

/** A fenced code block: the word after the opening fence (empty for none) and its text, each line ending in a newline. */
export interface Fence {
  language: string;
  text: string;
}

/** The fenced code blocks of Markdown text, in order (fences of three backticks at the start of a line). */
export function fences(markdown: string): Fence[] {
  const found: Fence[] = [];
  let open: { language: string; lines: string[] } | null = null;
  for (const line of markdown.split('\n')) {
    if (open === null) {
      const start = /^```(\S*)$/.exec(line);
      if (start) open = { language: start[1]!, lines: [] };
    } else if (line === '```') {
      found.push({ language: open.language, text: open.lines.map((l) => `${l}\n`).join('') });
      open = null;
    } else open.lines.push(line);
  }
  return found;
}

/** The text of the section under `### heading` in a Markdown file of the repository, up to the next `##` or `###` heading. */
export function section(file: string, heading: string): string {
  const text = readDoc(file);
  const start = text.indexOf(`### ${heading}\n`);
  expect(start, `${file} has a section "### ${heading}"`).toBeGreaterThanOrEqual(0);
  const ends = [text.indexOf('\n### ', start + 1), text.indexOf('\n## ', start + 1)].filter((i) => i >= 0);
  return text.slice(start, ends.length > 0 ? Math.min(...ends) : undefined);
}

/** The fenced blocks of one language (`''`: blocks with none) in a section of a Markdown file of the repository. */
export function blocks(file: string, heading: string, language: string): string[] {
  return fences(section(file, heading))
    .filter((f) => f.language === language)
    .map((f) => f.text);
}

/** Markdown without its fenced blocks, where links and headings live. */
export function prose(markdown: string): string {
  let text = markdown;
  for (const fence of fences(markdown)) text = text.replace(fence.text, '');
  return text;
}

/** GitHub's anchor for a heading: lower case, punctuation dropped (hyphens and underscores kept), spaces as hyphens. */
export function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** The anchors of a page's headings (`file` as `readDoc` takes it). */
export function anchorsIn(file: string): Set<string> {
  return new Set([...prose(readDoc(file)).matchAll(/^#{1,6} (.+)$/gm)].map((m) => anchorOf(m[1]!)));
}
