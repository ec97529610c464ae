import { hash } from 'node:crypto';
import type { GapflowEvent } from '../../events/index.js';

/*
 * Sealing lines (the line format is described in lines.ts): apart from the
 * reader's schemas, since a writer appends events it has already checked.
 */

/** The chained checksum of a line's content (its JSON without `sum`). */
export function chainSum(previous: string, content: string): string {
  return hash('sha256', previous + content, 'hex').slice(0, 16);
}

/**
 * Whether the 16 characters of `line` at `at` are the chained checksum of
 * `content`: `chainSum` compared where it stands, cutting nothing out (a
 * cold read compares one per line).
 */
export function sumMatches(previous: string, content: string, line: string, at: number): boolean {
  const digest = hash('sha256', previous + content, 'hex');
  for (let i = 0; i < 16; i++) if (line.charCodeAt(at + i) !== digest.charCodeAt(i)) return false;
  return true;
}

/** Seals a line's content (a JSON object without `sum`): the line to write, newline included, and its checksum. */
export function sealLine(content: string, previous: string): { line: string; sum: string } {
  const sum = chainSum(previous, content);
  return { line: `${content.slice(0, -1)},"sum":"${sum}"}\n`, sum };
}

/** One event's content: its JSON with the envelope fields first. */
export function eventContent(event: GapflowEvent): string {
  const { v, seq, id, at, type, data } = event;
  return JSON.stringify({ v, seq, id, at, type, data });
}

/** Events as sealed lines continuing a chain; returns the text and the last checksum. */
export function formatLines(events: readonly GapflowEvent[], previous = ''): { text: string; sum: string; lines: string[] } {
  let sum = previous;
  const lines = events.map((event) => {
    const sealed = sealLine(eventContent(event), sum);
    sum = sealed.sum;
    return sealed.line;
  });
  return { text: lines.join(''), sum, lines };
}
