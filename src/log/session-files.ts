import { randomUUID } from 'node:crypto';
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { readTextFile } from './text-file.js';

/** Writes `<dir>/<relative>` whole (temp file, then rename), making its folders: a reader never sees half a report. */
export function writeSessionFile(dir: string, relative: string, text: string): string {
  const path = join(dir, relative);
  mkdirSync(dirname(path), { recursive: true });
  const temporary = `${path}.${randomUUID()}.tmp`;
  writeFileSync(temporary, text, 'utf8');
  renameSync(temporary, path);
  return path;
}

/** The text of a file a user named (`record forge --json FILE`), relative to `cwd`. */
export function readInputFile(path: string, cwd: string): string {
  return readTextFile(resolve(cwd, path));
}
