import { randomUUID } from 'node:crypto';
import { renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const STATUS_FILE = 'status.md';

/** Writes `<dir>/status.md` whole: a reader never sees half a file. */
export function writeStatusFile(dir: string, text: string): string {
  const path = join(dir, STATUS_FILE);
  const temporary = `${path}.${randomUUID()}.tmp`;
  writeFileSync(temporary, text, 'utf8');
  renameSync(temporary, path);
  return path;
}
