import { FileLog, isPostgresUrl, sessionFoldersUnder, type EventStore } from '../log/index.js';
import { databaseSource } from './database.js';

const { isAbsolute, resolve } = process.getBuiltinModule('node:path');

/**
 * One session of a fleet: its name (unique in the source) and the store its
 * events live in, or why no store could be opened for it (a database row
 * whose name no session may have): listed as unreadable, never hiding the
 * rest of the fleet.
 */
export type FleetEntry = { name: string; store: EventStore } | { name: string; error: string };

/** Where a fleet's sessions live: a folder searched for `.gapflow` folders, or (later) a database. */
export interface FleetSource {
  /** For messages and the page title: a folder, or a database URL without its password. */
  readonly location: string;
  /** Every session here, sorted by name. */
  sessions(): FleetEntry[];
  /** Calls `changed(name)` when a session's stream grows, `changed(null)` when sessions may have come or gone; returns stop. */
  watch(changed: (name: string | null) => void): () => void;
  /** Frees what the source holds (a no-op for folders). */
  close(): void;
}

/** How often a folder source looks for sessions that came or went (ms); each look walks the folder tree. */
export const RESCAN_MS = 3_000;

export interface FolderWatchOptions {
  /** How often to look for new or removed session folders (ms); default RESCAN_MS. */
  rescanMs?: number;
  /** How often each log is looked at when no change notice came (ms), as FileLog's follow takes it. */
  followMs?: number;
}

/**
 * The fleet at `target`: a folder (relative to `io.cwd`) searched for
 * sessions, or a PostgreSQL URL. `io.env` is for the database's settings.
 */
export function fleetSource(target: string, io: { cwd: string; env: Record<string, string | undefined> }, options: FolderWatchOptions = {}): FleetSource {
  if (isPostgresUrl(target)) return databaseSource(target, options.followMs === undefined ? {} : { pollMs: options.followMs });
  return folderSource(isAbsolute(target) ? target : resolve(io.cwd, target), options);
}

/**
 * Every session under a folder (see sessionFoldersUnder). Watching follows
 * each session's log (FileLog.follow: change notices, and a look each
 * `followMs` for what they miss), and walks the folder every `rescanMs` for
 * sessions that came or went. Throws LogError when `root` is not a folder.
 */
export function folderSource(root: string, options: FolderWatchOptions = {}): FleetSource {
  const list = () => sessionFoldersUnder(root).map(({ name, dir }) => ({ name, store: new FileLog(dir) }));
  // Read once now, so a target that is no folder fails before anything is served.
  let first: FleetEntry[] | null = list();
  return {
    location: root,
    sessions() {
      const entries = first ?? list();
      first = null;
      return entries;
    },
    watch: (changed) => watchFolder(list, changed, options),
    close() {},
  };
}

function watchFolder(list: () => FleetEntry[], changed: (name: string | null) => void, options: FolderWatchOptions): () => void {
  const followers = new Map<string, { stop: () => void; broken: boolean }>();
  const follow = (entry: FleetEntry) => {
    // A folder always has a store; an entry without one has nothing to follow.
    if (!('store' in entry)) return;
    let started = false;
    const follower = { stop: () => {}, broken: false };
    follower.stop = entry.store.follow(
      0,
      () => {
        // The first call hands over what is there already, which the caller has read: only growth is news.
        if (started) changed(entry.name);
      },
      {
        // The rows were read already: following starts at each log's end, reading its last line, not the whole log.
        fromEnd: true,
        ...(options.followMs === undefined ? {} : { intervalMs: options.followMs }),
        onError: () => {
          // A bad line, or a log replaced beneath the follower (which then stops): the row shows it; the next rescan follows again.
          follower.broken = true;
          if (started) changed(entry.name);
        },
      },
    );
    started = true;
    followers.set(entry.name, follower);
  };
  const rescan = () => {
    let entries: FleetEntry[];
    try {
      entries = list();
    } catch {
      // The folder itself went away: every session with it.
      entries = [];
    }
    const byName = new Map(entries.map((entry) => [entry.name, entry]));
    let cameOrWent = false;
    for (const [name, follower] of followers) {
      const entry = byName.get(name);
      if (entry !== undefined && !follower.broken) continue;
      follower.stop();
      followers.delete(name);
      if (entry === undefined) cameOrWent = true;
      else {
        follow(entry);
        changed(name);
      }
    }
    for (const entry of entries) {
      if (followers.has(entry.name)) continue;
      follow(entry);
      cameOrWent = true;
    }
    if (cameOrWent) changed(null);
  };
  for (const entry of list()) follow(entry);
  const timer = setInterval(rescan, options.rescanMs ?? RESCAN_MS);
  timer.unref();
  return () => {
    clearInterval(timer);
    for (const follower of followers.values()) follower.stop();
    followers.clear();
  };
}
