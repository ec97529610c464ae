import { Bridge } from './bridge.js';
import { shownDatabase } from './names.js';

/** One worker (and connection) per database a process uses, shared by its stores. */
const shared = new Map<string, Bridge>();
/** Workers made for one store alone, ended with the shared ones. */
const own: Bridge[] = [];

/** The bridge to `url` every store of this process shares (`alone`: one of its own). */
export function bridgeTo(url: string, alone = false): Bridge {
  if (alone) {
    const bridge = new Bridge(url, shownDatabase(url));
    own.push(bridge);
    return bridge;
  }
  let bridge = shared.get(url);
  if (bridge === undefined || bridge.closed) {
    bridge = new Bridge(url, shownDatabase(url));
    shared.set(url, bridge);
  }
  return bridge;
}

/** The bridge to `url`, for readers across sessions (the fleet view). */
export function databaseAt(url: string): Bridge {
  return bridgeTo(url);
}

/** Ends every database worker this process started (a long-lived embedder or a test, when it is done with its stores). */
export function closePostgresStores(): void {
  for (const bridge of [...shared.values(), ...own.splice(0)]) bridge.close();
  shared.clear();
}
