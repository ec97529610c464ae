import { readFileSync } from 'node:fs';
import { LogError } from './types.js';

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Input bytes as text: invalid UTF-8 is refused, naming where it came from, never silently replaced. */
export function decodeUtf8(bytes: Uint8Array, where: string): string {
  try {
    return utf8.decode(bytes);
  } catch {
    throw new LogError(`${where} is not valid UTF-8 text; nothing was written`);
  }
}

/** The text of an input file (`append --file`, `record --json FILE`); a missing one is one clear line. */
export function readTextFile(path: string): string {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (error) {
    const code = error instanceof Error && 'code' in error ? String(error.code) : '';
    if (code === 'ENOENT') throw new LogError(`${path}: no such file`);
    if (code === 'EISDIR') throw new LogError(`${path}: is a folder, not a file`);
    throw error;
  }
  return decodeUtf8(bytes, path);
}
