import { randomUUID } from 'node:crypto';
import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { InputLimit } from './limits.js';
import { readTextFile } from './text-file.js';

/** Writes `<dir>/<relative>` whole (temp file, then rename), making its folders: a reader never sees half a report. */
export function writeSessionFile(dir: string, relative: string, text: string): string {
  const path = join(dir, relative);
  mkdirSync(dirname(path), { recursive: true });
  writeWhole(path, text);
  return path;
}

/** Writes `path` through a temp file renamed into place; a failed write leaves no temp file behind. */
export function writeWhole(path: string, text: string): void {
  const temporary = `${path}.${randomUUID()}.tmp`;
  try {
    writeFileSync(temporary, text, 'utf8');
    renameSync(temporary, path);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
}

/** The text of a file a user named (`record forge --json FILE`), relative to `cwd`, refused past `limit`. */
export function readInputFile(path: string, cwd: string, limit: InputLimit): string {
  return readTextFile(resolve(cwd, path), limit);
}
