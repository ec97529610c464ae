import type { GapflowEvent } from '../../events/index.js';
import { fsyncFolder, readLogBytes, writeNewFile } from './files.js';
import { LOG_FILE } from './log-name.js';
import { CHAIN_START, faultMessage, scanBytes, type LineFault, type Scan } from './lines.js';
import { waitForWriter, withLock } from './lock.js';
import { LogError } from './types.js';

const { closeSync, constants, fsyncSync, ftruncateSync, openSync, unlinkSync } = process.getBuiltinModule('node:fs');
const { join } = process.getBuiltinModule('node:path');
const { randomBytes } = process.getBuiltinModule('node:crypto');

/** What `inspectLog` found: the good events, and the first bad line if any. */
export interface LogInspection {
  location: string;
  events: GapflowEvent[];
  bytes: number;
  /** The last good line's checksum ('' when it has none). */
  lastSum: string;
  fault: LineFault | null;
  /** The only fault is a torn last line, which `repairLog` may cut. */
  torn: boolean;
  /** One line naming the file, the line and why; null when the log is good. */
  message: string | null;
}

/** Reads the log at `dir` line by line and reports what it finds, never throwing for a bad line. */
export function inspectLog(dir: string): LogInspection {
  const location = join(dir, LOG_FILE);
  let found = inspectOnce(location, dir);
  // A torn tail may be a write under way: look again once its writer lets go (waiting, never locking).
  if (found.scan.torn && waitForWriter(location)) found = inspectOnce(location, dir);
  const { scan, bytes } = found;
  return {
    location,
    events: scan.events,
    bytes,
    lastSum: scan.end.sum,
    fault: scan.fault,
    torn: scan.torn,
    message: scan.fault ? faultMessage(location, scan) : null,
  };
}

function inspectOnce(location: string, dir: string): { scan: Scan; bytes: number } {
  const bytes = readLogBytes(location, dir);
  return { scan: scanBytes(bytes, CHAIN_START, 0, 'schema'), bytes: bytes.length };
}

export interface RepairReport {
  location: string;
  /** The torn line cut (no copy kept of an empty file), or null when there was nothing to repair. */
  cut: { line: number; reason: string; bytes: number; backup: string | null } | null;
  /** Events left in the log. */
  events: number;
}

/**
 * Cuts a torn last line, and nothing else: the cut bytes are kept in a copy
 * beside the log first, and a log damaged anywhere but its last line is
 * refused untouched.
 */
export function repairLog(dir: string): RepairReport {
  const location = join(dir, LOG_FILE);
  readLogBytes(location, dir); // no log: one clear line, before any lock file is made
  return withLock(location, () => {
    const bytes = readLogBytes(location, dir);
    if (bytes.length === 0) {
      // Debris of a log deleted under its writer: nothing to keep, and `gapflow init` may start afresh.
      unlinkSync(location);
      fsyncFolder(dir);
      return { location, cut: { line: 1, reason: 'an empty file, no session', bytes: 0, backup: null }, events: 0 };
    }
    const scan = scanBytes(bytes, CHAIN_START, 0, 'schema');
    if (!scan.fault) return { location, cut: null, events: scan.events.length };
    if (!scan.torn) {
      throw new LogError(
        `${faultMessage(location, scan)}; repair cuts only a torn last line and this is not one: nothing was changed (restore the log from a copy, or mend that line by hand)`,
      );
    }
    const { line, reason, offset } = scan.fault;
    const cut = bytes.subarray(offset);
    const stamp = new Date().toISOString().replace(/[:.]/g, '-');
    const backup = join(dir, `${LOG_FILE}.torn-${stamp}-${randomBytes(3).toString('hex')}`);
    writeNewFile(backup, cut);
    if (offset === 0) {
      // Not even session.started survived: no session is left, so `gapflow init` may start one.
      unlinkSync(location);
    } else {
      const fd = openSync(location, constants.O_RDWR | constants.O_NOFOLLOW);
      try {
        ftruncateSync(fd, offset);
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
    }
    fsyncFolder(dir);
    return { location, cut: { line, reason, bytes: cut.length, backup }, events: scan.events.length };
  });
}
