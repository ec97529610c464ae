import { closeSync, mkdirSync, openSync, readFileSync, statSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFileSession } from '../../src/index.js';
import { BATCH_INPUT, EVENT_INPUT, MAX_LINE_BYTES, MAX_LOG_BYTES } from '../../src/log/index.js';
import { atBaseline, expectOneLineError, expectRefused, runCli, Sandbox } from './helpers.js';
import { gapflow, mkfifo, type Run } from './watched-bin.js';

/*
 * Inputs are read up to a limit and no further: a batch (append) up to
 * BATCH_INPUT, one event's input (record --json, the hook's stdin) up to
 * EVENT_INPUT, the log up to MAX_LOG_BYTES. Only regular files are read
 * from a path: a FIFO, a device or a folder is refused without waiting on
 * it, and a symlink at the log's path is refused, not followed. Each refusal
 * is one line naming the path and the limit, exit 1, nothing written.
 *
 * Whatever might hang or grow without end runs in a child process, watched
 * (watched-bin.ts), so a regression fails these tests instead of taking the
 * machine down.
 */

/** Node itself is ~50 MB; a refusal may hold the batch limit (64 MiB) once, and no more. */
const RSS_BOUND_BYTES = 300 * 1024 * 1024;
const posix = process.platform !== 'win32';

/** The one-line refusal contract for a spawned run, and that it ended on its own. */
function expectRefusedRun(run: Run, mentions: readonly (string | RegExp)[]): void {
  expect(run.killedBecause, `killed: ${run.killedBecause}; stderr: ${run.stderr}`).toBeNull();
  expectOneLineError({ code: run.code ?? -1, stdout: run.stdout, stderr: run.stderr }, 1, mentions);
}

const MiB = (bytes: number) => `${bytes / (1024 * 1024)} MiB`;

/** A JSONL batch of gap.opened lines, at least `bytes` long (each title pads its line). */
function batchOf(bytes: number): string {
  const line = (i: number) => `${JSON.stringify({ type: 'gap.opened', data: { id: `B-${i}`, severity: 'LOW', title: 'x'.repeat(200) } })}\n`;
  const lines: string[] = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    lines.push(line(i));
    size += lines.at(-1)!.length;
  }
  return lines.join('');
}

let box: Sandbox;
beforeEach(() => {
  box = new Sandbox();
});
afterEach(() => box.remove());

describe('the limits are tied to the log', () => {
  it("one event's input is at most one line; a batch at most the log, and it holds a 100,000-line batch", () => {
    expect(EVENT_INPUT.maxBytes).toBe(MAX_LINE_BYTES);
    expect(BATCH_INPUT.maxBytes).toBeLessThanOrEqual(MAX_LOG_BYTES);
    // 100,000 gap.opened lines of the size an agent writes (~300 bytes).
    expect(BATCH_INPUT.maxBytes).toBeGreaterThan(100_000 * 300);
  });
});

describe.skipIf(!posix)('bounded input through the bin', () => {
  it('append --file /dev/zero is refused at once, as a device, without reading it', async () => {
    atBaseline(box);
    const before = box.logBytes();
    const run = await gapflow(['append', '--file', '/dev/zero', '--dir', box.dir], box.root);
    expectRefusedRun(run, ['/dev/zero', 'character device', 'not a regular file']);
    expect(run.maxRssBytes).not.toBeNull();
    expect(run.maxRssBytes!).toBeLessThan(RSS_BOUND_BYTES);
    expect(box.logBytes()).toEqual(before);
  }, 60_000);

  it('an endless standard input (append < /dev/zero) is refused past the batch limit, with bounded memory', async () => {
    atBaseline(box);
    const before = box.logBytes();
    const zero = openSync('/dev/zero', 'r');
    try {
      const run = await gapflow(['append', '--dir', box.dir], box.root, zero);
      expectRefusedRun(run, ['standard input', `${MiB(BATCH_INPUT.maxBytes)} limit`]);
      expect(run.maxRssBytes).not.toBeNull();
      expect(run.maxRssBytes!, `peak RSS ${run.maxRssBytes}`).toBeLessThan(RSS_BOUND_BYTES);
    } finally {
      closeSync(zero);
    }
    expect(box.logBytes()).toEqual(before);
  }, 60_000);

  it('a FIFO at --file is refused without waiting for a writer', async () => {
    atBaseline(box);
    const before = box.logBytes();
    mkfifo(join(box.root, 'batch.fifo'));
    const run = await gapflow(['append', '--file', 'batch.fifo', '--dir', box.dir], box.root);
    expectRefusedRun(run, ['batch.fifo', 'a FIFO', 'not a regular file']);
    expect(box.logBytes()).toEqual(before);
  }, 60_000);

  it('a FIFO at record --json FILE is refused without waiting for a writer', async () => {
    atBaseline(box);
    mkfifo(join(box.root, 'metrics.fifo'));
    const run = await gapflow(['record', 'quality', '--json', 'metrics.fifo', '--dir', box.dir], box.root);
    expectRefusedRun(run, ['metrics.fifo', 'a FIFO']);
  }, 60_000);

  it.each([
    ['a reader', ['state']],
    ['a writer', ['gap', 'open', 'GAP-X', '--severity', 'LOW']],
  ])(
    'a FIFO at the log path is refused by %s without waiting for a writer',
    async (_who, argv) => {
      mkdirSync(box.dir, { recursive: true });
      mkfifo(box.logPath);
      const run = await gapflow([...argv, '--dir', box.dir], box.root);
      expectRefusedRun(run, [box.logPath, 'a FIFO', 'not a regular file']);
    },
    60_000,
  );

  it('standard input past the one-event limit (record --json -) is refused, even from a writer that never stops', async () => {
    atBaseline(box);
    const before = box.logBytes();
    // Twice the limit, sent without waiting: the child refuses after reading one byte past the limit.
    const run = await gapflow(['record', 'quality', '--json', '-', '--dir', box.dir], box.root, `{"score":1,"pad":"${'x'.repeat(2 * MAX_LINE_BYTES)}"}`);
    expectRefusedRun(run, ['standard input', `${MiB(MAX_LINE_BYTES)} limit`]);
    expect(box.logBytes()).toEqual(before);
  }, 60_000);

  it('the hook refuses a standard input past the one-event limit and still lets the agent stop', async () => {
    atBaseline(box);
    const before = box.logBytes();
    const run = await gapflow(
      ['hook', 'claude', '--dir', box.dir],
      box.root,
      `{"session_id":"s","hook_event_name":"Stop","pad":"${'x'.repeat(2 * MAX_LINE_BYTES)}"}`,
    );
    expect(run.killedBecause).toBeNull();
    expect(run.code).toBe(0);
    const answer = JSON.parse(run.stdout) as Record<string, string>;
    expect(Object.keys(answer)).toEqual(['systemMessage']);
    expect(answer.systemMessage).toMatch(/^gapflow hook: standard input .*1 MiB limit.*The hook let the agent stop/);
    expect(run.stderr).toMatch(/^gapflow hook: standard input .*1 MiB limit.*letting the agent stop\n$/);
    expect(box.logBytes()).toEqual(before);
  }, 60_000);
});

describe.skipIf(!posix)('the log path holds only a regular file', () => {
  it.each([
    ['a reader', ['state']],
    ['a writer', ['gap', 'open', 'GAP-X', '--severity', 'LOW']],
  ])('a symlink at the log path is refused by %s, not followed', (_who, argv) => {
    const elsewhere = join(box.root, 'elsewhere');
    createFileSession(elsewhere);
    const target = join(elsewhere, 'events.jsonl');
    const before = readFileSync(target);
    mkdirSync(box.dir, { recursive: true });
    symlinkSync(target, box.logPath);
    const result = box.gf(...argv);
    expectOneLineError(result, 1, [box.logPath, 'symbolic link']);
    expect(readFileSync(target)).toEqual(before);
  });

  it('a folder at the log path is refused as one, by a reader and a writer', () => {
    mkdirSync(box.logPath, { recursive: true });
    expectOneLineError(box.gf('state'), 1, [box.logPath, 'a folder, not a regular file']);
    expectOneLineError(box.gf('gap', 'open', 'GAP-X', '--severity', 'LOW'), 1, [box.logPath, 'a folder, not a regular file']);
  });

  it('a log past the log limit is refused before it is read, naming its path and size', () => {
    atBaseline(box);
    // Sparse: the size is there without the disk or the time to write it.
    truncateSync(box.logPath, MAX_LOG_BYTES + 1024 * 1024);
    const size = statSync(box.logPath).size;
    const started = Date.now();
    const reader = box.gf('state');
    const writer = box.gf('gap', 'open', 'GAP-X', '--severity', 'LOW');
    // Reading 257 MiB of zeros and scanning them takes seconds; refusing on the size alone does not.
    expect(Date.now() - started).toBeLessThan(2_000);
    expectOneLineError(reader, 1, [box.logPath, `${size.toLocaleString('en-US')} bytes`, `${MiB(MAX_LOG_BYTES)} limit`]);
    expectOneLineError(writer, 1, [box.logPath, `${MiB(MAX_LOG_BYTES)} limit`]);
    expect(statSync(box.logPath).size).toBe(size);
  }, 30_000);
});

describe('inputs past their limits, in-process', () => {
  it('record --json FILE one byte past the one-event limit is refused, naming the file, its size and the limit', () => {
    atBaseline(box);
    const text = `{"score":1,"pad":"${'x'.repeat(MAX_LINE_BYTES)}"}`;
    writeFileSync(join(box.root, 'metrics.json'), text);
    const size = Buffer.byteLength(text);
    expectRefused(
      box,
      ['record', 'quality', '--json', 'metrics.json'],
      ['metrics.json', `${size.toLocaleString('en-US')} bytes`, `${MiB(MAX_LINE_BYTES)} limit`],
    );
  });

  it('a batch file past the batch limit is refused before its lines are judged', () => {
    atBaseline(box);
    const text = batchOf(BATCH_INPUT.maxBytes + 1);
    writeFileSync(join(box.root, 'big.jsonl'), text);
    expectRefused(box, ['append', '--file', 'big.jsonl'], ['big.jsonl', `${MiB(BATCH_INPUT.maxBytes)} limit`]);
  }, 60_000);

  it('a batch file just under the limit is read whole (its first line is judged)', () => {
    atBaseline(box);
    const text = `{"type":"gap.moved","data":{"id":"GAP-NOPE","to":"RESOLVED"}}\n${' '.repeat(BATCH_INPUT.maxBytes - 200)}\n`;
    writeFileSync(join(box.root, 'padded.jsonl'), text);
    expectRefused(box, ['append', '--file', 'padded.jsonl'], ['padded.jsonl line 1', 'GAP-NOPE']);
  }, 60_000);

  it('text handed over as standard input is held to the same limits', () => {
    atBaseline(box);
    const before = box.logBytes();
    const big = `{"score":1,"pad":"${'x'.repeat(MAX_LINE_BYTES)}"}`;
    const result = runCli(['record', 'quality', '--json', '-', '--dir', box.dir], { cwd: box.root, stdin: big });
    expectOneLineError(result, 1, ['standard input', `${MiB(MAX_LINE_BYTES)} limit`]);
    expect(box.logBytes()).toEqual(before);
  });

  it('append --file - reads the batch from standard input', () => {
    atBaseline(box);
    const result = runCli(['append', '--file', '-', '--dir', box.dir], {
      cwd: box.root,
      stdin: '{"type":"gap.opened","data":{"id":"GAP-S","severity":"LOW"}}\n',
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^line 1: seq \d+ gap\.opened GAP-S$/m);
  });
});
