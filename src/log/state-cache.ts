import type * as NodeBuffer from 'node:buffer';
import type * as Zlib from 'node:zlib';
import { readCurrent, STATE_FILE } from './checkpoint.js';
import { CHECKPOINT_LIMIT } from './files.js';
import { LOG_FILE } from './log-name.js';

const { join } = process.getBuiltinModule('node:path');

/*
 * The pre-rendered `state --json` output (`<dir>/checkpoint.state.json`),
 * read without the session: this module and what it imports load no
 * schema, no machine and no immer, so the bin can print it from here.
 * FileCheckpoints.saveState writes it.
 *
 * It is kept compressed (brotli at quality 2): the output names every gap,
 * and at 100,000 gaps its 25 to 30 MiB would be a second copy of the
 * inventory beside the log; compressed, it takes 0.3 MiB where the gaps'
 * titles repeat a template and 3.1 MiB where they vary as a real
 * scan's do. Reading it costs about what reading it plain did: decompressing
 * takes about the time the plain file's crc took (13-16 ms against 13 ms at
 * 25 MiB), and the crc now runs over the compressed bytes. Its format on disk
 * says so (`/brotli`): a release that kept it plain never prints it as its
 * own.
 */

const zlib = () => process.getBuiltinModule('node:zlib') as typeof Zlib;

/** How the stored output's format names it on disk. */
function storedFormat(format: string): string {
  return `${format}/brotli`;
}

/**
 * `text` as the stored output's body, and the format it is stored under: the
 * output's length in bytes (decimal) and a newline, then the output as brotli.
 * The length lets a reader decompress into one buffer of the right size (with
 * node's 16 KiB chunks, 25 MiB of output took 1,600 chunks and a copy of them
 * all, 30 ms more than printing it plain), and refuse a body that claims more
 * than a checkpoint may hold before decompressing any of it.
 */
export function packState(format: string, text: string): { format: string; body: Buffer } {
  const { brotliCompressSync, constants } = zlib();
  const bytes = Buffer.from(text, 'utf8');
  const compressed = brotliCompressSync(bytes, {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: 2,
      [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length,
      [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
    },
  });
  return { format: storedFormat(format), body: Buffer.concat([Buffer.from(`${bytes.length}\n`, 'ascii'), compressed]) };
}

/** The longest length line a body starts with: the digits of the largest output a checkpoint may hold, and the newline. */
const LENGTH_LINE_MAX = String(CHECKPOINT_LIMIT.maxBytes).length + 1;

/**
 * How far a stored output may run past its compressed bytes, and past the
 * log it covers. A real output compresses 9 to 90 times, and runs to about
 * as many bytes as the log (25 MiB for a 27 MiB log at 100,000 gaps, 99 MiB
 * for a 215 MiB log at a million events). The folder is input: a planted
 * file of a few hundred bytes could otherwise claim, and decompress to, the
 * 512 MiB a checkpoint may hold; under these bounds the output costs at most
 * a small multiple of what is really on disk.
 */
const MAX_RATIO = 1024;
const MAX_LOG_MULTIPLE = 4;

/**
 * The largest output a stored body may give: a checkpoint's limit, and no
 * more than a string can hold (so every caller may decode it as text).
 */
const MAX_OUTPUT = Math.min(CHECKPOINT_LIMIT.maxBytes, (process.getBuiltinModule('node:buffer') as typeof NodeBuffer).constants.MAX_STRING_LENGTH);

/**
 * The `state --json` output stored for the session in `dir` under `format`,
 * its bytes as they are to be printed, when it covers the log's last line
 * exactly and its body is whole; null otherwise (missing, stale, edited,
 * another version's, no log, or a body that does not decompress to exactly
 * the length it gives, or gives a length past MAX_OUTPUT, MAX_RATIO times its
 * compressed bytes or MAX_LOG_MULTIPLE times the log). Reads the file's
 * header, the log's last line and the body: its cost is its output,
 * whatever the log's length.
 */
export function readStateCache(dir: string, format: string): Buffer | null {
  const current = readCurrent(dir, storedFormat(format), STATE_FILE, join(dir, LOG_FILE));
  if (current === null) return null;
  const { body, key } = current;
  const newline = body.subarray(0, LENGTH_LINE_MAX).indexOf(0x0a);
  const digits = newline === -1 ? '' : body.toString('ascii', 0, newline);
  const length = /^[1-9]\d*$/.test(digits) ? Number(digits) : 0;
  const compressed = body.subarray(newline + 1);
  if (length === 0 || length > MAX_OUTPUT || length > compressed.length * MAX_RATIO || length > key.end * MAX_LOG_MULTIPLE) return null;
  try {
    // One byte more than the length given: the output then never fills the buffer, which would make zlib allocate another to
    // look for more; and decompressing stops at the first byte past the length.
    const output = zlib().brotliDecompressSync(compressed, { maxOutputLength: length, chunkSize: Math.max(length + 1, 64) });
    return output.length === length ? output : null;
  } catch {
    return null; // not brotli, or more than it said
  }
}
