import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { run } from '../../src/cli/index.js';
import { bin, linesOf } from './bin-faults.js';
import { BIN, until } from './children.js';
import { Sandbox, type CliResult } from './helpers.js';

/*
 * A command that exits non-zero writes nothing and rewrites no file: a
 * refused call never touches status.md, not even when another writer's
 * append lands while it runs (docs/cli.md, "status.md after every write").
 * A write that succeeds but cannot rewrite status.md is one line on stderr
 * and exit 0, since its event is recorded.
 */

const LIVE_WRITER = fileURLToPath(new URL('./live-writer.mjs', import.meta.url));
/** The documented line for a write whose status.md could not be rewritten. */
const STATUS_NOT_REWRITTEN = /^gapflow: recorded, but status\.md was not rewritten: /;
/** A batch line `append` refuses: a gap the session has never seen. */
const REFUSED_BATCH = `${JSON.stringify({ type: 'gap.moved', data: { id: 'NOPE', to: 'RESOLVED' } })}\n`;

let box: Sandbox;
beforeEach(() => {
  box = new Sandbox();
  box.ok('init', '--write-status');
  box.ok('gap', 'open', 'GAP-H1', '--severity', 'HIGH');
});
afterEach(() => box.remove());

/** status.md made a folder, so that any rewrite of it fails (EISDIR). */
function statusMadeAFolder(): void {
  rmSync(box.statusPath);
  mkdirSync(box.statusPath);
}

/** The session's gap.opened events, by gap id. */
function openedGaps(): string[] {
  return box
    .logLines()
    .map((line) => JSON.parse(line) as { type: string; data: { id?: string } })
    .filter((event) => event.type === 'gap.opened')
    .map((event) => event.data.id!);
}

/** A refusal as the one thing a call says: exit 1, nothing on stdout, one `gapflow: ` line naming `mention`, and no claim that anything was recorded. */
function expectOnlyTheRefusal(result: CliResult, mention: string): void {
  expect(result.code, result.stderr).toBe(1);
  expect(result.stdout).toBe('');
  const lines = linesOf(result.stderr);
  expect(lines, result.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(/^gapflow: /);
  expect(lines[0]).toContain(mention);
  expect(result.stderr).not.toMatch(/recorded/i);
}

/** A write that succeeded but could not rewrite status.md: exit 0 and that one line. */
function expectRecordedWithoutStatus(result: CliResult): void {
  expect(result.code, result.stderr).toBe(0);
  const lines = linesOf(result.stderr);
  expect(lines, result.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(STATUS_NOT_REWRITTEN);
}

/**
 * `append --file -` run in-process, whose standard input is read only after
 * another process has opened gap W1 in the same session: a call that
 * another writer's append overtakes, every time. Returns the call's result,
 * the other writer's, and what `whenRead` saw right after the other write.
 */
function appendOvertaken<T>(batch: string, whenRead: () => T): { result: CliResult; other: CliResult; seen: T } {
  let stdout = '';
  let stderr = '';
  let other: CliResult | undefined;
  let seen: T | undefined;
  const code = run(['append', '--file', '-', '--dir', box.dir], {
    stdout: (text) => (stdout += text),
    stderr: (text) => (stderr += text),
    env: { XDG_CONFIG_HOME: process.env.XDG_CONFIG_HOME },
    cwd: box.root,
    stdin: () => {
      other = bin(['gap', 'open', 'W1', '--severity', 'LOW', '--dir', box.dir], box.root);
      seen = whenRead();
      return batch;
    },
  });
  expect(other, 'standard input was never read').toBeDefined();
  return { result: { code, stdout, stderr }, other: other!, seen: seen as T };
}

describe('a refused call while another process appends', () => {
  it('with status.md a folder it cannot be renamed over, says only its refusal: exit 1, one line, no "recorded", the log as the other writer left it', {
    timeout: 60_000,
  }, () => {
    statusMadeAFolder();
    const { result, other, seen: logAfterOther } = appendOvertaken(REFUSED_BATCH, () => box.logBytes()!);

    // The other writer's append landed while the refused call ran (and it, a success, said its one line).
    expectRecordedWithoutStatus(other);
    expect(openedGaps()).toEqual(['GAP-H1', 'W1']);

    expectOnlyTheRefusal(result, 'NOPE');
    expect(Buffer.compare(box.logBytes()!, logAfterOther), 'events.jsonl changed').toBe(0);
    expect(statSync(box.statusPath).isDirectory()).toBe(true);
    expect(readdirSync(box.statusPath)).toEqual([]);
    expect(readdirSync(box.dir).filter((name) => name.includes('.tmp'))).toEqual([]);
  });

  it('with a status.md it could rewrite, leaves that file as it was: same bytes, same inode, same mtime', { timeout: 60_000 }, () => {
    const file = () => ({ bytes: readFileSync(box.statusPath, 'utf8'), ino: statSync(box.statusPath).ino, mtimeMs: statSync(box.statusPath).mtimeMs });
    const { result, other, seen } = appendOvertaken(REFUSED_BATCH, () => ({ log: box.logBytes()!, status: file() }));

    expect(other.code, other.stderr).toBe(0);
    expect(other.stderr).toBe('');
    expect(seen.status.bytes).toContain('W1'); // the other writer rewrote status.md itself, before the refusal

    expectOnlyTheRefusal(result, 'NOPE');
    expect(Buffer.compare(box.logBytes()!, seen.log), 'events.jsonl changed').toBe(0);
    expect(file()).toEqual(seen.status);
  });
});

describe('campaign: refused commands beside a live writer', () => {
  const REFUSED_CALLS = 30;

  it(`${REFUSED_CALLS} refused \`gap move NOPE RESOLVED\` while two processes keep opening gaps, status.md a folder: every refusal is exit 1 and one line, never "recorded"; every write is exit 0 and one "recorded, but status.md was not rewritten" line`, {
    timeout: 240_000,
  }, async () => {
    statusMadeAFolder();
    const stop = join(box.root, 'stop');
    const results = (prefix: string) => join(box.root, `writer-${prefix}.jsonl`);
    // Two writers, W1, W2, … and X1, X2, …: appends land often enough that most refused calls have one beside them.
    const exited = ['W', 'X'].map((prefix) => {
      const writer = spawn(process.execPath, [LIVE_WRITER, BIN, box.dir, stop, results(prefix)], {
        stdio: 'ignore',
        env: { ...process.env, GAPFLOW_WRITER_PREFIX: prefix },
      });
      return new Promise((resolve) => writer.on('exit', resolve));
    });
    const refused: { result: CliResult; logGrew: boolean }[] = [];
    try {
      await until("the live writers' first writes", () => existsSync(results('W')) && existsSync(results('X')), 60_000);
      for (let i = 0; i < REFUSED_CALLS; i++) {
        const before = statSync(box.logPath).size;
        const result = bin(['gap', 'move', 'NOPE', 'RESOLVED', '--dir', box.dir], box.root);
        refused.push({ result, logGrew: statSync(box.logPath).size !== before });
      }
    } finally {
      writeFileSync(stop, '');
      await Promise.all(exited);
    }

    for (const { result } of refused) expectOnlyTheRefusal(result, 'NOPE');
    // The campaign means something only if the writer's appends landed while refused calls ran.
    expect(refused.filter((call) => call.logGrew).length).toBeGreaterThan(0);

    const writes = ['W', 'X'].flatMap((prefix) =>
      linesOf(readFileSync(results(prefix), 'utf8')).map((line) => JSON.parse(line) as { gap: string } & CliResult),
    );
    expect(writes.length).toBeGreaterThan(0);
    for (const write of writes) expectRecordedWithoutStatus(write);
    // Every acknowledged write is in the log once; nothing else was added.
    const opened = openedGaps();
    expect(opened[0]).toBe('GAP-H1');
    expect(opened.slice(1).sort()).toEqual(writes.map((write) => write.gap).sort());
    expect(bin(['verify', '--dir', box.dir], box.root).code).toBe(0);
    expect(readdirSync(box.statusPath)).toEqual([]);
  });
});
