import { fstatSync, type Stats } from 'node:fs';
import { join } from 'node:path';
import { bodySum, MAX_HEADER_BYTES, parseHeader, withCheckpointFile, type CheckpointKey } from './checkpoint.js';
import { readRange } from './text-file.js';
import type { BodyParts } from './types.js';

/*
 * A checkpoint read in parts, for one whose header sums its body's first
 * line alone (the closed gaps' index, whose first line is a table of what
 * follows, each part with its own crc): one read takes the header and that
 * line, and the rest is read by range when it is asked for, from the same
 * file. What the parts hold is the caller's to check.
 */

/**
 * A checkpoint's header and first body line (checked), and its body's bytes
 * by range, read from the file the header was read from: null when they
 * cannot be read, or the file at that path is no longer that file
 * (replaced, grown, touched).
 */
export interface CheckpointParts extends BodyParts {
  key: CheckpointKey;
}

/** The first read takes this much (the closed gaps' index's header and table line fit in it); a longer first line is read in reads twice as long each. */
const FIRST_READ_BYTES = 8 * 1024;
/** A first line longer than this is no sound one. */
const MAX_FIRST_BYTES = 1024 * 1024;

/**
 * The checkpoint of `format` in `file` under `dir`, when its header is sound,
 * its body as long as it says and its first line matches the header's sum;
 * null otherwise (never throws). Reads the header and that line only.
 */
export function openCheckpointParts(dir: string, format: string, file: string): CheckpointParts | null {
  const path = join(dir, file);
  return withCheckpointFile(path, (opened) => {
    let start = readRange(opened.fd, 0, Math.min(opened.size, FIRST_READ_BYTES));
    const newline = start.indexOf(0x0a);
    const header = newline === -1 || newline > MAX_HEADER_BYTES ? null : parseHeader(start.toString('utf8', 0, newline));
    if (header === null || header.format !== format || header.bodyBytes !== opened.size - newline - 1) return null;
    let lineEnd = start.indexOf(0x0a, newline + 1);
    while (lineEnd === -1 && start.length < opened.size && start.length < MAX_HEADER_BYTES + MAX_FIRST_BYTES) {
      const longer = readRange(opened.fd, 0, Math.min(opened.size, start.length * 2));
      // A file cut short under the reader gives no more bytes: no table line, no index.
      if (longer.length <= start.length) return null;
      start = longer;
      lineEnd = start.indexOf(0x0a, newline + 1);
    }
    if (lineEnd === -1 || bodySum(start.subarray(newline + 1, lineEnd + 1), file) !== header.bodySum) return null;
    const first = Buffer.from(start.subarray(newline + 1));
    const seen = fstatSync(opened.fd);
    const bodyStart = newline + 1;
    const { seq, end, lineBytes, sum } = header;
    return {
      key: { format, seq, end, lineBytes, sum },
      bodyBytes: header.bodyBytes,
      first,
      range: (offset, length) =>
        withCheckpointFile(path, (again) => {
          if (!sameFile(fstatSync(again.fd), seen) || offset < 0 || offset + length > header.bodyBytes) return null;
          const bytes = readRange(again.fd, bodyStart + offset, length);
          return bytes.length === length ? bytes : null;
        }),
    };
  });
}

/** Whether two stats are of one file as it was (a rename over it, a rewrite or an append shows). */
function sameFile(now: Stats, then: Stats): boolean {
  return now.dev === then.dev && now.ino === then.ino && now.size === then.size && now.mtimeMs === then.mtimeMs;
}
