import type { FSWatcher } from 'node:fs';
import type { GapflowEvent } from '../../events/index.js';
import { CHAIN_START, faultMessage, scanBytes, type ChainPoint, type Scan } from './lines.js';
import { storedSum } from './chain.js';
import { holdsNoSession, readFrom, readLogBytes, isCode } from './files.js';
import { LogError } from './types.js';

const { statSync, watch } = process.getBuiltinModule('node:fs');
const { basename, dirname } = process.getBuiltinModule('node:path');

/** How a store's `follow` goes about it. */
export interface FollowOptions {
  /**
   * How often the log is looked at when no change notice came (ms). A look
   * is one stat; the log is read only when it grew. Change notices
   * (fs.watch) wake the follower at once; this look catches what they miss
   * (network file systems, some container mounts). Default 1000.
   */
  intervalMs?: number;
  /**
   * Hears a fault in the log: a line that is not a good event (told once,
   * following goes on and hears the lines past it once it is repaired), or a
   * log changed beneath the follower (then following stops: what it would
   * read next does not continue what it heard).
   */
  onError?: (error: LogError) => void;
  /** Keep the process alive while following (default false: a forgotten follower never holds a process open). */
  persistent?: boolean;
  /**
   * Start at the log's end as it stands, whatever `from` says: nothing is
   * handed over first, and the follower reads the log's last line alone, not
   * the whole log (a fleet follows thousands of logs, whose rows it reads
   * otherwise). Falls back to reading the whole log when the last line cannot
   * be read so. A store may not offer it (then it hands over from `from`).
   */
  fromEnd?: boolean;
}

export const FOLLOW_INTERVAL_MS = 1_000;

/** How far a follower has read: the byte after the last good line, the chain there, and that line's bytes. */
export interface TailCursor {
  end: number;
  point: ChainPoint;
  lastLine: Buffer;
}

/** What one look found: the new events, and a fault that stops the read (null: none). */
interface Look {
  events: GapflowEvent[];
  fault: LogError | null;
}

class ChangedBeneath extends LogError {}

/**
 * Follows the log at `location`: calls `listener` with the events after
 * seq `from` now, then with each batch other processes (or this one)
 * append, until the returned function is called. It reads only what was
 * added since its last look (from `cursor` when the caller has read the log
 * up to `from` already), checking that the line it read last is still
 * where it was, so an edited or replaced log is noticed, not misread.
 */
export function followLog(
  location: string,
  from: number,
  cursor: TailCursor | null,
  listener: (events: readonly GapflowEvent[]) => void,
  options: FollowOptions = {},
): () => void {
  const dir = dirname(location);
  let at = cursor !== null && cursor.point.seq === from ? cursor : null;
  let seen = from;
  if (options.fromEnd) {
    at = endCursor(location);
    seen = at?.point.seq ?? from;
  }
  let told: string | null = null;
  let stopped = false;
  let pending = false;

  /** The whole log, read once when no cursor says where the last look ended. */
  const readWhole = (): Look => {
    if (holdsNoSession(location)) return { events: [], fault: null };
    const bytes = readLogBytes(location, dir);
    const scan = scanBytes(bytes);
    at = cursorAfter(scan, bytes, { end: 0, point: CHAIN_START, lastLine: Buffer.alloc(0) });
    return { events: scan.events.filter((event) => event.seq > seen), fault: faultOf(location, scan) };
  };

  const readTail = (from: TailCursor): Look => {
    const size = sizeOf(location);
    if (size === from.end) return { events: [], fault: null };
    if (size < from.end) throw changedBeneath(location);
    const bytes = readFrom(location, from.end - from.lastLine.length);
    if (bytes.length < from.lastLine.length || !bytes.subarray(0, from.lastLine.length).equals(from.lastLine)) throw changedBeneath(location);
    const added = bytes.subarray(from.lastLine.length);
    const scan = scanBytes(added, from.point, from.end);
    at = cursorAfter(scan, added, from);
    return { events: scan.events, fault: faultOf(location, scan) };
  };

  const tell = (error: LogError) => {
    if (error.message === told) return;
    told = error.message;
    options.onError?.(error);
  };

  const look = () => {
    if (stopped) return;
    let found: Look;
    try {
      found = at === null ? readWhole() : readTail(at);
    } catch (error) {
      if (error instanceof ChangedBeneath) {
        stop();
        options.onError?.(error);
        return;
      }
      // A log that cannot be read now (being replaced, a permission change, a failing disk) is looked at again next
      // time: this runs on a timer, where a throw would end the process (and a terminal view inside its screen).
      if (error instanceof LogError) return tell(error);
      if (isCode(error, 'ENOENT')) return tell(new LogError(`${location}: the log is gone`));
      return tell(new LogError(`${location}: cannot read the log (${error instanceof Error ? error.message : String(error)})`));
    }
    if (found.events.length > 0) {
      seen = found.events.at(-1)!.seq;
      try {
        listener(found.events);
      } catch (error) {
        // What a listener does with the events is its own; its failure is told, never thrown on the timer.
        tell(new LogError(`a follower of ${location} failed: ${error instanceof Error ? error.message : String(error)}`));
      }
    }
    if (found.fault !== null) tell(found.fault);
    else told = null;
  };

  /** Change notices come in bursts (a write, its checkpoint, the lock): one look after each burst. */
  const wake = () => {
    if (pending || stopped) return;
    pending = true;
    setImmediate(() => {
      pending = false;
      look();
    });
  };

  const persistent = options.persistent ?? false;
  const watcher = watchFolder(dir, basename(location), persistent, wake);
  const timer = setInterval(look, options.intervalMs ?? FOLLOW_INTERVAL_MS);
  if (!persistent) timer.unref();

  function stop(): void {
    stopped = true;
    clearInterval(timer);
    watcher?.close();
  }

  look();
  return stop;
}

/**
 * Change notices for `name` in `dir`. The folder is watched, not the file:
 * a log made or replaced after the watch began is still seen. Null when the
 * platform gives none (the timed look then does the work alone).
 */
function watchFolder(dir: string, name: string, persistent: boolean, wake: () => void): FSWatcher | null {
  try {
    const watcher = watch(dir, { persistent }, (_event, changed) => {
      if (changed === null || changed === name) wake();
    });
    watcher.on('error', () => watcher.close());
    return watcher;
  } catch {
    return null;
  }
}

function sizeOf(location: string): number {
  return statSync(location).size;
}

/** How much of the log's end `endCursor` reads: a line is far shorter (MAX_LINE_BYTES is the exception a longer one falls back from). */
const END_BYTES = 64 * 1024;

/**
 * The cursor at the log's end as it stands: after its last whole line
 * (a torn one after it is read whole by the next look), with the chain at
 * that line's stored sum. Null when that line cannot be read alone: no
 * whole line, one longer than END_BYTES, one with no seq or no stored sum
 * (a version 1 log), or no log; the follower then reads the log whole.
 */
function endCursor(location: string): TailCursor | null {
  try {
    const size = sizeOf(location);
    const from = Math.max(0, size - END_BYTES);
    const bytes = readFrom(location, from);
    const last = bytes.lastIndexOf(0x0a);
    const before = last <= 0 ? -1 : bytes.lastIndexOf(0x0a, last - 1);
    if (last === -1 || (before === -1 && from > 0)) return null;
    const lastLine = Buffer.from(bytes.subarray(before + 1, last + 1));
    const line = lastLine.toString('utf8', 0, lastLine.length - 1);
    const sum = storedSum(line);
    const seq = sum === null ? null : (JSON.parse(line) as { seq?: unknown }).seq;
    if (typeof seq !== 'number' || !Number.isSafeInteger(seq) || seq < 1) return null;
    return { end: from + last + 1, point: { seq, sum: sum!, sealed: true }, lastLine };
  } catch {
    return null;
  }
}

/** Where the next look starts: after the scan's last good line (or where this one started, when it found none). */
function cursorAfter(scan: Scan, bytes: Buffer, from: TailCursor): TailCursor {
  if (scan.goodBytes === 0) return from;
  const lastLine = Buffer.from(bytes.subarray(scan.goodBytes - scan.lastLineBytes, scan.goodBytes));
  return { end: from.end + scan.goodBytes, point: scan.end, lastLine };
}

/** A fault worth telling: a torn last line is a write still under way, read whole at the next look. */
function faultOf(location: string, scan: Scan): LogError | null {
  return scan.fault !== null && !scan.torn ? new LogError(faultMessage(location, scan), scan.fault.line) : null;
}

function changedBeneath(location: string): ChangedBeneath {
  return new ChangedBeneath(`${location} changed beneath this follower (replaced or edited): what it holds now does not continue what was read; start again`);
}
