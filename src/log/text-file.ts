import { readFileSync } from 'node:fs';
import { LogError } from './types.js';

/** The text of an input file (a batch for `gapflow append --file`); a missing one is one clear line. */
export function readTextFile(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    const code = error instanceof Error && 'code' in error ? String(error.code) : '';
    if (code === 'ENOENT') throw new LogError(`${path}: no such file`);
    if (code === 'EISDIR') throw new LogError(`${path}: is a folder, not a file`);
    throw error;
  }
}
