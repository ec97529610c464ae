import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createFileSession } from '../../src/index.js';
import { chainLinks, scanBytes } from '../../src/log/index.js';
import { baseline, tempDirs } from '../support.js';

/*
 * A long log's checksum chain is walked on a worker thread (src/log/chain.ts)
 * while `verify` (depth `schema`) parses the lines; a read walks no chain
 * (it checks the sum of the line it ends on), so it starts no worker. The
 * worker runs the built code (a worker cannot load TypeScript); `npm test`
 * builds before it runs.
 */

const WORKER = new URL('../../dist/src/log/chain-worker.js', import.meta.url);
/** Any length is long enough here: a few lines stand for a long log. */
const ALWAYS = { fromBytes: 0, file: WORKER };
const tempDir = tempDirs('gapflow-chain-');

/** A 60-gap session's log, as bytes and lines. */
function sessionLog(): { bytes: Buffer; lines: string[]; dir: string } {
  const dir = tempDir();
  const session = createFileSession(dir);
  baseline(session, 'HIGH', 30);
  session.startRound();
  baseline(session, 'LOW', 30, 'N-LOW');
  session.closeRound();
  const bytes = readFileSync(join(dir, 'events.jsonl'));
  return { bytes, lines: bytes.toString('utf8').split('\n').slice(0, -1), dir };
}

/** A scan as `verify` reads: every line parsed and every sum checked; with `options`, beside a worker. */
const verifyScan = (bytes: Buffer, options: Parameters<typeof scanBytes>[4] = {}) => scanBytes(bytes, undefined, 0, 'schema', options);

const bytesOf = (lines: readonly string[], tail = '\n') => Buffer.from(lines.join('\n') + tail, 'utf8');
/** Line `n` (1-based) with its gap's severity changed, its stored sum left as it was: valid JSON, valid event, wrong sum. */
const edited = (lines: readonly string[], n: number) => lines.map((line, i) => (i === n - 1 ? line.replace('"HIGH"', '"LOW"') : line));

describe('the checksum chain of a long log, walked on a worker thread', () => {
  it('the worker is built where the reader looks for it', () => {
    expect(existsSync(WORKER)).toBe(true);
  });

  it('a read starts no worker, however long the log', () => {
    const { bytes } = sessionLog();
    expect(scanBytes(bytes, undefined, 0, 'sealed', ALWAYS).chainWalked).toBeUndefined();
  });

  it('reads a sound log to the same events and chain end as a walk on one thread, and says the worker walked it', () => {
    const { bytes } = sessionLog();
    const alone = verifyScan(bytes);
    const beside = verifyScan(bytes, ALWAYS);
    expect(alone.chainWalked).toBeUndefined();
    expect(beside.chainWalked).toBe('parallel');
    expect(beside.fault).toBeNull();
    expect(beside.events).toEqual(alone.events);
    expect(beside.end).toEqual(alone.end);
    expect(beside.goodBytes).toBe(bytes.length);
  });

  it('an edited line in the middle is reported exactly as a walk on one thread reports it', () => {
    const { lines } = sessionLog();
    const bytes = bytesOf(edited(lines, 20));
    const alone = verifyScan(bytes);
    const beside = verifyScan(bytes, ALWAYS);
    expect(alone.fault).toMatchObject({ line: 20, reason: expect.stringMatching(/checksum mismatch/) });
    expect(beside).toEqual(alone);
  });

  it('a torn last line is reported exactly as a walk on one thread reports it (torn, so repair may cut it)', () => {
    const { lines } = sessionLog();
    const bytes = bytesOf([...lines.slice(0, -1), lines.at(-1)!.slice(0, 40)], '');
    const beside = verifyScan(bytes, ALWAYS);
    expect(beside.torn).toBe(true);
    expect(beside).toEqual(verifyScan(bytes));
  });

  it('lines whose stored sum is not sixteen hex digits read exactly as on one thread, though the reader took the sums on trust', () => {
    const { lines } = sessionLog();
    // A quote or a backslash in the sum (the line does not parse whole, its content does), or letters past f (it does).
    for (const sum of ['0123456789abc"de', '0123456789abcd\\', 'ghijklmnopqrstuv']) {
      const bytes = bytesOf(lines.map((line, i) => (i === 20 ? `${line.slice(0, -18)}${sum}"}` : line)));
      const beside = verifyScan(bytes, ALWAYS);
      expect(beside.fault?.line).toBe(21);
      expect(beside).toEqual(verifyScan(bytes));
    }
  });

  it('a read, which takes a sum before the last on trust, still reads each line as its whole text parses', () => {
    const { lines } = sessionLog();
    // A quote or a backslash in the sum: the line is not JSON, which a read finds as verify does.
    for (const sum of ['0123456789abc"de', '0123456789abcd\\']) {
      const bytes = bytesOf(lines.map((line, i) => (i === 20 ? `${line.slice(0, -18)}${sum}"}` : line)));
      expect(scanBytes(bytes).fault).toEqual(verifyScan(bytes).fault);
      expect(scanBytes(bytes).fault).toMatchObject({ line: 21, reason: 'not a JSON object' });
    }
    // Letters past f: the line is JSON, only its sum is wrong, which only verify's walk finds.
    const bytes = bytesOf(lines.map((line, i) => (i === 20 ? `${line.slice(0, -18)}ghijklmnopqrstuv"}` : line)));
    expect(scanBytes(bytes).fault).toBeNull();
    expect(scanBytes(bytes).events).toHaveLength(lines.length);
    expect(verifyScan(bytes).fault).toMatchObject({ line: 21, reason: expect.stringMatching(/checksum mismatch/) });
  });

  it('a last line with no newline is the line a read ends on: its sum is checked, and its fault reads as verify gives it', () => {
    const { lines } = sessionLog();
    const bytes = bytesOf([...lines.slice(0, -1), lines.at(-1)!.replace(/"sum":"[0-9a-f]{16}"/, '"sum":"0000000000000000"')], '');
    expect(scanBytes(bytes).fault).toEqual(verifyScan(bytes).fault);
    expect(scanBytes(bytes).fault?.reason).toMatch(/no newline at its end \(checksum mismatch/);
  });

  it('a scan of a tail chains from the point it starts after', () => {
    const { bytes, lines } = sessionLog();
    const head = bytesOf(lines.slice(0, 10));
    const first = verifyScan(head);
    const tail = bytes.subarray(head.length);
    const beside = scanBytes(tail, first.end, head.length, 'schema', ALWAYS);
    expect(beside.chainWalked).toBe('parallel');
    expect(beside.events.map((event) => event.seq)).toEqual(lines.slice(10).map((_, i) => i + 11));
    expect(beside.end).toEqual(verifyScan(bytes).end);
  });

  it('a worker that never answers is given up on: the reader walks the chain itself and reads the same log', () => {
    const { bytes, dir } = sessionLog();
    const silent = join(dir, 'silent-worker.mjs');
    writeFileSync(silent, 'setInterval(() => {}, 1000);\n');
    const started = performance.now();
    const scan = verifyScan(bytes, { ...ALWAYS, file: new URL(`file://${silent}`), quietMs: 200 });
    expect(scan.chainWalked).toBeUndefined();
    expect(scan.events).toEqual(verifyScan(bytes).events);
    // One quiet spell (it never started), not the default five seconds: the wait is bounded by what it was told.
    expect(performance.now() - started).toBeLessThan(4_000);
  });

  it('a worker that throws as it starts is given up on, and its error does not end the process', () => {
    const { bytes, dir } = sessionLog();
    const failing = join(dir, 'failing-worker.mjs');
    writeFileSync(failing, 'throw new Error("this worker fails as it starts");\n');
    const scan = verifyScan(bytes, { ...ALWAYS, file: new URL(`file://${failing}`), quietMs: 200 });
    expect(scan.chainWalked).toBeUndefined();
    expect(scan.events).toEqual(verifyScan(bytes).events);
  });

  it('with a sink, each event goes to it once, in order, and a scan that reads the lines again starts a new sink', () => {
    const { bytes, dir } = sessionLog();
    const seqs = (depth: 'sealed' | 'schema', options: Parameters<typeof scanBytes>[4]) => {
      const sinks: number[][] = [];
      const scan = scanBytes(bytes, undefined, 0, depth, options, () => {
        const seen: number[] = [];
        sinks.push(seen);
        return (event) => seen.push(event.seq);
      });
      return { scan, sinks };
    };
    const all = scanBytes(bytes).events.map((event) => event.seq);
    // On one thread: one sink, every event, none kept in the scan's list.
    const alone = seqs('sealed', {});
    expect(alone.sinks).toEqual([all]);
    expect(alone.scan.events).toEqual([]);
    expect(alone.scan.end).toEqual(scanBytes(bytes).end);
    // Verify's scan beside a worker that vouches for the chain: still one sink.
    expect(seqs('schema', ALWAYS).sinks).toEqual([all]);
    // Beside a worker that fails: the lines are read again, into a second sink that sees them all once.
    const failing = join(dir, 'failing-worker.mjs');
    writeFileSync(failing, 'throw new Error("this worker fails as it starts");\n');
    const again = seqs('schema', { ...ALWAYS, file: new URL(`file://${failing}`), quietMs: 200 });
    expect(again.sinks).toHaveLength(2);
    expect(again.sinks.at(-1)).toEqual(all);
  });

  it('with a sink, an edited line stops the scan there: the sink has seen the lines before it, and the fault is the same', () => {
    const { lines } = sessionLog();
    const bytes = bytesOf(edited(lines, 20));
    const seen: number[] = [];
    const scan = scanBytes(bytes, undefined, 0, 'schema', {}, () => (event) => seen.push(event.seq));
    expect(scan.fault).toEqual(verifyScan(bytes).fault);
    expect(seen).toEqual(Array.from({ length: 19 }, (_, i) => i + 1));
  });
});

describe('chainLinks (the walk the worker runs)', () => {
  const answer = () => new Int32Array(new SharedArrayBuffer(16));

  it('counts the lines of a sound log and finds no mismatch', () => {
    const { bytes, lines } = sessionLog();
    const words = answer();
    chainLinks(bytes, '', words);
    expect([...words]).toEqual([1, expect.any(Number), 0, lines.length]);
  });

  it('names the first line whose stored sum is not the chain’s', () => {
    const { lines } = sessionLog();
    const words = answer();
    chainLinks(bytesOf(edited(lines, 25)), '', words);
    expect(words[2]).toBe(25);
  });

  it('a chain started from the wrong sum breaks on its first line', () => {
    const { bytes } = sessionLog();
    const words = answer();
    chainLinks(bytes, '0000000000000000', words);
    expect(words[2]).toBe(1);
  });
});
