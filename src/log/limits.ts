/**
 * Size limits of the log, documented in the README. Most lines are a few
 * hundred bytes; a forge round (its draft, critiques and votes) is the
 * largest event there is, and one that would pass this is refused before it
 * is written. Anything past these limits was not written by gapflow.
 */
export const MAX_LINE_BYTES = 1024 * 1024;
/** Well under V8's longest string, so a huge file is refused, not a crash. */
export const MAX_LOG_BYTES = 256 * 1024 * 1024;

export function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${(bytes / (1024 * 1024)).toFixed(bytes % (1024 * 1024) === 0 ? 0 : 1)} MiB`;
  if (bytes >= 1024) return `${(bytes / 1024).toFixed(bytes % 1024 === 0 ? 0 : 1)} KiB`;
  return `${bytes} bytes`;
}
