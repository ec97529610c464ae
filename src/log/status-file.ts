import { writeSessionFile } from './session-files.js';

const STATUS_FILE = 'status.md';

/** Writes `<dir>/status.md` whole: a reader never sees half a file. */
export function writeStatusFile(dir: string, text: string): string {
  return writeSessionFile(dir, STATUS_FILE, text);
}

const DECISIONS_FILE = 'decisions.md';

/** Writes `<dir>/decisions.md` whole, beside status.md. */
export function writeDecisionsFile(dir: string, text: string): string {
  return writeSessionFile(dir, DECISIONS_FILE, text);
}
