/*
 * CRC-32 (the IEEE polynomial, as zlib computes it), for the closed gaps'
 * index: which bucket an id goes in, and each bucket's check. Written here
 * rather than taken from node:zlib because importing zlib costs a gap write
 * 1.7 ms (a fiftieth of the whole call) to sum a few kilobytes; the big
 * stored state (tens of MiB) is still summed by zlib's (src/log/checkpoint.ts).
 */

const TABLE = new Int32Array(256);
for (let n = 0; n < 256; n++) {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  TABLE[n] = c;
}

/** The CRC-32 of `data` (a string is taken as its UTF-8 bytes), an unsigned 32-bit number, as zlib.crc32 gives it. */
export function crc32(data: string | Uint8Array): number {
  const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  let crc = -1;
  for (let i = 0; i < bytes.length; i++) crc = TABLE[(crc ^ bytes[i]!) & 0xff]! ^ (crc >>> 8);
  return (crc ^ -1) >>> 0;
}
