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

/*
 * Files beside the log (side-file.ts reads them all): each is read only
 * from a regular file at its own path, and only up to its limit. gapflow
 * writes each far smaller than its limit; the limit is there so that a
 * file it did not write (a repository can commit a `.gapflow/` holding
 * anything) costs no more than that to refuse.
 */

/** `<log>.lock`: a holder's token (pid, host, start time, boot id, time, nonce), about 200 bytes. */
export const LOCK_FILE_LIMIT: InputLimit = { maxBytes: 4 * 1024, name: 'a lock file' };

/** An approval in the user's trust folder (trust-store.ts): a command of at most a few KiB and where it may run. */
export const APPROVAL_LIMIT: InputLimit = { maxBytes: 64 * 1024, name: 'an approval' };

/** `config.json`: `{"writeStatus":true}` today; room for many more settings. */
export const SESSION_CONFIG_LIMIT: InputLimit = { maxBytes: 64 * 1024, name: 'a session config' };

/**
 * `hook-state.json`: a count per agent of one agent session that the hook
 * blocked (a few dozen bytes each). As long as one event's input, which
 * holds the agent's id and session; the hook writes no more than this.
 */
export const HOOK_STATE_LIMIT: InputLimit = { maxBytes: MAX_LINE_BYTES, name: "the hook's state" };

/**
 * A checkpoint (`checkpoint.json`, `checkpoint.head.json`,
 * `checkpoint.closed.json`, `checkpoint.state.json`): each is derived from
 * a log of at most MAX_LOG_BYTES and runs below its size (at 100,000
 * events the view is 17.6 MiB for a 21.3 MiB log, the closed gaps' index 7
 * MiB at a million), so twice a log's limit is room to spare. One past it
 * is a cache passed over and rebuilt, not a refusal.
 */
export const CHECKPOINT_LIMIT: InputLimit = { maxBytes: 2 * MAX_LOG_BYTES, name: 'a checkpoint' };

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
      throw new LogError(
        `${event.type} (seq ${event.seq}) would be a ${formatBytes(size)} line, over the ${formatBytes(MAX_LINE_BYTES)} limit; nothing was written`,
      );
    }
    added += size;
  });
  if (logBytes + added > MAX_LOG_BYTES)
    throw new LogError(`${location} would grow past the ${formatBytes(MAX_LOG_BYTES)} limit; nothing was written: start a new session`);
  return added;
}
