import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { createFileSession } from '../../src/index.js';

/*
 * The reproduction with real processes of the built CLI: a writer
 * (SLOW) stalls for 12 s inside the lock, just before its write reaches the
 * log; a second writer (FAST) starts meanwhile. Before fenced writes, FAST
 * took SLOW's lock for stale after 10 s, both appended the same seq and both
 * said so. Now FAST either waits its turn (serialised) or gives up after its
 * 15 s wait with one line and nothing written (refused); either way the log
 * verifies and no seq appears twice.
 *
 * The stall comes from outside the library: a preload (`node --import`)
 * that wraps fs.writeSync for the log's descriptor (found through
 * /proc/self/fd, so Linux only, as CI is). Production code cannot reach it.
 * The issue's own `strace` fault injection gives the same result by hand.
 */

const CLI = fileURLToPath(new URL('../../dist/gapflow.cjs', import.meta.url));
const STALL_MS = 12_000;
/** Longer than a writer waits for the lock (15 s), with room for FAST's start-up on a busy machine. */
const LONG_STALL_MS = 20_000;

/** Sleeps before the first write to a descriptor open on a file whose path ends so (the log unless told), after leaving a marker file. */
const STALL_HOOK = `
import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
const marker = process.env.GAPFLOW_TEST_STALL_MARKER;
const ms = Number(process.env.GAPFLOW_TEST_STALL_MS);
const suffix = process.env.GAPFLOW_TEST_STALL_SUFFIX || '/events.jsonl';
const writeSync = fs.writeSync;
const nap = new Int32Array(new SharedArrayBuffer(4));
let stalled = false;
fs.writeSync = function (fd, ...rest) {
  if (!stalled && typeof fd === 'number') {
    let target = '';
    try { target = fs.readlinkSync('/proc/self/fd/' + fd); } catch {}
    if (target.endsWith(suffix)) {
      stalled = true;
      fs.writeFileSync(marker, String(process.pid));
      Atomics.wait(nap, 0, 0, ms);
    }
  }
  return writeSync.call(this, fd, ...rest);
};
syncBuiltinESMExports();
`;

const root = mkdtempSync(join(tmpdir(), 'gapflow-stall-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

interface Exit {
  code: number | null;
  stdout: string;
  stderr: string;
}

function start(command: string, args: string[], env: Record<string, string> = {}): Promise<Exit> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

async function until(what: string, ready: () => boolean, withinMs: number): Promise<void> {
  const deadline = Date.now() + withinMs;
  while (!ready()) {
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const gapOpen = (id: string, dir: string) => ['gap', 'open', id, '--severity', 'LOW', '--dir', dir];

/** What both writers and the log say once both have exited; fails the test on any lost, duplicated or unverifiable write. */
function judge(dir: string, slow: Exit, fast: Exit, how: string, only?: 'refused'): void {
  const lines = readFileSync(join(dir, 'events.jsonl'), 'utf8')
    .split('\n')
    .filter((line) => line !== '');
  const events = lines.map((line) => JSON.parse(line) as { seq: number; data: { id?: string } });
  const seqs = events.map((event) => event.seq);
  const duplicated = seqs.length - new Set(seqs).size;
  const gaps = events.map((event) => event.data.id).filter((id) => id !== undefined);
  const verify = spawnSync(process.execPath, [CLI, 'verify', '--dir', dir], { encoding: 'utf8' });
  const outcome = fast.code === 0 ? 'serialised' : 'refused';
  console.log(
    `stalled writer (${how}): SLOW exit ${slow.code}, FAST exit ${fast.code} (${outcome}), ${events.length} events, ${duplicated} duplicated seq, verify exit ${verify.status}`,
  );

  expect(verify.stdout + verify.stderr).toMatch(/^OK: /);
  expect(verify.status).toBe(0);
  expect(duplicated).toBe(0);
  expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, i) => i + 1));
  // The stalled writer holds a lock nobody may take: it always finishes.
  expect(slow.code).toBe(0);
  if (only === 'refused') expect(fast.code, fast.stderr).toBe(1);
  if (fast.code === 0) {
    expect([...gaps].sort()).toEqual(['FAST', 'SLOW']);
  } else {
    expect(fast.code).toBe(1);
    expect(fast.stdout).toBe('');
    expect(fast.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(fast.stderr).toMatch(/events\.jsonl\.lock is held by process \d+/);
    expect(gaps).toEqual(['SLOW']);
  }
}

/** SLOW, stalled `ms` by the preload hook, then FAST once SLOW is asleep at its write. */
async function stallByPreload(name: string, ms: number, suffix = '/events.jsonl'): Promise<{ dir: string; slow: Exit; fast: Exit }> {
  const dir = join(root, name);
  createFileSession(dir);
  const hook = join(root, 'stall.mjs');
  const marker = join(root, `${name}.stalled`);
  writeFileSync(hook, STALL_HOOK);
  const slowRun = start(process.execPath, ['--import', hook, CLI, ...gapOpen('SLOW', dir)], {
    GAPFLOW_TEST_STALL_MARKER: marker,
    GAPFLOW_TEST_STALL_MS: String(ms),
    GAPFLOW_TEST_STALL_SUFFIX: suffix,
  });
  // The marker says SLOW holds the lock and sleeps just before its write: the hook does delay it.
  await until('SLOW to stall at its write', () => existsSync(marker), 20_000);
  const fast = await start(process.execPath, [CLI, ...gapOpen('FAST', dir)]);
  return { dir, slow: await slowRun, fast };
}

// Concurrent: each case mostly sleeps, and together they take as long as the longest.
describe('a writer stalled inside the lock', { concurrent: true }, () => {
  it('keeps its lock: a second writer waits or refuses, never appends beside it (stall by preload)', async () => {
    const { dir, slow, fast } = await stallByPreload('preload', STALL_MS);
    judge(dir, slow, fast, 'preload');
  }, 60_000);

  it('keeps its lock past the longest wait: the second writer refuses with one line and writes nothing', async () => {
    const { dir, slow, fast } = await stallByPreload('preload-long', LONG_STALL_MS);
    judge(dir, slow, fast, 'preload, longer than the wait', 'refused');
  }, 60_000);

  it('a writer stalled before its token is in its new lock file loses only its turn: both append, one after the other', async () => {
    // 3 s: past the 1 s grace after which a lock file without a readable holder is broken.
    const { dir, slow, fast } = await stallByPreload('preload-unfilled', 3_000, '/events.jsonl.lock');
    judge(dir, slow, fast, 'preload, stalled filling its lock');
    expect(fast.code).toBe(0);
  }, 60_000);
});
