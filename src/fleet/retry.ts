import { DatabaseError, LogError } from '../log/index.js';

/*
 * When a read of a session fails, whether the failure says something about
 * the log or only about this attempt to read it. A connection that dropped,
 * a database restarting or a file the system would not open for a moment
 * says nothing about the session: the fleet keeps what it last read, marked
 * stale, and reads again (retryDelayMs). A log that was read and judged bad
 * (a line that is not an event, a broken chain, a stream that is gone) is
 * unreadable until it changes: reading it again finds the same fault.
 */

/** A failed read is first tried again this long after it (ms). */
export const RETRY_FIRST_MS = 250;

/** Each retry waits twice as long as the one before, up to this (ms): one read per session this often at most while it keeps failing. */
export const RETRY_MAX_MS = 4_000;

/** How long a fleet read once, not watched (`gapflow fleet`), goes on retrying failed reads before it answers (ms): retries at 0.25, 0.75 and 1.75 s. */
export const SETTLE_WITHIN_MS = 2_000;

/** How long to wait before retry `attempt` (0 for the first): 0.25 s, 0.5 s, 1 s, 2 s, then 4 s each time. */
export function retryDelayMs(attempt: number): number {
  return Math.min(RETRY_FIRST_MS * 2 ** Math.max(0, attempt), RETRY_MAX_MS);
}

/**
 * SQLSTATE codes of a statement that failed for the moment, not for what it
 * read: connection exceptions (class 08), a server out of resources (class
 * 53), a server shutting down or starting (57P01–57P03), a statement
 * cancelled (57014), and the contention a second try gets past
 * (serialization failure, deadlock, lock timeout).
 */
const PASSING_SQLSTATE = /^(08|53)|^(57P01|57P02|57P03|57014|40001|40P01|55P03)$/;

/**
 * The errors of a file system that refused or failed a read (a permission
 * changed for a moment, a descriptor limit, an I/O error, a network file
 * system's stale handle). A log that is not there is not among them: the
 * store words that as a LogError, and the folder's next search drops it.
 */
const PASSING_FILE_CODES: ReadonlySet<string> = new Set([
  'EACCES',
  'EPERM',
  'EIO',
  'EAGAIN',
  'EBUSY',
  'EINTR',
  'EMFILE',
  'ENFILE',
  'ENOMEM',
  'ESTALE',
  'ETIMEDOUT',
]);

/**
 * Whether a failed read of a session says nothing about its log: the
 * connection to the database failed or the database could not serve the
 * statement for now, or the operating system refused or failed the read.
 * Anything else (a LogError judging the log: a bad line, a broken chain, no
 * such session; or an error nobody expected) is a fault of the log.
 */
export function isPassingReadFailure(error: unknown): boolean {
  // No message is read: the bridge says whether an answer from the server stands behind the failure, and a statement's message may quote what it read.
  if (error instanceof DatabaseError) return error.lost || (error.code !== null && PASSING_SQLSTATE.test(error.code));
  if (error instanceof LogError) return false;
  const code = error instanceof Error && 'code' in error && typeof error.code === 'string' ? error.code : null;
  return code !== null && PASSING_FILE_CODES.has(code);
}
