import { writeSessionFile } from './session-files.js';

const STATUS_FILE = 'status.md';

/** Writes `<dir>/status.md` whole: a reader never sees half a file. */
export function writeStatusFile(dir: string, text: string): string {
  return writeSessionFile(dir, STATUS_FILE, text);
}
