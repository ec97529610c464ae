import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { createFileSession, verifyFileSession } from '../../src/index.js';

/*
 * Sixteen processes append through the CLI at once. Each is a worker
 * (dist/bench/cli-worker.js) that calls the CLI's `run()` 63 times
 * in-process: the CLI's own code path (argument parsing, opening the
 * session, the lock, the append), with real contention between processes,
 * without paying a node start-up per call. Every tenth call is retried with
 * the same --event-id, which must append nothing. Every acknowledged gap
 * must be in the log exactly once, under a seq of its own.
 */

const WORKER = fileURLToPath(new URL('../../dist/bench/cli-worker.js', import.meta.url));
const PROCESSES = 16;
const APPENDS = 63;
/** Calls i = 0, 10, 20, ... are made twice with one --event-id (see bench/cli-worker.ts). */
const RETRIES_PER_WORKER = Math.floor((APPENDS - 1) / 10) + 1;

const root = mkdtempSync(join(tmpdir(), 'gapflow-concurrency-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

interface WorkerReport {
  appended: number;
  retried: number;
  failures: string[];
}

function worker(dir: string, index: number): Promise<WorkerReport> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [WORKER, dir, String(index), String(APPENDS)], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out) as WorkerReport) : reject(new Error(`worker ${index} exited ${code}: ${err.trim()}`))));
  });
}

describe('concurrency: several processes append through the CLI at once', () => {
  it(`${PROCESSES} processes x ${APPENDS} appends: exactly ${PROCESSES * APPENDS} events, contiguous seq, whole lines, verify clean`, async () => {
    const dir = join(root, 'session');
    createFileSession(dir);
    const reports = await Promise.all(Array.from({ length: PROCESSES }, (_, i) => worker(dir, i)));

    const lines = readFileSync(join(dir, 'events.jsonl'), 'utf8').split('\n');
    expect(lines.pop()).toBe('');
    // Interleaved bytes would show as a line that is not one whole JSON event.
    const parsed = lines.map((line) => {
      try {
        return JSON.parse(line) as { seq: number; id: string; type: string; data: { id?: string } };
      } catch {
        return null;
      }
    });
    const interleaved = parsed.filter((event) => event === null).length;
    const opened = parsed.filter((event) => event?.type === 'gap.opened').map((event) => event!.data.id!);
    const verified = verifyFileSession(dir);
    const retried = reports.reduce((sum, r) => sum + r.retried, 0);
    const expected = Array.from({ length: PROCESSES }, (_, w) => Array.from({ length: APPENDS }, (_, i) => `W${w}-${i}`)).flat();
    const inLog = new Set(opened);
    const lost = expected.filter((id) => !inLog.has(id)).length;
    const seqs = parsed.map((event) => event?.seq);
    const eventIds = parsed.map((event) => event?.id);
    const duplicated = {
      seqs: seqs.length - new Set(seqs).size,
      events: eventIds.length - new Set(eventIds).size,
      gaps: opened.length - inLog.size,
    };
    const contiguous = seqs.every((seq, i) => seq === i + 1);
    const duplicates = duplicated.seqs + duplicated.events + duplicated.gaps;
    console.log(
      `concurrency: ${PROCESSES} concurrent writers, lost ${lost}, duplicated ${duplicates} (${duplicated.seqs} seqs, ${duplicated.events} event ids, ${duplicated.gaps} gaps); ${PROCESSES} processes x ${APPENDS} appends through the CLI's run(), ${opened.length} events appended (+1 session.started), seq 1-${seqs.at(-1)} ${contiguous ? 'contiguous' : 'with holes or repeats'}, ${retried} retries with the same --event-id appended nothing, ${interleaved} interleaved lines, verify ${verified.problem === null ? 'clean' : verified.problem}`,
    );

    expect(reports.flatMap((r) => r.failures)).toEqual([]);
    expect(reports.map((r) => r.appended)).toEqual(Array(PROCESSES).fill(APPENDS));
    expect(retried).toBe(PROCESSES * RETRIES_PER_WORKER);
    expect(interleaved).toBe(0);
    expect(lost).toBe(0);
    expect(duplicated).toEqual({ seqs: 0, events: 0, gaps: 0 });
    expect(verified.problem).toBeNull();
    expect(parsed.map((event) => event!.seq)).toEqual(Array.from({ length: PROCESSES * APPENDS + 1 }, (_, i) => i + 1));
    expect([...opened].sort()).toEqual([...expected].sort());
  }, 170_000);
});
