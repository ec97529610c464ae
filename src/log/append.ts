import { closeSync, fstatSync, fsyncSync, ftruncateSync, openSync } from 'node:fs';
import type { GapflowEvent } from '../../events/index.js';
import { writeAll } from './durable.js';
import { sealedBytes } from './limits.js';
import type { Lease } from './lock.js';
import { formatLines } from './seal.js';
import { continues, LogError, OutcomeUnknown } from './types.js';

/** Where the log ends, as a writer holding the lock found it: its size, and its last line's seq and checksum. */
export interface LogEnd {
  end: number;
  seq: number;
  sum: string;
}

/**
 * Appends `events` to the log at `location` as sealed lines after `after`,
 * holding the lock (`lease`): the seqs must run on, no line or the log may
 * pass its limit, and the log must still end at `after.end`; then one write,
 * fsynced, or none (a failed write is cut back). Returns the new end and the
 * last line written.
 */
export function appendSealed(location: string, after: LogEnd, events: readonly GapflowEvent[], lease: Lease): { end: LogEnd; lastLine: Buffer } {
  continues(events, after.seq, location);
  const { lines, sum } = formatLines(events, after.sum);
  sealedBytes(location, events, lines, after.end);
  const bytes = Buffer.from(lines.join(''), 'utf8');
  const fd = openSync(location, 'a');
  try {
    // Two fences, last thing before the write: the lock is still ours (renewed, so no waiter on another host takes it
    // for stale now), and the log still ends where this batch was decided against.
    lease.confirm();
    if (fstatSync(fd).size !== after.end) {
      throw new LogError(`${location} grew beneath this write (another writer appended without holding the lock); nothing was written: run it again`);
    }
    try {
      writeAll(fd, bytes);
      fsyncSync(fd);
    } catch (error) {
      cutBack(location, fd, after.end, events, error);
      throw error;
    }
  } finally {
    closeSync(fd);
  }
  return { end: { end: after.end + bytes.length, seq: events.at(-1)!.seq, sum }, lastLine: Buffer.from(lines.at(-1)!, 'utf8') };
}

/**
 * After a failed write or fsync (a full disk, an I/O error): the log cut back
 * to where it ended and that made durable, so the batch is surely not there
 * and no half line is left for the next writer to find. When even that
 * fails, whether the batch is in the log is not known: OutcomeUnknown.
 */
function cutBack(location: string, fd: number, end: number, events: readonly GapflowEvent[], cause: unknown): void {
  try {
    ftruncateSync(fd, end);
    fsyncSync(fd);
  } catch (error) {
    const why = (e: unknown) => (e instanceof Error ? e.message : String(e));
    throw new OutcomeUnknown(`${location}: the write failed (${why(cause)}) and the log could not be cut back to where it ended (${why(error)})`, events);
  }
}
