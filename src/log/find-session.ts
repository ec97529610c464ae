import { LOG_FILE } from './log-name.js';

const { lstatSync } = process.getBuiltinModule('node:fs');
const { dirname, join, resolve, sep } = process.getBuiltinModule('node:path');

/*
 * Finding a session the way git finds a repository: from a folder upward.
 * Imports no schema and no other log module, so the bin's quick paths
 * (`state --json`, `next`, a stop hook) pay for nothing more than the few
 * `lstat` calls the search makes.
 */

/** The name of a session folder that no `--dir` or `$GAPFLOW_DIR` names. */
export const SESSION_FOLDER = '.gapflow';

/** Whether a log is at `path`: anything there but an empty regular file (see holdsNoSession in files.ts). */
export function logAt(path: string): boolean {
  try {
    const stat = lstatSync(path);
    return !(stat.isFile() && stat.size === 0);
  } catch {
    // Missing, or a folder on the way that cannot be read: no session the search can use here; it looks higher up.
    return false;
  }
}

/**
 * The nearest `.gapflow` holding a log, from `start` upward to the root of
 * the file system; when `start` lies inside `project` (Claude Code's
 * `$CLAUDE_PROJECT_DIR`), no higher than the project's root, since a loop
 * in a folder above the project is not this project's. Failing that,
 * `<project>/.gapflow` when it holds a log (an agent may stand outside the
 * project). Null when there is none.
 */
export function findSessionDir(start: string, project?: string): string | null {
  const from = resolve(start);
  const root = project ? resolve(project) : null;
  const top = root !== null && (from === root || from.startsWith(root.endsWith(sep) ? root : `${root}${sep}`)) ? root : null;
  for (let at = from; ; at = dirname(at)) {
    const dir = join(at, SESSION_FOLDER);
    if (logAt(join(dir, LOG_FILE))) return dir;
    if (at === top || dirname(at) === at) break;
  }
  const fallback = root === null ? null : join(root, SESSION_FOLDER);
  return fallback !== null && logAt(join(fallback, LOG_FILE)) ? fallback : null;
}
