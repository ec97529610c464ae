import type * as Zlib from 'node:zlib';
import { readCurrentBody, STATE_FILE } from './checkpoint.js';
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
 * titles repeat a template and about 3.5 MiB where they vary as a real
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
 * The `state --json` output stored for the session in `dir` under `format`,
 * its bytes as they are to be printed, when it covers the log's last line
 * exactly and its body is whole; null otherwise (missing, stale, edited,
 * another version's, no log, or a body that does not decompress to exactly
 * the length it gives, or gives more than a checkpoint may hold). Reads the
 * file's header, the log's last line and the body: its cost is its output,
 * whatever the log's length.
 */
export function readStateCache(dir: string, format: string): Buffer | null {
  const body = readCurrentBody(dir, storedFormat(format), STATE_FILE, join(dir, LOG_FILE));
  if (body === null) return null;
  const newline = body.subarray(0, LENGTH_LINE_MAX).indexOf(0x0a);
  const digits = newline === -1 ? '' : body.toString('ascii', 0, newline);
  const length = /^[1-9]\d*$/.test(digits) ? Number(digits) : 0;
  if (length === 0 || length > CHECKPOINT_LIMIT.maxBytes) return null;
  try {
    // Decompressing stops at the first byte past the length given: a small body that would inflate to gigabytes costs that length at most.
    const output = zlib().brotliDecompressSync(body.subarray(newline + 1), { maxOutputLength: length, chunkSize: Math.max(length, 64) });
    return output.length === length ? output : null;
  } catch {
    return null; // not brotli, or more than it said
  }
}
