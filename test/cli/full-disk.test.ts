import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { bin, FAULT_FS, linesOf, type Faults } from './bin-faults.js';
import { BIN, until } from './children.js';
import type { CliResult } from './helpers.js';

/*
 * Writes on a full disk, through the built bin, with `--write-status`: a
 * call that exits 0 recorded its event (the log grew by exactly that event;
 * a status.md it could not rewrite is one line on stderr); a call that exits
 * 1 wrote nothing and rewrote nothing (the log byte for byte as before,
 * status.md untouched) and says so in one line. No other answer. At the end
 * the log verifies and holds exactly the events that were acknowledged.
 *
 * The disk is a small tmpfs filled up where one can be mounted (a
 * container run as root); elsewhere, writes under the session refused with
 * ENOSPC past a byte budget (test/fault-fs.mjs). The injected disk also
 * runs on its own, so both are exercised wherever tmpfs works.
 */

const CALLS = 60;
/** Refused calls beside the live writer. */
const REFUSED_CALLS = 50;
const LIVE_WRITER = fileURLToPath(new URL('./live-writer.mjs', import.meta.url));
const STATUS_NOT_REWRITTEN = /^gapflow: recorded, but status\.md was not rewritten: /;
/** A long title: each gap opened takes some 600 bytes of log and more of status.md, so the disk fills in a few calls. */
const TITLE = Array.from({ length: 60 }, (_, i) => `word${i}`).join(' ');

/** A disk for the session: where it lives, what to do before each call to keep it near full, and how to undo it all. */
interface Disk {
  readonly name: string;
  /** The session folder, on the disk. */
  readonly dir: string;
  /** A folder of the test's own, off the disk. */
  readonly scratch: string;
  /** What the bin's call `i` runs with: the injected faults, if any. */
  faults(i: number): Faults | undefined;
  /** What a live writer's calls run with, in turn; null when the disk itself is full. */
  readonly writerFaults: Faults[] | null;
  /** Fills what is left (after the session is made). */
  fill(): void;
  /** A little room made (a page of a tmpfs), so that some writes get through and fill it again. */
  breathe(): void;
  /** All the room given back. */
  free(): void;
  remove(): void;
}

const made: Disk[] = [];
afterAll(() => {
  for (const disk of made.splice(0)) disk.remove();
});

/** `disk`, removed (unmounted) after all tests. */
function kept(disk: Disk): Disk {
  made.push(disk);
  return disk;
}

/** A 1 MiB tmpfs, or null when none can be mounted here. */
function tmpfsDisk(): Disk | null {
  const root = mkdtempSync(join(tmpdir(), 'gapflow-full-disk-'));
  const mount = join(root, 'disk');
  mkdirSync(mount);
  const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=1m,mode=0755', 'gapflow-test', mount], { encoding: 'utf8' });
  if (mounted.error || mounted.status !== 0) {
    rmSync(root, { recursive: true, force: true });
    return null;
  }
  const fillers: string[] = [];
  return kept({
    name: 'a 1 MiB tmpfs filled up',
    dir: join(mount, 'session'),
    scratch: root,
    faults: () => undefined,
    writerFaults: null,
    fill() {
      const chunk = Buffer.alloc(4096, 1);
      for (;;) {
        const path = join(mount, `fill-${fillers.length}`);
        try {
          writeFileSync(path, chunk);
        } catch (error) {
          rmSync(path, { force: true });
          if ((error as NodeJS.ErrnoException).code === 'ENOSPC') return;
          throw error;
        }
        fillers.push(path);
      }
    },
    breathe() {
      if (fillers.length > 0) rmSync(fillers.pop()!);
    },
    free() {
      for (const path of fillers.splice(0)) rmSync(path);
    },
    remove() {
      const unmounted = spawnSync('umount', [mount], { encoding: 'utf8' });
      if (unmounted.status !== 0) spawnSync('umount', ['-l', mount]);
      rmSync(root, { recursive: true, force: true });
    },
  });
}

/**
 * Bytes each call may write under the session before ENOSPC, in turn: none
 * (not even the lock), part of the lock or of the log line, the line but
 * not all of status.md, and enough.
 */
const BUDGETS: readonly (number | undefined)[] = [0, 60, 300, 700, 1_500, 4_000, undefined];

/** A disk that refuses writes under the session past a budget a call (test/fault-fs.mjs). */
function injectedDisk(): Disk {
  const root = mkdtempSync(join(tmpdir(), 'gapflow-enospc-'));
  const dir = join(root, 'session');
  return kept({
    name: 'writes refused with ENOSPC past a budget a call (injected)',
    dir,
    scratch: root,
    faults: (i) => ({ under: dir, spaceLeft: BUDGETS[i % BUDGETS.length] }),
    writerFaults: BUDGETS.map((spaceLeft) => ({ under: dir, spaceLeft })),
    fill: () => undefined,
    breathe: () => undefined,
    free: () => undefined,
    remove: () => rmSync(root, { recursive: true, force: true }),
  });
}

interface Event {
  seq: number;
  type: string;
  data: { id?: string; to?: string };
}

/** status.md as it is: kind, bytes, inode and mtime; or absent. */
function statusOf(path: string): string {
  if (!existsSync(path)) return 'absent';
  const stat = statSync(path);
  return JSON.stringify({ dir: stat.isDirectory(), ino: stat.ino, mtimeMs: stat.mtimeMs, bytes: stat.isDirectory() ? null : readFileSync(path, 'base64') });
}

/** What is asked of call `i`: a gap opened, an open gap moved, or a move the session refuses (no such gap). */
function callFor(i: number, open: string[]): { argv: string[]; expect: { type: string; id: string } | null } {
  if (i % 4 === 3) return { argv: ['gap', 'move', 'NOPE', 'RESOLVED'], expect: null };
  if (i % 4 === 2 && open.length > 0) {
    const id = open[0]!;
    return { argv: ['gap', 'move', id, 'IN_PROGRESS'], expect: { type: 'gap.moved', id } };
  }
  const id = `F${i}`;
  return { argv: ['gap', 'open', id, '--severity', 'LOW', '--title', TITLE], expect: { type: 'gap.opened', id } };
}

/** A session with status.md rewritten after each write, on `disk`, which is then filled; GAP-H1 and the gaps `titled` open. */
function fullSession(disk: Disk, titled: readonly string[] = []): { log: string; status: string; cwd: string } {
  const cwd = join(disk.dir, '..');
  const gaps = titled.map((id) => ['gap', 'open', id, '--severity', 'HIGH', '--title', TITLE]);
  for (const argv of [['init', '--write-status'], ['gap', 'open', 'GAP-H1', '--severity', 'HIGH'], ...gaps]) {
    const result = bin([...argv, '--dir', disk.dir], cwd);
    expect(result.code, `setup: gapflow ${argv.join(' ')}: ${result.stderr}`).toBe(0);
  }
  disk.fill();
  return { log: join(disk.dir, 'events.jsonl'), status: join(disk.dir, 'status.md'), cwd };
}

function campaign(disk: Disk): void {
  const { log, status, cwd } = fullSession(disk);

  const open: string[] = [];
  const outcomes = { recorded: 0, recordedWithoutStatus: 0, nothingWritten: 0 };
  let acknowledged = readFileSync(log, 'utf8')
    .split('\n')
    .filter((line) => line !== '').length;
  for (let i = 0; i < CALLS; i++) {
    if (i % 8 === 0) disk.breathe();
    const call = callFor(i, open);
    const logBefore = readFileSync(log);
    const statusBefore = statusOf(status);
    const result: CliResult = bin([...call.argv, '--dir', disk.dir], cwd, disk.faults(i));
    const said = `call ${i}: gapflow ${call.argv.slice(0, 3).join(' ')} -> exit ${result.code}: ${result.stderr}`;
    const lines = linesOf(result.stderr);
    const logAfter = readFileSync(log);
    if (result.code === 0) {
      expect(call.expect, said).not.toBeNull();
      // Recorded: the log is what it was, and one line more, which is this call's event.
      expect(logAfter.subarray(0, logBefore.length).equals(logBefore), said).toBe(true);
      const added = linesOf(logAfter.subarray(logBefore.length).toString('utf8'));
      expect(added, said).toHaveLength(1);
      const event = JSON.parse(added[0]!) as Event;
      expect({ type: event.type, id: event.data.id }, said).toEqual(call.expect);
      expect(lines.length, said).toBeLessThanOrEqual(1);
      if (lines.length === 1) expect(lines[0], said).toMatch(STATUS_NOT_REWRITTEN);
      acknowledged += 1;
      outcomes[lines.length === 1 ? 'recordedWithoutStatus' : 'recorded'] += 1;
      if (call.expect!.type === 'gap.opened') open.push(call.expect!.id);
      else open.splice(open.indexOf(call.expect!.id), 1);
    } else {
      // Refused, or the disk said no: nothing written, nothing rewritten, one line that claims no record.
      expect(result.code, said).toBe(1);
      expect(lines, said).toHaveLength(1);
      expect(lines[0], said).toMatch(/^gapflow: /);
      expect(lines[0], said).not.toMatch(STATUS_NOT_REWRITTEN);
      expect(logAfter.equals(logBefore), `${said}: events.jsonl changed`).toBe(true);
      expect(statusOf(status), `${said}: status.md changed`).toBe(statusBefore);
      if (call.expect !== null) outcomes.nothingWritten += 1;
    }
  }

  disk.free();
  const verify = bin(['verify', '--dir', disk.dir], cwd);
  expect(verify.code, verify.stdout + verify.stderr).toBe(0);
  expect(
    readFileSync(log, 'utf8')
      .split('\n')
      .filter((line) => line !== ''),
  ).toHaveLength(acknowledged);
  // Neither a half-written status.md nor a log written aside is left behind.
  expect(readdirSync(disk.dir).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  // The campaign is worth its name only if the disk both took writes and refused some.
  expect(outcomes.recorded + outcomes.recordedWithoutStatus, JSON.stringify(outcomes)).toBeGreaterThan(0);
  expect(outcomes.nothingWritten, JSON.stringify(outcomes)).toBeGreaterThan(0);
  expect(outcomes.recordedWithoutStatus, JSON.stringify(outcomes)).toBeGreaterThan(0);
}

describe('writes on a full disk, status.md rewritten after each', () => {
  it(`on a 1 MiB tmpfs filled up (injected ENOSPC where none can be mounted): ${CALLS} calls, each exit 0 with its one event recorded, or exit 1 with one line and nothing written; the log verifies and holds what was acknowledged`, {
    timeout: 300_000,
  }, () => {
    const disk = tmpfsDisk() ?? injectedDisk();
    console.info(`full disk: ${disk.name}`);
    campaign(disk);
  });

  it(`with writes refused with ENOSPC past a budget a call (injected): ${CALLS} calls, the same answers`, { timeout: 300_000 }, () => {
    campaign(injectedDisk());
  });

  it('refused calls beside a live writer on a full disk: every refusal exit 1 and one line, never "recorded"; every write exit 0 (at most its status line) or exit 1 (one line); the log holds exactly the writes acknowledged', {
    timeout: 300_000,
  }, async () => {
    const disk = tmpfsDisk() ?? injectedDisk();
    // A status.md past one page of a tmpfs, and one page free: room for the lock and a line of log, none for
    // the status.md written beside the old one; a page more now and then lets the log go on past its page.
    const { log, cwd } = fullSession(disk, ['GAP-T1', 'GAP-T2', 'GAP-T3']);
    disk.breathe();
    const stop = join(disk.scratch, 'stop');
    const results = join(disk.scratch, 'writer.jsonl');
    const preload = disk.writerFaults === null ? [] : [FAULT_FS];
    const env = { ...process.env, GAPFLOW_WRITER_FAULTS: JSON.stringify(disk.writerFaults ?? []) };
    const writer = spawn(process.execPath, [LIVE_WRITER, BIN, disk.dir, stop, results, ...preload], { stdio: 'ignore', env });
    const exited = new Promise((resolve) => writer.on('exit', resolve));
    const refused: { result: CliResult; logGrew: boolean }[] = [];
    try {
      await until("the live writer's first call", () => existsSync(results), 60_000);
      for (let i = 0; i < REFUSED_CALLS; i++) {
        if (i % 8 === 7) disk.breathe();
        const before = statSync(log).size;
        const result = bin(['gap', 'move', 'NOPE', 'RESOLVED', '--dir', disk.dir], cwd, disk.faults(i));
        refused.push({ result, logGrew: statSync(log).size !== before });
      }
    } finally {
      writeFileSync(stop, '');
      await exited;
    }

    for (const { result } of refused) {
      const said = `exit ${result.code}: ${result.stderr}`;
      expect(result.code, said).toBe(1);
      expect(linesOf(result.stderr), said).toHaveLength(1);
      // The refusal, or the disk's answer when the call could not even take the log's lock to decide.
      expect(result.stderr, said).toMatch(/^gapflow: .*(NOPE|ENOSPC)/);
      expect(result.stderr, said).not.toMatch(/recorded/i);
    }
    const writes = linesOf(readFileSync(results, 'utf8')).map((line) => JSON.parse(line) as { gap: string } & CliResult);
    for (const write of writes) {
      const said = `${write.gap}: exit ${write.code}: ${write.stderr}`;
      expect([0, 1], said).toContain(write.code);
      const lines = linesOf(write.stderr);
      if (write.code === 0) {
        expect(lines.length, said).toBeLessThanOrEqual(1);
        if (lines.length === 1) expect(lines[0], said).toMatch(STATUS_NOT_REWRITTEN);
      } else {
        expect(lines, said).toHaveLength(1);
        expect(lines[0], said).not.toMatch(/recorded/i);
      }
    }
    const acknowledged = writes.filter((write) => write.code === 0).map((write) => write.gap);
    disk.free();
    expect(bin(['verify', '--dir', disk.dir], cwd).code).toBe(0);
    const opened = linesOf(readFileSync(log, 'utf8'))
      .map((line) => JSON.parse(line) as Event)
      .filter((event) => event.type === 'gap.opened')
      .map((event) => event.data.id);
    expect(opened).toEqual(['GAP-H1', 'GAP-T1', 'GAP-T2', 'GAP-T3', ...acknowledged]);
    // Worth its name only if the writer's appends landed while refused calls ran.
    expect(acknowledged.length, JSON.stringify(writes.map((write) => write.code))).toBeGreaterThan(0);
    expect(refused.filter((call) => call.logGrew).length).toBeGreaterThan(0);
  });
});
