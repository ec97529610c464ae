import type * as Os from 'node:os';
import type * as Threads from 'node:worker_threads';
import type { GapflowEvent } from '../../events/index.js';

const { hash } = process.getBuiltinModule('node:crypto');
const { existsSync } = process.getBuiltinModule('node:fs');

/*
 * The checksum chain of the log's lines: sealing a line, the sum a line
 * ends with, and walking a long log's chain on a worker thread. Nothing
 * here loads the event schemas (lines.ts, which reads lines, does): the
 * worker (chain-worker.ts) loads this module alone, and a writer seals
 * events it has already checked.
 */

/*
 * Sealing lines (the line format is described in lines.ts): apart from the
 * reader's schemas, since a writer appends events it has already checked.
 */

/** The chained checksum of a line's content (its JSON without `sum`). */
export function chainSum(previous: string, content: string): string {
  return hash('sha256', previous + content, 'hex').slice(0, 16);
}

/**
 * Whether the 16 characters of `line` at `at` are the chained checksum of
 * `content`: `chainSum` compared where it stands, cutting nothing out (a
 * cold read compares one per line).
 */
export function sumMatches(previous: string, content: string, line: string, at: number): boolean {
  const digest = hash('sha256', previous + content, 'hex');
  for (let i = 0; i < 16; i++) if (line.charCodeAt(at + i) !== digest.charCodeAt(i)) return false;
  return true;
}

/** Seals a line's content (a JSON object without `sum`): the line to write, newline included, and its checksum. */
export function sealLine(content: string, previous: string): { line: string; sum: string } {
  const sum = chainSum(previous, content);
  return { line: `${content.slice(0, -1)},"sum":"${sum}"}\n`, sum };
}

/** One event's content: its JSON with the envelope fields first. */
export function eventContent(event: GapflowEvent): string {
  const { v, seq, id, at, type, data } = event;
  return JSON.stringify({ v, seq, id, at, type, data });
}

/** Events as sealed lines continuing a chain; returns the text and the last checksum. */
export function formatLines(events: readonly GapflowEvent[], previous = ''): { text: string; sum: string; lines: string[] } {
  let sum = previous;
  const lines = events.map((event) => {
    const sealed = sealLine(eventContent(event), sum);
    sum = sealed.sum;
    return sealed.line;
  });
  return { text: lines.join(''), sum, lines };
}

/*
 * A line's checksum field, as sealLine writes it: read here apart from the
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

/*
 * The checksum chain of a long log, walked on a second thread while the
 * reader parses and folds the same bytes on its own. Each line's sum is a
 * sha256 (chainSum), a fixed cost per line that is a quarter to two fifths of
 * what JSON.parse costs for the same line; on two cores it runs beside the
 * parse instead of after it. A worker takes 20 to 30 ms to start, so only a
 * log of a few MiB is worth one (PARALLEL_CHAIN_BYTES).
 *
 * The worker only says whether every line's stored sum is the one the chain
 * gives, and where the first that is not stands. It never decides what a
 * reader reports: on any doubt (a mismatch, a fault the reader found, a
 * worker that failed or went quiet) the reader scans again on its own
 * thread, exactly as it does for a short log, so what it says about a bad
 * line never depends on the worker.
 */

/** A log at least this long has its chain walked on a worker thread. */
export const PARALLEL_CHAIN_BYTES = 4 * 1024 * 1024;

/** A worker that has not moved on in this long is given up on (the reader walks the chain itself). */
const QUIET_MS = 5_000;

/** What the reader hands the worker: the log's bytes and a few words to answer in, both shared. */
export interface ChainCheckData {
  buffer: SharedArrayBuffer;
  offset: number;
  length: number;
  /** The sum the first line chains to ('' for a log's first line). */
  previous: string;
  answer: SharedArrayBuffer;
}

// The answer's words.
const STATUS = 0;
const PROGRESS = 1;
const MISMATCH = 2;
const LINES = 3;
const RUNNING = 0;
const DONE = 1;
const FAILED = 2;

/** The chain as the worker found it: the lines it walked (up to the first without a newline) and the first whose stored sum is wrong (0: none). */
export interface ChainVerdict {
  lines: number;
  mismatch: number;
}

/**
 * Walks the chain of `bytes` from `previous`, as scanText computes it line
 * by line (a line with a stored sum is checked against it; one without is
 * chained as it stands), and answers in `answer`. Runs on the worker.
 */
export function chainLinks(bytes: Buffer, previous: string, answer: Int32Array): void {
  let status = FAILED;
  try {
    let sum = previous;
    let start = 0;
    let lines = 0;
    let mismatch = 0;
    while (start < bytes.length) {
      const newline = bytes.indexOf(0x0a, start);
      if (newline === -1) break;
      const line = bytes.toString('utf8', start, newline);
      const written = storedSum(line);
      sum = chainSum(sum, written !== null ? `${line.slice(0, -SUM_SUFFIX_LENGTH)}}` : line);
      lines++;
      if (written !== null && written !== sum) {
        mismatch = lines;
        break;
      }
      if ((lines & 0xfff) === 0) Atomics.store(answer, PROGRESS, lines);
      start = newline + 1;
    }
    Atomics.store(answer, MISMATCH, mismatch);
    Atomics.store(answer, LINES, lines);
    status = DONE;
  } finally {
    Atomics.store(answer, STATUS, status);
    Atomics.notify(answer, STATUS);
  }
}

/** A chain walk under way on a worker; `verdict` waits for it (null: no answer to trust, walk the chain here). */
export interface ChainCheck {
  verdict(): ChainVerdict | null;
}

/** The worker's file beside this module (the library's build) or beside the bundle that holds it (the bin's); null when neither is there (the sources, run by a test). */
function workerFile(): URL | null {
  for (const relative of ['./chain-worker.js', '../chain-worker.js']) {
    const url = new URL(relative, import.meta.url);
    if (existsSync(url)) return url;
  }
  return null;
}

/**
 * Starts walking the chain of `bytes` on a worker, when they are long
 * enough to be worth it and there is a second core to do it on; null
 * otherwise, or when no worker could be started. `options` are for tests.
 */
export function startChainCheck(bytes: Uint8Array, previous: string, options: { fromBytes?: number; file?: URL; quietMs?: number } = {}): ChainCheck | null {
  const file = options.file ?? workerFile();
  const quietMs = options.quietMs ?? QUIET_MS;
  if (bytes.length < (options.fromBytes ?? PARALLEL_CHAIN_BYTES) || file === null) return null;
  // Taken only when a worker is started: worker_threads costs a short command (a stop hook's) 2 ms.
  const threads = process.getBuiltinModule('node:worker_threads') as typeof Threads;
  if ((process.getBuiltinModule('node:os') as typeof Os).availableParallelism() < 2) return null;
  const answer = new SharedArrayBuffer(4 * Int32Array.BYTES_PER_ELEMENT);
  const words = new Int32Array(answer);
  let data: ChainCheckData;
  if (bytes.buffer instanceof SharedArrayBuffer) {
    data = { buffer: bytes.buffer, offset: bytes.byteOffset, length: bytes.length, previous, answer };
  } else {
    const buffer = new SharedArrayBuffer(bytes.length);
    new Uint8Array(buffer).set(bytes);
    data = { buffer, offset: 0, length: bytes.length, previous, answer };
  }
  let worker: Threads.Worker;
  try {
    worker = new threads.Worker(file, { workerData: data });
  } catch {
    return null;
  }
  // Never what keeps a process alive: a reader that stops waiting leaves it to end on its own.
  worker.unref();
  // A worker that fails (its file unreadable, an exception) has answered FAILED or never answers: the reader walks
  // the chain itself either way, so its error event is nothing to act on, and must not end the process unheard.
  worker.on('error', () => undefined);
  return {
    verdict() {
      // A worker that has not even started in one quiet spell is given up on too.
      let progress = 0;
      while (Atomics.load(words, STATUS) === RUNNING) {
        if (Atomics.wait(words, STATUS, RUNNING, quietMs) === 'timed-out' && Atomics.load(words, PROGRESS) === progress) {
          void worker.terminate();
          return null;
        }
        progress = Atomics.load(words, PROGRESS);
      }
      return Atomics.load(words, STATUS) === DONE ? { lines: Atomics.load(words, LINES), mismatch: Atomics.load(words, MISMATCH) } : null;
    },
  };
}
