import { formatIssue, GapflowEvent } from '../../events/index.js';
import { LogError } from './types.js';

/** One event as one JSONL line, with the envelope fields first. */
export function toLine(event: GapflowEvent): string {
  const { v, seq, id, at, type, data } = event;
  return `${JSON.stringify({ v, seq, id, at, type, data })}\n`;
}

/**
 * Parses a whole log. Each line must be an event of a known version whose
 * `seq` continues the one before; the first line that is not names itself.
 */
export function parseLines(text: string, where: string): GapflowEvent[] {
  const lines = text.split('\n');
  const tail = lines.pop();
  if (tail !== undefined && tail !== '') {
    throw new LogError(`${where} line ${lines.length + 1}: the last line is incomplete (no newline at its end)`);
  }
  return lines.map((line, index) => parseLine(line, index + 1, where));
}

export function parseLine(line: string, lineNumber: number, where: string): GapflowEvent {
  const at = `${where} line ${lineNumber}`;
  let json: unknown;
  try {
    json = JSON.parse(line);
  } catch {
    throw new LogError(`${at}: not a JSON object`);
  }
  if (typeof json === 'object' && json !== null && 'v' in json && json.v !== 1) {
    throw new LogError(`${at}: event version ${JSON.stringify(json.v)} is not supported (this gapflow reads version 1)`);
  }
  const parsed = GapflowEvent.safeParse(json);
  if (!parsed.success) {
    // The type is shown as a JSON string, cut short: a hostile line cannot put control characters on a terminal.
    const type = typeof json === 'object' && json !== null && 'type' in json ? ` (${JSON.stringify(json.type)?.slice(0, 66)})` : '';
    throw new LogError(`${at}${type}: ${formatIssue(parsed.error)}`);
  }
  if (parsed.data.seq !== lineNumber) {
    throw new LogError(`${at}: seq ${parsed.data.seq} where ${lineNumber} was expected`);
  }
  return parsed.data;
}
