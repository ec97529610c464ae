import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { tempDirs } from '../support.js';
import { runCli } from './helpers.js';

/*
 * The bundled bin runs its write commands from dist/session-commands.cjs,
 * compiled through V8's code cache (src/log/code-cache.ts). The cache is
 * kept only by a call that exits 0, only in a folder its user alone can
 * write, and a damaged file costs a call its compile, never its answer: V8
 * ends the process on a damaged cache it is handed, so these calls would
 * crash if one got through.
 */

const tempDir = tempDirs('gapflow-code-cache-');
const DIST = fileURLToPath(new URL('../../dist/', import.meta.url));
const BIN = join(DIST, 'gapflow.cjs');
const CACHE_FILE = /^session-commands-[0-9a-f]{32}\.v8$/;

/** A session folder with a started session in it. */
function session(): string {
  const dir = join(tempDir(), '.gapflow');
  expect(runCli(['init', '--dir', dir], { cwd: tempDir() }).code).toBe(0);
  return dir;
}

/** `gapflow gap open ID --severity SEVERITY` through the bundled bin, with `env` over a home of its own. */
function gapOpen(dir: string, id: string, env: Record<string, string>, severity = 'LOW', bin = BIN) {
  const home = tempDir();
  const result = spawnSync(process.execPath, [bin, 'gap', 'open', id, '--severity', severity, '--dir', dir], {
    env: { PATH: process.env.PATH, HOME: home, XDG_CACHE_HOME: join(home, 'cache'), ...env },
    cwd: home,
    encoding: 'utf8',
  });
  return { code: result.status, signal: result.signal, stdout: result.stdout, stderr: result.stderr, home };
}

const cacheFiles = (folder: string) => (existsSync(folder) ? readdirSync(folder).filter((name) => CACHE_FILE.test(name)) : []);
const digestOf = (data: Buffer) => createHash('sha256').update(data).digest();

/** The one cache file in `folder`, checked whole: its digest agrees with what follows it. */
function theCache(folder: string): { path: string; bytes: Buffer } {
  const files = cacheFiles(folder);
  expect(files).toHaveLength(1);
  const path = join(folder, files[0]!);
  const bytes = readFileSync(path);
  expect(bytes.subarray(0, 32).equals(digestOf(bytes.subarray(32))), 'the digest heads what follows').toBe(true);
  return { path, bytes };
}

/** `bytes` with its V8 payload damaged, its digest made to agree again (what a damaged disk or a careless writer leaves). */
function damaged(bytes: Buffer): Buffer {
  const payload = Buffer.from(bytes.subarray(32));
  for (let i = 1000; i < payload.length; i += 997) payload[i]! ^= 0x5a;
  return Buffer.concat([digestOf(payload), payload]);
}

describe('the write bundle’s code cache', { timeout: 120_000 }, () => {
  it('is kept by a call that exits 0, in a folder only its user may write, and used as it is by the calls after', () => {
    const dir = session();
    const folder = join(tempDir(), 'cache');
    const env = { GAPFLOW_CODE_CACHE: folder };

    const refused = gapOpen(dir, 'G-1', env, 'HUGE');
    expect(refused.code).toBe(1);
    expect(existsSync(folder), 'a refused call makes no cache folder').toBe(false);

    mkdirSync(folder, { mode: 0o700 });
    // Another build's caches: one no call has written for 31 days, one written yesterday (another install in use).
    const [stale, recent] = ['0', '1'].map((digit) => join(folder, `session-commands-${digit.repeat(32)}.v8`));
    for (const [file, daysAgo] of [
      [stale!, 31],
      [recent!, 1],
    ] as const) {
      writeFileSync(file, 'another build’s cache', { mode: 0o600 });
      const then = new Date(Date.now() - daysAgo * 86_400_000);
      utimesSync(file, then, then);
    }
    const first = gapOpen(dir, 'G-1', env);
    expect(first.stdout).toBe('Opened G-1 (LOW) at baseline; open count 1\n');
    expect(existsSync(stale!), 'a cache unused for 31 days is removed').toBe(false);
    expect(existsSync(recent!), 'a cache another install uses is kept').toBe(true);
    rmSync(recent!);
    const { path } = theCache(folder);
    expect(statSync(path).mode & 0o777).toBe(0o600);

    const before = statSync(path);
    const second = gapOpen(dir, 'G-2', env);
    expect(second.stdout).toBe('Opened G-2 (LOW) at baseline; open count 2\n');
    // A cache V8 refused, or one not read, would be written again under a new inode.
    expect(statSync(path).ino).toBe(before.ino);
    expect(statSync(path).mtimeMs).toBe(before.mtimeMs);
  });

  it('costs a damaged file only the compile: the call answers, and the cache is written again', () => {
    const dir = session();
    const folder = join(tempDir(), 'cache');
    const env = { GAPFLOW_CODE_CACHE: folder };
    expect(gapOpen(dir, 'G-1', env).code).toBe(0);
    const { path, bytes } = theCache(folder);

    const flipped = Buffer.from(bytes);
    for (let i = 1000; i < flipped.length; i += 997) flipped[i]! ^= 0x5a;
    const garbage = Buffer.alloc(4096, 7);
    const cases: [string, Buffer][] = [
      ['bytes flipped under the digest', flipped],
      ['cut short', bytes.subarray(0, bytes.length >> 1)],
      ['random bytes under a digest that agrees', Buffer.concat([digestOf(garbage), garbage])],
      ['empty', Buffer.alloc(0)],
    ];
    cases.forEach(([what, content], i) => {
      writeFileSync(path, content);
      const result = gapOpen(dir, `G-${i + 2}`, env);
      expect(result.signal, what).toBe(null);
      expect(result.stdout, what).toBe(`Opened G-${i + 2} (LOW) at baseline; open count ${i + 2}\n`);
      expect(theCache(folder).bytes.equals(content), `${what}: written again`).toBe(false);
    });
  });

  it('is neither read nor written where others may write or through a link, nor when turned off', () => {
    const dir = session();
    // A damaged payload whose digest agrees: were it read, V8 would end the call.
    const seed = join(tempDir(), 'cache');
    expect(gapOpen(dir, 'G-1', { GAPFLOW_CODE_CACHE: seed }).code).toBe(0);
    const planted = damaged(theCache(seed).bytes);

    const open = join(tempDir(), 'open');
    mkdirSync(open);
    chmodSync(open, 0o777);
    writeFileSync(join(open, cacheFiles(seed)[0]!), planted, { mode: 0o600 });
    const shared = gapOpen(dir, 'G-2', { GAPFLOW_CODE_CACHE: open });
    expect(shared.signal).toBe(null);
    expect(shared.stdout).toBe('Opened G-2 (LOW) at baseline; open count 2\n');
    expect(readFileSync(join(open, cacheFiles(seed)[0]!)).equals(planted), 'nothing written there').toBe(true);

    const target = join(tempDir(), 'target');
    mkdirSync(target, { mode: 0o700 });
    const link = join(tempDir(), 'link');
    symlinkSync(target, link);
    expect(gapOpen(dir, 'G-3', { GAPFLOW_CODE_CACHE: link }).code).toBe(0);
    expect(readdirSync(target)).toEqual([]);

    for (const [value, id] of [
      ['off', 'G-4'],
      ['relative/cache', 'G-5'],
    ] as const) {
      const result = gapOpen(dir, id, { GAPFLOW_CODE_CACHE: value });
      expect(result.code, value).toBe(0);
      expect(readdirSync(result.home), `${value}: nothing in the home`).toEqual([]);
    }
  });

  it('is kept per copy of the bundle: compiled code names the file it was compiled from', () => {
    const dir = session();
    const folder = join(tempDir(), 'cache');
    const env = { GAPFLOW_CODE_CACHE: folder };
    expect(gapOpen(dir, 'G-1', env).code).toBe(0);
    const copy = tempDir();
    for (const name of [...readdirSync(DIST).filter((file) => /\.c?js$/.test(file)), 'chunks']) cpSync(join(DIST, name), join(copy, name), { recursive: true });
    // The same bytes elsewhere: were the first copy's cache taken, an error's stack would name the first copy's file.
    expect(gapOpen(dir, 'G-2', env, 'LOW', join(copy, 'gapflow.cjs')).stdout).toBe('Opened G-2 (LOW) at baseline; open count 2\n');
    expect(cacheFiles(folder)).toHaveLength(2);
  });

  it('is kept in the user’s cache folder when none is named', () => {
    const dir = session();
    const result = gapOpen(dir, 'G-1', {});
    expect(result.code).toBe(0);
    const folder = join(result.home, 'cache', 'gapflow', 'code-cache');
    theCache(folder);
    expect(statSync(folder).mode & 0o777).toBe(0o700);
  });
});
