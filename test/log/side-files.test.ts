import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readCurrent } from '../../src/log/index.js';
import {
  CHECKPOINT_FILE,
  CHECKPOINT_LIMIT,
  CLOSED_FILE,
  HEAD_FILE,
  openCheckpointParts,
  readStateCache,
  STATE_FILE,
  formatBytes,
  HOOK_STATE_LIMIT,
  LOCK_FILE_LIMIT,
  LogError,
  mayBeWriting,
  readHookBlocks,
  readSessionConfig,
  readSideFile,
  SESSION_CONFIG_LIMIT,
  withLock,
  writeHookBlocks,
  type InputLimit,
} from '../../src/log/index.js';

/*
 * Every file gapflow reads beside the log goes through one bounded, typed
 * open (withSideFile, src/log/files.ts): a regular file at the path itself, within
 * its limit. A symlink is refused, not followed; a FIFO, a device or a
 * folder is refused without waiting on it or reading it; a file past its
 * limit is refused before it is read. Each refusal is a LogError naming the
 * path, what is there and the limit. The lock, the config and the hook's
 * state refuse; a checkpoint so refused is a cache passed over (null).
 *
 * A reader that waits on a FIFO blocks this whole thread, where no test
 * timeout can reach it; so a child process opens every FIFO under the
 * tests' folder for writing, and closes it, every few milliseconds: a
 * regression then reads an empty file a moment late, and fails on the time
 * it took or on what it did, instead of hanging the run.
 */

const posix = process.platform !== 'win32';
/** A refusal is an open and an fstat; a second is room for a loaded machine. */
const PROMPT_MS = 1_000;

let root: string;
let releaser: ChildProcess | null = null;
let serial = 0;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'gapflow-side-'));
  if (!posix) return;
  const script = `const fs = require('node:fs'), path = require('node:path');
setInterval(() => {
  let names = [];
  try { names = fs.readdirSync(process.argv[1], { recursive: true }); } catch {}
  for (const name of names) {
    const at = path.join(process.argv[1], name);
    try {
      if (fs.lstatSync(at).isFIFO()) fs.closeSync(fs.openSync(at, fs.constants.O_WRONLY | fs.constants.O_NONBLOCK));
    } catch {}
  }
}, 20);`;
  releaser = spawn(process.execPath, ['-e', script, root], { stdio: 'ignore' });
});
afterAll(() => {
  releaser?.kill('SIGKILL');
  rmSync(root, { recursive: true, force: true });
});

/** A fresh folder under the tests' root. */
function folder(): string {
  const dir = join(root, String(serial++));
  mkdirSync(dir);
  return dir;
}

function mkfifo(path: string): void {
  const made = spawnSync('mkfifo', [path]);
  if (made.status !== 0) throw new Error(`mkfifo ${path}: ${made.stderr.toString('utf8')}`);
}

/** A regular file of `bytes` at `path`, sparse: the size is there without the disk or the time. */
function sized(path: string, bytes: number): string {
  writeFileSync(path, '');
  truncateSync(path, bytes);
  return path;
}

/** Runs `call`, expecting a LogError within PROMPT_MS whose one line names every mention. */
function expectRefusal(call: () => unknown, mentions: readonly string[]): void {
  const started = performance.now();
  let thrown: unknown = null;
  try {
    call();
  } catch (error) {
    thrown = error;
  }
  expect(performance.now() - started).toBeLessThan(PROMPT_MS);
  expect(thrown).toBeInstanceOf(LogError);
  const message = (thrown as LogError).message;
  expect(message).not.toContain('\n');
  for (const mention of mentions) expect(message).toContain(mention);
}

const regularOnly = (limit: InputLimit) => `${limit.name} must be a regular file of at most ${formatBytes(limit.maxBytes)}`;
const overLimit = (limit: InputLimit) => `over the ${formatBytes(limit.maxBytes)} limit of ${limit.name}`;

describe.skipIf(!posix)('readSideFile: one bounded, typed read for every file beside the log', () => {
  const limit: InputLimit = { maxBytes: 64, name: 'a test file' };

  it('reads a regular file up to its limit, and gives null when nothing is there', () => {
    const dir = folder();
    writeFileSync(join(dir, 'exact'), 'x'.repeat(64));
    expect(readSideFile(join(dir, 'exact'), limit)).toBe('x'.repeat(64));
    expect(readSideFile(join(dir, 'missing'), limit)).toBeNull();
  });

  it('refuses a file one byte past its limit before reading it, naming the path, its size and the limit', () => {
    const path = join(folder(), 'big');
    writeFileSync(path, 'x'.repeat(65));
    expectRefusal(() => readSideFile(path, limit), [path, '65 bytes', overLimit(limit), 'it was not read']);
  });

  it('refuses a FIFO at once, without waiting for a writer', () => {
    const path = join(folder(), 'fifo');
    mkfifo(path);
    expectRefusal(() => readSideFile(path, limit), [path, 'a FIFO, not a regular file', regularOnly(limit)]);
  });

  it('refuses a symlink, to /dev/zero or to a regular file alike, without following it', () => {
    const dir = folder();
    symlinkSync('/dev/zero', join(dir, 'zero'));
    writeFileSync(join(dir, 'target'), 'fine');
    symlinkSync(join(dir, 'target'), join(dir, 'link'));
    for (const name of ['zero', 'link'])
      expectRefusal(() => readSideFile(join(dir, name), limit), [join(dir, name), 'a symbolic link, which gapflow does not follow', regularOnly(limit)]);
  });

  it('refuses a device and a folder as what they are', () => {
    expectRefusal(() => readSideFile('/dev/zero', limit), ['/dev/zero', 'a character device']);
    const dir = folder();
    expectRefusal(() => readSideFile(dir, limit), [dir, 'a folder']);
  });
});

describe.skipIf(!posix)('the lock', () => {
  /** A log path in a fresh folder and its lock's path. */
  function paths(): { log: string; lock: string } {
    const log = join(folder(), 'events.jsonl');
    return { log, lock: `${log}.lock` };
  }

  it('a FIFO at the lock path is refused within a second, naming it, and the work never runs', () => {
    const { log, lock } = paths();
    mkfifo(lock);
    let ran = false;
    expectRefusal(() => withLock(log, () => (ran = true)), [lock, 'a FIFO', regularOnly(LOCK_FILE_LIMIT)]);
    expect(ran).toBe(false);
    // A reader asking whether a writer is at work gets the same line, not a wait.
    expectRefusal(() => mayBeWriting(lock), [lock, 'a FIFO']);
  });

  it('a symlink at the lock path is refused, not followed, even to a live holder token, and what it names is left alone', () => {
    const { log, lock } = paths();
    const elsewhere = join(folder(), 'token');
    writeFileSync(elsewhere, JSON.stringify({ pid: process.pid, host: hostname(), start: null, boot: null, at: Date.now(), nonce: 'x' }));
    const before = readFileSync(elsewhere);
    symlinkSync(elsewhere, lock);
    expectRefusal(() => withLock(log, () => undefined, { waitForLockMs: 3_000 }), [lock, 'a symbolic link']);
    expect(readFileSync(elsewhere)).toEqual(before);
    const zero = paths();
    symlinkSync('/dev/zero', zero.lock);
    expectRefusal(() => withLock(zero.log, () => undefined), [zero.lock, 'a symbolic link', regularOnly(LOCK_FILE_LIMIT)]);
  });

  it('a lock file past its limit is refused at once, naming it and the limit, and is not broken', () => {
    const { log, lock } = paths();
    writeFileSync(lock, 'x'.repeat(LOCK_FILE_LIMIT.maxBytes + 1));
    expectRefusal(() => withLock(log, () => undefined, { unreadableStaleMs: 10 }), [lock, overLimit(LOCK_FILE_LIMIT)]);
    expect(statSync(lock).size).toBe(LOCK_FILE_LIMIT.maxBytes + 1);
  });

  it('a lock naming pid 0 or below names no process, so it is broken as an unfilled one, not waited on as a live holder', () => {
    for (const pid of [0, -1]) {
      const { log, lock } = paths();
      writeFileSync(lock, JSON.stringify({ pid, host: hostname(), start: null, boot: null, at: Date.now(), nonce: 'x' }));
      let ran = false;
      withLock(log, () => (ran = true), { unreadableStaleMs: 50, waitForLockMs: 2_000 });
      expect(ran).toBe(true);
    }
  });
});

describe.skipIf(!posix)('the session config', () => {
  it('a FIFO, a symlink (to a config that would pass) or a file past its limit is refused, naming it', () => {
    const dir = folder();
    const path = join(dir, 'config.json');
    mkfifo(path);
    expectRefusal(() => readSessionConfig(dir), [path, 'a FIFO', regularOnly(SESSION_CONFIG_LIMIT)]);
    rmSync(path);
    const elsewhere = join(folder(), 'config.json');
    writeFileSync(elsewhere, '{"writeStatus":true}\n');
    symlinkSync(elsewhere, path);
    expectRefusal(() => readSessionConfig(dir), [path, 'a symbolic link']);
    rmSync(path);
    writeFileSync(path, `{"writeStatus":true,"pad":"${'x'.repeat(SESSION_CONFIG_LIMIT.maxBytes)}"}`);
    expectRefusal(() => readSessionConfig(dir), [path, overLimit(SESSION_CONFIG_LIMIT)]);
  });
});

describe.skipIf(!posix)("the hook's state", () => {
  const session = 'agent-session';

  it('a FIFO, a symlink (to a state that would count) or a file past its limit is refused, naming it', () => {
    const dir = folder();
    const path = join(dir, 'hook-state.json');
    mkfifo(path);
    expectRefusal(() => readHookBlocks(dir, session, 'main'), [path, 'a FIFO', regularOnly(HOOK_STATE_LIMIT)]);
    rmSync(path);
    const elsewhere = join(folder(), 'hook-state.json');
    writeFileSync(elsewhere, JSON.stringify({ agentSession: session, blocks: { main: 3 } }));
    symlinkSync(elsewhere, path);
    expectRefusal(() => readHookBlocks(dir, session, 'main'), [path, 'a symbolic link']);
    rmSync(path);
    sized(path, HOOK_STATE_LIMIT.maxBytes + 1);
    expectRefusal(() => readHookBlocks(dir, session, 'main'), [path, overLimit(HOOK_STATE_LIMIT)]);
  });

  it('a regular file that does not parse still counts as zero (a lost count only lets an agent stop sooner)', () => {
    const dir = folder();
    writeFileSync(join(dir, 'hook-state.json'), '{not json');
    expect(readHookBlocks(dir, session, 'main')).toBe(0);
  });

  it('is never written past its limit: the other agents’ counts are dropped first', () => {
    const dir = folder();
    const a = `subagent:${'a'.repeat(HOOK_STATE_LIMIT.maxBytes * 0.6)}`;
    const b = `subagent:${'b'.repeat(HOOK_STATE_LIMIT.maxBytes * 0.6)}`;
    writeHookBlocks(dir, session, a, 2);
    expect(readHookBlocks(dir, session, a)).toBe(2);
    writeHookBlocks(dir, session, b, 3);
    expect(statSync(join(dir, 'hook-state.json')).size).toBeLessThanOrEqual(HOOK_STATE_LIMIT.maxBytes);
    expect(readHookBlocks(dir, session, b)).toBe(3);
    expect(readHookBlocks(dir, session, a)).toBe(0);
  });
});

describe.skipIf(!posix)('the checkpoints: caches passed over, never read', () => {
  const files = [CHECKPOINT_FILE, HEAD_FILE, CLOSED_FILE, STATE_FILE];
  const plants: [string, (path: string) => void][] = [
    ['a FIFO', mkfifo],
    ['a symlink to /dev/zero', (path) => symlinkSync('/dev/zero', path)],
    ['a sparse file past the limit', (path) => sized(path, CHECKPOINT_LIMIT.maxBytes + 1)],
  ];

  it.each(plants)('%s at any checkpoint is no checkpoint, at once', (_what, plant) => {
    const dir = folder();
    const log = join(dir, 'events.jsonl');
    writeFileSync(log, '{"v":2,"seq":1}\n');
    for (const file of files) plant(join(dir, file));
    const started = performance.now();
    for (const file of files) {
      expect(readCurrent(dir, 'view-1', file, log)).toBeNull();
      expect(openCheckpointParts(dir, 'closed-2', file)).toBeNull();
    }
    expect(readStateCache(dir, 'state-1')).toBeNull();
    expect(performance.now() - started).toBeLessThan(PROMPT_MS);
  });
});
