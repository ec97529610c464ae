import type { Stats } from 'node:fs';
import { APPROVAL_LIMIT, currentUid, openToOthers, PRIVATE_FILE_MODE, sideText, withSideFile, writeWhole } from './files.js';

const { createHash } = process.getBuiltinModule('node:crypto');
const { fstatSync, mkdirSync, realpathSync, rmSync } = process.getBuiltinModule('node:fs');
const { homedir } = process.getBuiltinModule('node:os');
const { isAbsolute, join } = process.getBuiltinModule('node:path');

/*
 * What this user chose on this machine: the check commands they set (`init
 * --verify`) or approved (`gapflow trust`), and the session folders of
 * other owners they allowed. It is kept in the user's own config folder, one
 * small file per choice named by a hash of what it approves, never beside
 * the log: a log, a session folder, an export or a database row carries none
 * of it, so nothing that arrives with a session can approve itself (as
 * direnv keeps its allow list, and git its safe.directory, outside the
 * repository). A choice's file counts only when it is a regular file this
 * user owns that nobody else may write, and it names exactly what it
 * approves, so a hash that matched by chance approves nothing.
 */

/** The environment a call runs in: where the user's config folder is. */
export type TrustEnv = Readonly<Record<string, string | undefined>>;

/** The user's gapflow folder of choices: `$XDG_CONFIG_HOME/gapflow/trusted`, else `~/.config/gapflow/trusted`. */
export function trustFolder(env: TrustEnv): string {
  const xdg = env.XDG_CONFIG_HOME;
  // The XDG rule: a relative value is ignored.
  const config = xdg !== undefined && isAbsolute(xdg) ? xdg : join(env.HOME !== undefined && isAbsolute(env.HOME) ? env.HOME : homedir(), '.config');
  return join(config, 'gapflow', 'trusted');
}

/** What one choice approves: a command at a session's place, or a folder of another owner. */
type Choice = { kind: 'command'; place: string; command: string } | { kind: 'folder'; folder: string; owner: number };

function choiceFile(env: TrustEnv, choice: Choice): string {
  const subject = choice.kind === 'command' ? `${choice.place}\n${choice.command}` : `${choice.folder}\n${choice.owner}`;
  return join(trustFolder(env), `${choice.kind}-${createHash('sha256').update(subject).digest('hex').slice(0, 40)}.json`);
}

/** Whether the user made `choice`: its file is theirs alone and names exactly it. */
function chosen(env: TrustEnv, choice: Choice): boolean {
  const path = choiceFile(env, choice);
  try {
    const kept = withSideFile(path, APPROVAL_LIMIT, (file) =>
      ownedSafely(fstatSync(file.fd), false) ? (JSON.parse(sideText(file, path, APPROVAL_LIMIT)) as unknown) : null,
    );
    return typeof kept === 'object' && kept !== null && Object.entries(choice).every(([key, value]) => (kept as Record<string, unknown>)[key] === value);
  } catch {
    // A symlink, a FIFO, an oversized or unreadable file: not a choice this user made.
    return false;
  }
}

function record(env: TrustEnv, choice: Choice): void {
  mkdirSync(trustFolder(env), { recursive: true, mode: 0o700 });
  writeWhole(choiceFile(env, choice), `${JSON.stringify({ ...choice, approvedAt: new Date().toISOString() })}\n`, PRIVATE_FILE_MODE);
}

/**
 * Where a session lives, as an approval names it: a folder session's log by
 * its real path (a symlinked folder is the same session; a copy elsewhere
 * is another), a database session by its database and name.
 */
export function trustPlace(location: string): string {
  if (!isAbsolute(location)) return location;
  try {
    return realpathSync.native(location);
  } catch {
    return location;
  }
}

/** Whether this user set or approved `command` for the session at `place` on this machine. */
export function commandApproved(env: TrustEnv, place: string, command: string): boolean {
  return chosen(env, { kind: 'command', place, command });
}

/** Records that this user chose `command` for the session at `place`. */
export function approveCommand(env: TrustEnv, place: string, command: string): void {
  record(env, { kind: 'command', place, command });
}

/** Takes back the approval of `command` at `place`, if there was one. */
export function revokeCommand(env: TrustEnv, place: string, command: string): void {
  rmSync(choiceFile(env, { kind: 'command', place, command }), { force: true });
}

function ownedSafely(stats: Stats, folder: boolean, uid = currentUid()): boolean {
  return uid === null || (stats.uid === uid && !openToOthers(stats, folder));
}

/** Whether this user allowed the session folder `dir` although `owner` owns it or others may write it. */
export function folderAllowed(env: TrustEnv, dir: string, owner: number): boolean {
  return chosen(env, { kind: 'folder', folder: trustPlace(dir), owner });
}

/** Records that this user allows the session folder `dir` as long as `owner` owns it. */
export function allowFolder(env: TrustEnv, dir: string, owner: number): void {
  record(env, { kind: 'folder', folder: trustPlace(dir), owner });
}
