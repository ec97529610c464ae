import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFileSession } from '../../src/index.js';
import { runCli, Sandbox } from './helpers.js';

/*
 * The built bin, spawned with its stdout on a pipe that nobody reads for a
 * second: far more output than a pipe holds (64 KiB on Linux) must all
 * arrive once the reader wakes up, with the command's own exit code.
 */

const bin = fileURLToPath(new URL('../../dist/gapflow.cjs', import.meta.url));
const GAPS = 3_000;
const SLOW_READER_MS = 1_000;
const NAP_MS = 250;
const PIPEFUL = 64 * 1024;

interface Spawned {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: Buffer;
  stderr: string;
}

/** Runs the bin; stdout is first read after `waitMs`, with a `napMs` nap after every 64 KiB (a slow reader), or closed after `takeBytes` (`| head -c N`). */
function gapflow(argv: string[], opts: { cwd: string; stdin?: string; waitMs?: number; napMs?: number; takeBytes?: number }): Promise<Spawned> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...argv], { cwd: opts.cwd, stdio: ['pipe', 'pipe', 'pipe'] });
    const chunks: Buffer[] = [];
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.stdin.on('error', () => undefined);
    child.stdin.end(opts.stdin ?? '');
    child.stdout.pause();
    // A slow reader: it starts late, then naps after its first chunk and after every pipeful (64 KiB) it takes.
    let sinceNap = PIPEFUL;
    const onChunk = (chunk: Buffer) => {
      chunks.push(chunk);
      const got = chunks.reduce((n, c) => n + c.length, 0);
      if (opts.takeBytes !== undefined && got >= opts.takeBytes) return child.stdout.destroy();
      sinceNap += chunk.length;
      if (opts.napMs === undefined || sinceNap < PIPEFUL) return;
      sinceNap = 0;
      child.stdout.pause();
      setTimeout(() => child.stdout.resume(), opts.napMs);
    };
    // Listening from the start: node resumes an unheard child stream once the child exits, dropping what it held.
    child.stdout.on('data', onChunk);
    setTimeout(() => child.stdout.resume(), opts.waitMs ?? 0);
    child.on('error', reject);
    // Both: the child's exit, and the end of what it wrote (read only once the reader wakes up).
    const exited = new Promise<[number | null, NodeJS.Signals | null]>((done) => child.on('exit', (code, signal) => done([code, signal])));
    const drained = new Promise<void>((done) => child.stdout.on('close', () => done()));
    void Promise.all([exited, drained]).then(([[code, signal]]) => resolve({ code, signal, stdout: Buffer.concat(chunks), stderr }));
  });
}

let box: Sandbox;
beforeAll(() => {
  box = new Sandbox();
  const session = createFileSession(box.dir);
  const gaps = Array.from({ length: GAPS }, (_, i) => ({
    body: { type: 'gap.opened' as const, data: { id: `GAP-${i}`, severity: 'LOW' as const, title: `gap number ${i}` } },
  }));
  session.recordAll(gaps);
}, 60_000);
afterAll(() => box.remove());

describe('the bin prints all of its output, however slow the reader', () => {
  it(`state --json on ${GAPS} gaps: every byte reaches a reader that starts after ${SLOW_READER_MS} ms and naps ${NAP_MS} ms after every 64 KiB, and the JSON parses whole`, async () => {
    const inProcess = runCli(['state', '--json', '--dir', box.dir], { cwd: box.root });
    expect(inProcess.code).toBe(0);
    const expected = Buffer.byteLength(inProcess.stdout, 'utf8');
    expect(expected, 'the output must be bigger than a pipe holds, or this test proves nothing').toBeGreaterThan(4 * 65_536);
    const result = await gapflow(['state', '--json', '--dir', box.dir], { cwd: box.root, waitMs: SLOW_READER_MS, napMs: NAP_MS });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout.length).toBe(expected);
    const state = JSON.parse(result.stdout.toString('utf8')) as { gaps: unknown[] };
    expect(state.gaps).toHaveLength(GAPS);
  }, 60_000);

  it('append: every acknowledgement reaches a slow reader, one line per batch line', async () => {
    const fresh = new Sandbox();
    try {
      createFileSession(fresh.dir);
      const lines = 5_000;
      const batch = Array.from({ length: lines }, (_, i) => `${JSON.stringify({ type: 'gap.opened', data: { id: `A-${i}`, severity: 'LOW' } })}\n`).join('');
      const result = await gapflow(['append', '--dir', fresh.dir], { cwd: fresh.root, stdin: batch, waitMs: SLOW_READER_MS, napMs: NAP_MS });
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      const out = result.stdout
        .toString('utf8')
        .split('\n')
        .filter((line) => line !== '');
      expect(out.filter((line) => /^line \d+: seq \d+ gap\.opened A-\d+$/.test(line))).toHaveLength(lines);
      expect(out.at(-1)).toMatch(new RegExp(`^Appended ${lines} events; `));
    } finally {
      fresh.remove();
    }
  }, 60_000);

  it('a reader that stops early (| head -c 10) is a clean exit: code 0, no stack trace', async () => {
    const result = await gapflow(['state', '--json', '--dir', box.dir], { cwd: box.root, takeBytes: 10 });
    expect(result.signal).toBeNull();
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    const whole = runCli(['state', '--json', '--dir', box.dir], { cwd: box.root }).stdout;
    expect(result.stdout.length).toBeGreaterThanOrEqual(10);
    expect(whole.startsWith(result.stdout.subarray(0, 10).toString('utf8'))).toBe(true);
  }, 60_000);
});

/** Runs the bin with its stdout and stderr closed by the reader before it writes a byte; resolves with its exit code. */
function withReaderGone(argv: string[], cwd: string): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...argv], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.destroy();
    child.stderr.destroy();
    child.on('error', reject);
    child.on('exit', (code, signal) => resolve({ code, signal }));
  });
}

describe('a reader gone before the bin writes', () => {
  it('a write still finishes (status.md is rewritten after the announcement) and exits 0', async () => {
    const fresh = new Sandbox();
    try {
      runCli(['init', '--write-status', '--dir', fresh.dir], { cwd: fresh.root });
      const result = await withReaderGone(['gap', 'open', 'GONE-1', '--severity', 'low', '--title', 'nobody reads this', '--dir', fresh.dir], fresh.root);
      expect(result).toEqual({ code: 0, signal: null });
      expect(readFileSync(join(fresh.dir, 'status.md'), 'utf8')).toContain('GONE-1');
    } finally {
      fresh.remove();
    }
  }, 60_000);

  it('a refused call exits with its own code (1), not 0', async () => {
    const result = await withReaderGone(['gap', 'move', 'NO-SUCH-GAP', 'resolved', '--dir', box.dir], box.root);
    expect(result).toEqual({ code: 1, signal: null });
    expect(runCli(['gap', 'move', 'NO-SUCH-GAP', 'resolved', '--dir', box.dir], { cwd: box.root }).code).toBe(1);
  }, 60_000);
});
