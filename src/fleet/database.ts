import { databaseAt, globalEnd, PgLog, readGlobal, shownDatabase, streamNames, type GlobalCursor } from '../log/index.js';
import type { FleetEntry, FleetSource } from './source.js';

/** How often a database fleet reads the global order when no commit notice came (ms): what a lost notice costs at most. */
export const DATABASE_POLL_MS = 2_000;

/**
 * Every session in a PostgreSQL store. Watching listens for commit notices
 * and reads the events committed since it last looked in the global order
 * (readGlobal: never past a transaction still open), naming each session
 * that grew; a session it has not seen before means sessions came.
 * Between notices it reads the global order every `pollMs` as well, so a
 * notice lost with a dropped connection delays a row, never loses it.
 */
export function databaseSource(url: string, options: { pollMs?: number } = {}): FleetSource {
  // Asked for at each use: a bridge closed after a request that never came back is made again.
  const door = () => databaseAt(url);
  // Read once now, so a database out of reach fails before anything is served.
  let first: string[] | null = streamNames(door());
  return {
    location: shownDatabase(url),
    sessions(): FleetEntry[] {
      const names = first ?? streamNames(door());
      first = null;
      return names.map((name) => entryFor(url, name));
    },
    watch(changed) {
      const known = new Set(streamNames(door()));
      // Start after what is there: only what commits from now on is news.
      let cursor: GlobalCursor = globalEnd(door());
      const look = () => {
        hearNotices();
        let grown: Set<string>;
        try {
          grown = new Set();
          for (let read = readGlobal(door(), cursor); read.length > 0; read = readGlobal(door(), cursor)) {
            for (const event of read) grown.add(event.stream);
            cursor = read.at(-1)!.at;
          }
        } catch {
          return; // out of reach for now: the next look tries again
        }
        let came = false;
        for (const name of grown) {
          if (!known.has(name)) {
            known.add(name);
            came = true;
          } else changed(name);
        }
        if (came) changed(null);
      };
      const listen = () => {
        try {
          door().listen();
        } catch {
          // Not listening: the timer's looks still find every commit.
        }
      };
      /** Hears the notices of the bridge there is now (again, after one was closed and made anew). */
      let heard: { bridge: ReturnType<typeof door>; stop: () => void } | null = null;
      const hearNotices = () => {
        const bridge = door();
        if (heard?.bridge === bridge) return;
        heard?.stop();
        heard = {
          bridge,
          stop: bridge.hear((notice) => {
            if ('lost' in notice) listen();
            look();
          }, true),
        };
        listen();
      };
      hearNotices();
      const timer = setInterval(look, options.pollMs ?? DATABASE_POLL_MS);
      return () => {
        clearInterval(timer);
        heard?.stop();
      };
    },
    close() {},
  };
}

/**
 * The session a stream row names. A row is anyone's bytes: a name that no
 * session may have (PgLog refuses it, naming why) makes an unreadable entry,
 * not a throw that would leave the whole fleet unlisted.
 */
function entryFor(url: string, name: string): FleetEntry {
  try {
    return { name, store: new PgLog(url, name) };
  } catch (error) {
    return { name, error: `not a session this database can hold: ${error instanceof Error ? error.message : String(error)}` };
  }
}
