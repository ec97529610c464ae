import { readCurrentBody, STATE_FILE } from './checkpoint.js';
import { LOG_FILE } from './log-name.js';

const { join } = process.getBuiltinModule('node:path');

/*
 * The pre-rendered `state --json` output (`<dir>/checkpoint.state.json`),
 * read without the session: this module and what it imports load no
 * schema, no machine and no immer, so the bin can print it from here.
 * FileCheckpoints.saveState writes it.
 */

/**
 * The `state --json` output stored for the session in `dir` under `format`,
 * its bytes as they are to be printed, when it covers the log's last line
 * exactly and its body is whole; null otherwise (missing, stale, edited,
 * another version's, or no log). Reads the file's header, the log's last
 * line and the body: its cost is its output, whatever the log's length.
 */
export function readStateCache(dir: string, format: string): Buffer | null {
  return readCurrentBody(dir, format, STATE_FILE, join(dir, LOG_FILE));
}
