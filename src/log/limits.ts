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
