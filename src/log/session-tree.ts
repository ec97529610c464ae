import { logAt, SESSION_FOLDER } from './find-session.js';
import { LOG_FILE } from './log-name.js';
import { LogError } from './types.js';

const { readdirSync, statSync } = process.getBuiltinModule('node:fs');
const { join, relative, sep } = process.getBuiltinModule('node:path');

/** A session found under a folder: its name (the path of the folder holding `.gapflow`, relative to the root) and its session folder. */
export interface SessionFolder {
  name: string;
  dir: string;
}

/** Folders never searched: installed packages hold no loop of their own, and are large. */
const SKIPPED = new Set(['node_modules']);

/**
 * Every session under `root`, for a view of many (`gapflow fleet`): each
 * `.gapflow` folder holding a log, at any depth, named by the path of the
 * folder it sits in relative to `root` (`.` for root's own, `/` between
 * parts on every platform), sorted by name. `root` itself, when it holds a
 * log (a session folder named directly), is the one session `.`. Neither
 * `node_modules` nor a dot-folder other than `.gapflow` is searched, nor a
 * symbolic link to a folder (no cycles); a folder that cannot be read is
 * passed over. Throws LogError when `root` is not a folder.
 */
export function sessionFoldersUnder(root: string): SessionFolder[] {
  let isFolder: boolean;
  try {
    isFolder = statSync(root).isDirectory();
  } catch {
    throw new LogError(`${root}: no such folder`);
  }
  if (!isFolder) throw new LogError(`${root}: not a folder`);
  if (logAt(join(root, LOG_FILE))) return [{ name: '.', dir: root }];
  const found: SessionFolder[] = [];
  const search = (dir: string) => {
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      // Unreadable (permissions) or gone since the listing above: nothing found there.
      return;
    }
    for (const entry of entries) {
      if (!entry.isDirectory()) continue;
      if (entry.name === SESSION_FOLDER) {
        const session = join(dir, entry.name);
        if (logAt(join(session, LOG_FILE))) found.push({ name: nameOf(root, dir), dir: session });
      } else if (!entry.name.startsWith('.') && !SKIPPED.has(entry.name)) {
        search(join(dir, entry.name));
      }
    }
  };
  search(root);
  return found.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

function nameOf(root: string, dir: string): string {
  const path = relative(root, dir);
  return path === '' ? '.' : path.split(sep).join('/');
}
