import { LogError } from './types.js';

/**
 * Size limits of the log, documented in the README. Most lines are a few
 * hundred bytes; a forge round (its draft, critiques and votes) is the
 * largest event there is, and one that would pass this is refused before it
 * is written. Anything past these limits was not written by gapflow.
 */
export const MAX_LINE_BYTES = 1024 * 1024;
/** Well under V8's longest string, so a huge file is refused, not a crash. */
export const MAX_LOG_BYTES = 256 * 1024 * 1024;

/** How much one kind of input may be, and its name in a refusal. */
export interface InputLimit {
  maxBytes: number;
  name: string;
}

/**
 * One event's input (`record --json`, the hook's standard input): no bigger
 * than the line it becomes may be, so a refusal comes before parsing it.
 */
export const EVENT_INPUT: InputLimit = { maxBytes: MAX_LINE_BYTES, name: "one event's input" };

/**
 * A batch (`append`, from a file or standard input). A batch that could not
 * fit in a log is never worth reading; a quarter of the log's limit still
 * holds a 100,000-line batch (about 30 MB) twice over, and keeps what a
 * refused endless input costs at this much memory.
 */
export const BATCH_INPUT: InputLimit = { maxBytes: MAX_LOG_BYTES / 4, name: 'a batch' };

/** A whole log (`import` of a log `export` wrote): as big as a log may be. */
export const LOG_INPUT: InputLimit = { maxBytes: MAX_LOG_BYTES, name: 'a log' };

export function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${(bytes / (1024 * 1024)).toFixed(bytes % (1024 * 1024) === 0 ? 0 : 1)} MiB`;
  if (bytes >= 1024) return `${(bytes / 1024).toFixed(bytes % 1024 === 0 ? 0 : 1)} KiB`;
  return `${bytes} bytes`;
}

/** A size as a refusal gives it: rounded, then exact (a file one byte over the limit rounds to the limit itself). */
export function formatSize(bytes: number): string {
  return `${formatBytes(bytes)} (${bytes.toLocaleString('en-US')} bytes)`;
}

/**
 * A store's check before it writes `events` as sealed `lines` (each with its
 * newline) onto a log of `logBytes`: no line past MAX_LINE_BYTES, the log not
 * past MAX_LOG_BYTES. Returns the bytes the lines add; throws LogError, naming
 * the event, otherwise. Every store makes it, so no store holds a line another
 * could not read back.
 */
export function sealedBytes(location: string, events: readonly { type: string; seq: number }[], lines: readonly string[], logBytes: number): number {
  let added = 0;
  lines.forEach((line, index) => {
    const size = Buffer.byteLength(line, 'utf8');
    if (size > MAX_LINE_BYTES) {
      const event = events[index]!;
      throw new LogError(`${event.type} (seq ${event.seq}) would be a ${formatBytes(size)} line, over the ${formatBytes(MAX_LINE_BYTES)} limit; nothing was written`);
    }
    added += size;
  });
  if (logBytes + added > MAX_LOG_BYTES) throw new LogError(`${location} would grow past the ${formatBytes(MAX_LOG_BYTES)} limit; nothing was written: start a new session`);
  return added;
}
