import { type InputLimit, makeFolder, readTextFile, writeWhole } from './files.js';

const { dirname, join, resolve } = process.getBuiltinModule('node:path');

/** Writes `<dir>/<relative>` whole (temp file, fsync, rename, folder fsync), making its folders: a reader never sees half a report. */
export function writeSessionFile(dir: string, relative: string, text: string): string {
  const path = join(dir, relative);
  makeFolder(dirname(path));
  writeWhole(path, text);
  return path;
}

/** The text of a file a user named (`record forge --json FILE`), relative to `cwd`, refused past `limit`. */
export function readInputFile(path: string, cwd: string, limit: InputLimit): string {
  return readTextFile(resolve(cwd, path), limit);
}
