import { logAt, SESSION_FOLDER } from './find-session.js';
import { LOG_FILE } from './log-name.js';

const { readdirSync } = process.getBuiltinModule('node:fs');
const { join } = process.getBuiltinModule('node:path');

/**
 * The session folders `dir` names, for a command that reads many sessions
 * (`backtest`): `dir` itself when it holds a log, else its `.gapflow`,
 * else each folder directly inside it that holds a log or a `.gapflow`
 * with one, by name. Empty when there is none. Only looks: nothing is
 * opened for writing.
 */
export function sessionDirsIn(dir: string): string[] {
  const own = sessionIn(dir);
  if (own !== null) return [own];
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    // Missing or unreadable: no session here, which the caller names.
    return [];
  }
  return entries
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort()
    .flatMap((name) => sessionIn(join(dir, name)) ?? []);
}

function sessionIn(dir: string): string | null {
  if (logAt(join(dir, LOG_FILE))) return dir;
  const nested = join(dir, SESSION_FOLDER);
  return logAt(join(nested, LOG_FILE)) ? nested : null;
}
