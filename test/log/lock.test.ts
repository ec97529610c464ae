import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createFileSession, FileLog, LogError } from '../../src/index.js';
import { mayBeWriting, withLock } from '../../src/log/index.js';

/*
 * When a lock may be broken, and what a writer that lost its lock does.
 * Waits are shortened through withLock's timing (production keeps 10 s and
 * 15 s); a test about a waiter that must give up gives it a short wait.
 */

const dirs: string[] = [];
const children: ChildProcess[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'gapflow-lock-'));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A log path in a fresh folder, and its lock's path. */
function paths(): { log: string; lock: string } {
  const log = join(tempDir(), 'events.jsonl');
  return { log, lock: `${log}.lock` };
}

/** The lock this very process writes, as JSON: a holder that certainly runs, named by the code under test itself. */
function ownLock(log: string): Record<string, unknown> {
  let text = '';
  withLock(log, () => {
    text = readFileSync(`${log}.lock`, 'utf8');
  });
  return JSON.parse(text) as Record<string, unknown>;
}

/** Runs a writer that must get the lock within `waitForLockMs`; says how long it took. */
function takes(log: string, timing: { staleAfterMs?: number; waitForLockMs: number; unreadableStaleMs?: number }): number {
  const started = performance.now();
  let ran = false;
  withLock(log, () => (ran = true), timing);
  expect(ran).toBe(true);
  return performance.now() - started;
}

describe('on this host, a lock is broken only when its holder is gone', () => {
  it('a lock left by a process that has exited is broken at once', () => {
    const { log, lock } = paths();
    const dead = spawnSync(process.execPath, ['-e', '0']).pid!;
    writeFileSync(lock, JSON.stringify({ ...ownLock(log), pid: dead }));
    expect(takes(log, { waitForLockMs: 2_000 })).toBeLessThan(1_000);
    expect(existsSync(lock)).toBe(false);
  });

  it('a lock naming a running pid that started at another moment (the pid was reused) is broken', () => {
    const { log, lock } = paths();
    const own = ownLock(log);
    expect(own.start, 'this platform records start times').toEqual(expect.any(String));
    writeFileSync(lock, JSON.stringify({ ...own, start: `${own.start as string}1` }));
    expect(takes(log, { waitForLockMs: 2_000 })).toBeLessThan(1_000);
  });

  it('a lock from another boot (a reboot, or a machine of the same name) is judged by its renewals, not by its pid', () => {
    const { log, lock } = paths();
    const own = ownLock(log);
    expect(own.boot, 'this platform records boot ids').toEqual(expect.any(String));
    // Its pid and start time are this running process's own: asked about its pid, it would be kept.
    writeFileSync(lock, JSON.stringify({ ...own, boot: 'another-boot' }));
    expect(() => withLock(log, () => undefined, { staleAfterMs: 600, waitForLockMs: 200 })).toThrow(/is held by process \d+/);
    expect(takes(log, { staleAfterMs: 600, waitForLockMs: 5_000 })).toBeGreaterThanOrEqual(600);
  }, 20_000);

  it('a lock whose holder runs is kept however old it is: the waiter gives up with one line and runs nothing', () => {
    const { log, lock } = paths();
    const sleeper = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)'], { stdio: 'ignore' });
    children.push(sleeper);
    const old = Date.now() - 3_600_000;
    const held = JSON.stringify({ pid: sleeper.pid, host: hostname(), at: old, nonce: 'held' });
    writeFileSync(lock, held);
    const ancient = new Date(old);
    utimesSync(lock, ancient, ancient);
    let ran = false;
    // Every staleness limit far below the lock's age: age must not count on this host.
    const wait = () => withLock(log, () => (ran = true), { staleAfterMs: 10, unreadableStaleMs: 10, waitForLockMs: 400 });
    expect(wait).toThrow(LogError);
    expect(wait).toThrow(new RegExp(`is held by process ${sleeper.pid} on .*; nothing was written \\(no write waits longer than 0.4 s\\)`));
    expect(ran).toBe(false);
    expect(readFileSync(lock, 'utf8')).toBe(held);
  }, 20_000);

  it('a lock file without a readable holder is broken once seen unchanged for the grace, not before', () => {
    const { log, lock } = paths();
    writeFileSync(lock, '');
    expect(() => withLock(log, () => undefined, { unreadableStaleMs: 2_000, waitForLockMs: 300 })).toThrow(/is held by another writer/);
    expect(takes(log, { unreadableStaleMs: 300, waitForLockMs: 5_000 })).toBeGreaterThanOrEqual(300);
  }, 20_000);
});

describe('a lock from another host is broken only once it stops renewing', () => {
  it('one that shows no renewal for the window (by the waiter’s clock) is broken then, not before', () => {
    const { log, lock } = paths();
    // A start time in the future by this host's clock: only what the waiter sees change may count.
    writeFileSync(lock, JSON.stringify({ pid: process.pid, host: 'elsewhere', at: Date.now() + 3_600_000, nonce: 'x' }));
    expect(() => withLock(log, () => undefined, { staleAfterMs: 600, waitForLockMs: 200 })).toThrow(/is held by process \d+ on elsewhere/);
    const took = takes(log, { staleAfterMs: 600, waitForLockMs: 5_000 });
    expect(took).toBeGreaterThanOrEqual(600);
    expect(took).toBeLessThan(4_000);
  }, 20_000);

  it('one whose holder keeps renewing it is kept', async () => {
    const { log, lock } = paths();
    writeFileSync(lock, JSON.stringify({ pid: 1, host: 'elsewhere', at: 0, nonce: 'x' }));
    utimesSync(lock, 1, 1);
    // The remote holder, played by a child: it moves the lock's mtime on every 50 ms, as confirm() does.
    const renewer = spawn(process.execPath, ['-e', `let t = 1; setInterval(() => require('fs').utimesSync(${JSON.stringify(lock)}, ++t, t), 50)`], {
      stdio: 'ignore',
    });
    children.push(renewer);
    const deadline = Date.now() + 10_000;
    while (statSync(lock).mtimeMs === 1000 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(statSync(lock).mtimeMs, 'the renewer has started').not.toBe(1000);
    expect(() => withLock(log, () => undefined, { staleAfterMs: 1_000, waitForLockMs: 2_500 })).toThrow(/is held by process 1 on elsewhere/);
    expect(existsSync(lock)).toBe(true);
  }, 20_000);

  it('confirming a lease renews the lock where a waiter on another host sees it', () => {
    const { log, lock } = paths();
    withLock(log, (lease) => {
      const before = statSync(lock).mtimeMs;
      lease.confirm();
      const once = statSync(lock).mtimeMs;
      lease.confirm();
      expect(once).toBeGreaterThan(before);
      expect(statSync(lock).mtimeMs).toBeGreaterThan(once);
    });
  });
});

describe('a writer appends only while the lock is its own', () => {
  function logAtSeq(): { dir: string; path: string; log: FileLog; next: ReturnType<FileLog['read']>[number] } {
    const dir = tempDir();
    createFileSession(dir);
    const log = new FileLog(dir);
    const [started] = log.read();
    return {
      dir,
      path: join(dir, 'events.jsonl'),
      log,
      next: { ...started!, seq: 2, id: 'next', type: 'gap.opened', data: { id: 'G', severity: 'LOW', title: '', blocking: true } },
    };
  }

  it('whose token was replaced refuses, writes nothing, and leaves the other lock in place', () => {
    const { path, log, next } = logAtSeq();
    const before = readFileSync(path);
    const other = JSON.stringify({ pid: process.pid, host: hostname(), at: Date.now(), nonce: 'another-writer' });
    const write = () =>
      log.transact(1, () => {
        writeFileSync(`${path}.lock`, other);
        return { events: [next], result: undefined };
      });
    expect(write).toThrow(LogError);
    expect(readFileSync(path).equals(before)).toBe(true);
    expect(readFileSync(`${path}.lock`, 'utf8')).toBe(other);
    unlinkSync(`${path}.lock`);
    expect(write).toThrow(/events\.jsonl\.lock is no longer this writer's lock \(another writer took it over\); nothing was written: run it again$/);
    expect(readFileSync(path).equals(before)).toBe(true);
  });

  it('whose lock file was removed refuses and writes nothing', () => {
    const { path, log, next } = logAtSeq();
    const before = readFileSync(path);
    expect(() =>
      log.transact(1, () => {
        unlinkSync(`${path}.lock`);
        return { events: [next], result: undefined };
      }),
    ).toThrow(/no longer this writer's lock.*nothing was written/);
    expect(readFileSync(path).equals(before)).toBe(true);
    expect(existsSync(`${path}.lock`)).toBe(false);
  });

  it('whose lock is intact appends (the fence refuses only a lost lock)', () => {
    const { path, log, next } = logAtSeq();
    log.transact(1, () => ({ events: [next], result: undefined }));
    expect(log.read().map((event) => event.seq)).toEqual([1, 2]);
    expect(existsSync(`${path}.lock`)).toBe(false);
  });
});

describe('the lock file', () => {
  it('is readable and writable by its owner only, whatever the umask', () => {
    const { log, lock } = paths();
    const umask = process.umask(0);
    try {
      withLock(log, () => {
        expect(statSync(lock).mode & 0o777).toBe(0o600);
      });
    } finally {
      process.umask(umask);
    }
  });
});

describe('a reader asks, read only, whether a lock may be a write under way', () => {
  it('no lock, or one left by a process that has exited: no; one this live process holds, or one from another host: yes', () => {
    const { log, lock } = paths();
    const own = ownLock(log);
    expect(mayBeWriting(lock)).toBe(false);
    const dead = spawnSync(process.execPath, ['-e', '0']).pid!;
    writeFileSync(lock, JSON.stringify({ ...own, pid: dead }));
    expect(mayBeWriting(lock)).toBe(false);
    writeFileSync(lock, JSON.stringify(own));
    expect(mayBeWriting(lock)).toBe(true);
    writeFileSync(lock, JSON.stringify({ ...own, pid: dead, host: `not-${hostname()}`, boot: 'another-boot' }));
    expect(mayBeWriting(lock)).toBe(true);
    // Judging changed nothing: the lock is where it was.
    expect(existsSync(lock)).toBe(true);
  });
});
