import { chmodSync, chownSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { allowFolder, approveCommand, commandApproved, folderAllowed, foreignFolder, trustFolder } from '../../src/log/index.js';

/*
 * The user's choices (a check command approved for a session, a folder of
 * another owner allowed) count only from the user's own config folder, in
 * files only the user can write, naming exactly what they approve.
 */

let root: string | undefined;
afterEach(() => {
  if (root !== undefined) rmSync(root, { recursive: true, force: true });
});

function fresh(): { env: Record<string, string>; folder: string; root: string } {
  root = mkdtempSync(join(tmpdir(), 'gapflow-trust-store-'));
  const env = { XDG_CONFIG_HOME: join(root, 'config') };
  return { env, folder: trustFolder(env), root };
}

const place = '/work/project/.gapflow/events.jsonl';

describe('approved check commands', () => {
  it('are kept in $XDG_CONFIG_HOME/gapflow/trusted, else ~/.config; a relative XDG_CONFIG_HOME is ignored', () => {
    expect(trustFolder({ XDG_CONFIG_HOME: '/x/config' })).toBe('/x/config/gapflow/trusted');
    expect(trustFolder({ HOME: '/home/ada' })).toBe('/home/ada/.config/gapflow/trusted');
    expect(trustFolder({ XDG_CONFIG_HOME: 'config', HOME: '/home/ada' })).toBe('/home/ada/.config/gapflow/trusted');
  });

  it('count for the exact command at the exact place, in a folder and file only the user may read', () => {
    const { env, folder } = fresh();
    expect(commandApproved(env, place, 'npm test')).toBe(false);
    approveCommand(env, place, 'npm test');
    expect(commandApproved(env, place, 'npm test')).toBe(true);
    expect(commandApproved(env, place, 'npm test ')).toBe(false);
    expect(commandApproved(env, '/elsewhere/.gapflow/events.jsonl', 'npm test')).toBe(false);
    expect(statSync(folder).mode & 0o777).toBe(0o700);
    for (const name of readdirSync(folder)) expect(statSync(join(folder, name)).mode & 0o777).toBe(0o600);
  });

  it('do not count from a file another user owns, others may write, that is a symlink, or that names another command', () => {
    const { env, folder, root } = fresh();
    approveCommand(env, place, 'npm test');
    const [file] = readdirSync(folder).map((name) => join(folder, name));
    chmodSync(file!, 0o622);
    expect(commandApproved(env, place, 'npm test')).toBe(false);
    chmodSync(file!, 0o600);
    chownSync(file!, 65534, 65534);
    expect(commandApproved(env, place, 'npm test')).toBe(false);
    rmSync(file!);
    // A file under the right name that approves something else approves nothing.
    writeFileSync(file!, JSON.stringify({ kind: 'command', place, command: 'rm -rf /' }), { mode: 0o600 });
    expect(commandApproved(env, place, 'npm test')).toBe(false);
    rmSync(file!);
    const real = join(root, 'real.json');
    writeFileSync(real, JSON.stringify({ kind: 'command', place, command: 'npm test' }), { mode: 0o600 });
    symlinkSync(real, file!);
    expect(commandApproved(env, place, 'npm test')).toBe(false);
  });
});

describe('a session folder that is not the user’s alone', () => {
  it('is one another uid owns, or its group or others may write; a sticky folder is the user’s', () => {
    const { env, root } = fresh();
    const dir = join(root, 'session');
    mkdirSync(dir, { mode: 0o755 });
    writeFileSync(join(dir, 'events.jsonl'), '', { mode: 0o644 });
    const uid = statSync(dir).uid;
    expect(foreignFolder(dir, uid)).toBeNull();
    expect(foreignFolder(dir, uid + 1)).toMatchObject({ path: dir, owner: uid, why: `owned by uid ${uid}, not by you (uid ${uid + 1})` });
    chmodSync(join(dir, 'events.jsonl'), 0o664);
    expect(foreignFolder(dir, uid)).toMatchObject({ path: join(dir, 'events.jsonl'), why: 'writable by its group (mode 0664)' });
    chmodSync(join(dir, 'events.jsonl'), 0o644);
    chmodSync(dir, 0o777);
    expect(foreignFolder(dir, uid)).toMatchObject({ path: dir, why: 'writable by its group (mode 0777)' });
    chmodSync(dir, 0o1777);
    expect(foreignFolder(dir, uid)).toBeNull();
    expect(foreignFolder(join(root, 'not-made'), uid)).toBeNull();
    expect(folderAllowed(env, dir, uid)).toBe(false);
    allowFolder(env, dir, uid);
    expect(folderAllowed(env, dir, uid)).toBe(true);
    expect(folderAllowed(env, dir, uid + 1)).toBe(false);
  });
});
