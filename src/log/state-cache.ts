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
 * and at 100,000 gaps its 25 MiB would be a second copy of the inventory
 * beside the log, where compressed it takes under a third of a MiB. Reading
 * it costs what reading it plain did: decompressing takes about the time
 * the plain file's crc took (20 ms against 12 ms at 25 MiB), and the crc now
 * runs over the compressed bytes. Its format on disk says so (`/brotli`):
 * a release that kept it plain never prints it as its own.
 */

const zlib = () => process.getBuiltinModule('node:zlib') as typeof Zlib;

/** How the stored output's format names it on disk. */
function storedFormat(format: string): string {
  return `${format}/brotli`;
}

/** `text` as the stored output's body, and the format it is stored under. */
export function packState(format: string, text: string): { format: string; body: Buffer } {
  const { brotliCompressSync, constants } = zlib();
  const bytes = Buffer.from(text, 'utf8');
  const body = brotliCompressSync(bytes, {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: 2,
      [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length,
      [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
    },
  });
  return { format: storedFormat(format), body };
}

/**
 * The output buffer's size for decompressing `bytes` of stored output: 128
 * times them, which holds what they decompress to in one chunk (the output
 * compresses 8 to 90 times, by how much its gaps' titles repeat), at most 32
 * MiB. With node's 16 KiB chunks, 25 MiB of output took 1,600 chunks and a
 * copy of them all, and the call 30 ms more than printing it plain.
 */
function outputChunk(bytes: number): number {
  return Math.min(32 * 1024 * 1024, Math.max(64 * 1024, bytes * 128));
}

/**
 * The `state --json` output stored for the session in `dir` under `format`,
 * its bytes as they are to be printed, when it covers the log's last line
 * exactly and its body is whole; null otherwise (missing, stale, edited,
 * another version's, no log, or a body that does not decompress within
 * a checkpoint's limit). Reads the file's header, the log's last line and
 * the body: its cost is its output, whatever the log's length.
 */
export function readStateCache(dir: string, format: string): Buffer | null {
  const body = readCurrentBody(dir, storedFormat(format), STATE_FILE, join(dir, LOG_FILE));
  if (body === null) return null;
  try {
    return zlib().brotliDecompressSync(body, { maxOutputLength: CHECKPOINT_LIMIT.maxBytes, chunkSize: outputChunk(body.length) });
  } catch {
    return null; // not brotli, or more than a checkpoint may hold: no stored output
  }
}
