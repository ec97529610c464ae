import { lstatSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { SHARED_FILE_MODE, writeWhole } from './durable.js';
import { SESSION_CONFIG_LIMIT } from './limits.js';
import { readSideFile } from './side-file.js';
import { LogError } from './types.js';

/*
 * `<dir>/config.json`: how the CLI treats a session's folder, as opposed to
 * what the loop did (the log). Today one setting: `writeStatus`, status.md
 * rewritten after every command that records an event (`init
 * --write-status`). It is kept beside the log, not in session.started: it
 * says how to present the session, not how to judge it, so it never
 * touches history, the event schema or an old log, can be turned off by
 * deleting the file, and the short write paths see it with one stat.
 */

export const CONFIG_FILE = 'config.json';

export interface SessionConfig {
  /** Rewrite status.md after every command that records an event. */
  writeStatus: boolean;
}

const DEFAULT_CONFIG: SessionConfig = { writeStatus: false };

/** Whether `dir` has a config file at all (anything there: the full read judges it). Loads no schema. */
export function hasSessionConfig(dir: string): boolean {
  try {
    lstatSync(join(dir, CONFIG_FILE));
    return true;
  } catch {
    return false;
  }
}

/** The session folder's settings; the defaults when there is no config file. A file that is not what gapflow writes (or not a file) is refused, naming it. */
export function readSessionConfig(dir: string): SessionConfig {
  const path = join(dir, CONFIG_FILE);
  // A symlink, a FIFO, a device or a file past SESSION_CONFIG_LIMIT is refused here, naming it.
  const text = readSideFile(path, SESSION_CONFIG_LIMIT);
  if (text === null) return DEFAULT_CONFIG;
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json) || typeof (json as { writeStatus?: unknown }).writeStatus !== 'boolean') {
    throw new LogError(`${path} is not a session config like {"writeStatus": true}; fix it, or delete it to turn the setting off`);
  }
  return { writeStatus: (json as SessionConfig).writeStatus };
}

/** Writes the config whole (temp + rename); with every setting at its default, removes the file instead. */
export function writeSessionConfig(dir: string, config: SessionConfig): void {
  const path = join(dir, CONFIG_FILE);
  if (!config.writeStatus) {
    rmSync(path, { force: true });
    return;
  }
  writeWhole(path, `${JSON.stringify(config)}\n`, SHARED_FILE_MODE);
}
