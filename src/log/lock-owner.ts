import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';

/*
 * Who holds a lock, and whether that holder still runs. A pid alone is a
 * weak name: pids are reused, and a lock left before a reboot names a pid
 * that may run again as something else. So the lock also records the
 * process's start time (field 22 of /proc/<pid>/stat, in clock ticks since
 * boot) and the boot id. A pid that runs but started at another moment names
 * a holder that is gone. A lock from another boot id is not asked about its
 * pid at all: it was written before a reboot, or by another machine that has
 * the same host name, and the two cannot be told apart, so it is judged like
 * any other host's lock (by its renewals). Where /proc is missing (macOS)
 * only `kill(pid, 0)` can be asked. Like lock-holder.ts, this reads `process`: a
 * lock must name its holder and ask after another.
 */

/** The identity a lock records for its holder. `start` and `boot` are null where /proc cannot tell. */
export interface Owner {
  pid: number;
  host: string;
  start: string | null;
  boot: string | null;
}

let self: Owner | null = null;

/** This process, as a lock names it (read once: it cannot change while the process runs). */
export function currentOwner(): Owner {
  if (self === null) {
    const seen = processStart(process.pid);
    self = { pid: process.pid, host: hostname(), start: seen.kind === 'running' ? seen.start : null, boot: bootId() };
  }
  return self;
}

/** Whether its pid means anything here: same host name, and the same boot where both know theirs. */
export function onThisMachine(owner: Pick<Owner, 'host' | 'boot'>): boolean {
  const me = currentOwner();
  return owner.host === me.host && (owner.boot === null || me.boot === null || owner.boot === me.boot);
}

/** Whether the holder a lock on this machine names still runs: the same process, not a later one given its pid. */
export function ownerRuns(owner: Pick<Owner, 'pid' | 'start'>): boolean {
  const seen = processStart(owner.pid);
  if (seen.kind === 'exited') return false;
  if (seen.kind === 'running' && owner.start !== null) return seen.start === owner.start;
  return pidRuns(owner.pid);
}

/** The owner a lock's text names, or null while it names none readable. */
export function parseOwner(raw: string): Owner | null {
  let owner: Partial<Record<keyof Owner, unknown>>;
  try {
    owner = JSON.parse(raw) as typeof owner;
  } catch {
    return null; // being written, or left empty by a writer killed at once
  }
  if (typeof owner !== 'object' || owner === null || typeof owner.host !== 'string') return null;
  const pid = owner.pid;
  // A pid of 0 or below names a process group or every process (kill(-1, 0) succeeds): no holder, so the lock is broken as an unfilled one.
  if (typeof pid !== 'number' || !Number.isSafeInteger(pid) || pid <= 0) return null;
  // Locks written before start times were recorded still name a pid: kill(pid, 0) judges those.
  const text = (value: unknown) => (typeof value === 'string' ? value : null);
  return { pid, host: owner.host, start: text(owner.start), boot: text(owner.boot) };
}

type Seen = { kind: 'running'; start: string } | { kind: 'exited' } | { kind: 'unknown' };

/**
 * What /proc says of `pid`. `unknown` when /proc is missing, or hides other
 * users' processes (hidepid), or the pid is not there: kill(pid, 0) decides.
 */
function processStart(pid: number): Seen {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return { kind: 'unknown' };
  }
  // The command name (field 2) is in parentheses and may hold spaces or parentheses itself: count from the last one.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const state = fields[0];
  const start = fields[19];
  // A zombie has exited, its pid only waits for its parent to collect it; it writes nothing more.
  if (state === 'Z' || state === 'X') return { kind: 'exited' };
  return start ? { kind: 'running', start } : { kind: 'unknown' };
}

function pidRuns(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs, as another user.
    return !(error instanceof Error && 'code' in error && error.code === 'ESRCH');
  }
}

function bootId(): string | null {
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim() || null;
  } catch {
    return null;
  }
}
