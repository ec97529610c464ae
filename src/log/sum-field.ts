/*
 * A line's checksum field, as lines.ts writes it: read here apart from the
 * line format's schemas, so a reader that only compares a stored sum (the
 * head checkpoint's key, checkpoint.ts) loads no event schema.
 */

/** `,"sum":"` + 16 digits + `"}`. */
export const SUM_SUFFIX_LENGTH = 26;
export const SUM_PREFIX = ',"sum":"';

/**
 * The checksum a line ends with, as written (`…,"sum":"<16 characters>"}`),
 * or null. Whether they are the right 16 hex digits is for the caller to
 * find, by comparing them with the sum it computes.
 */
export function storedSum(line: string): string | null {
  const at = line.length - SUM_SUFFIX_LENGTH;
  if (at < 0 || !line.startsWith(SUM_PREFIX, at) || !line.endsWith('"}')) return null;
  return line.slice(at + SUM_PREFIX.length, -2);
}
