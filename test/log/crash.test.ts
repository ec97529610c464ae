import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { createFileSession, LogError, openFileSession, verifyFileSession } from '../../src/index.js';
import { repairLog } from '../../src/log/index.js';

/*
 * Crash trials: a child process (the built library, dist/bench/crash-writer.js)
 * appends events and reports each append that returned; it is killed with
 * SIGKILL at a random moment. Then `verify` (and `repair` where it reports a
 * torn tail) must leave a readable log holding every acknowledged event.
 * Each session folder sees several kills in a row, so the next writer also
 * meets the lock its killed predecessor left behind.
 */

const WRITER = fileURLToPath(new URL('../../dist/bench/crash-writer.js', import.meta.url));
const FOLDERS = 50;
const KILLS_PER_FOLDER = 4;
const PARALLEL = 4;

interface Ack {
  first: number;
  last: number;
  id: string;
}

interface Tally {
  trials: number;
  acknowledged: number;
  lost: number;
  repaired: number;
  staleLocks: number;
  problems: string[];
}

const root = mkdtempSync(join(tmpdir(), 'gapflow-crash-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Runs the writer until a random moment (mostly after its first acknowledged append), then SIGKILLs it. */
function killWriter(dir: string): Promise<Ack[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [WRITER, dir], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    let armed = false;
    const arm = (ms: number) => {
      if (armed) return;
      armed = true;
      setTimeout(() => child.kill('SIGKILL'), ms);
    };
    // One kill in ten may land during start-up or the first append; the rest after an acknowledgment.
    if (Math.random() < 0.1) arm(Math.random() * 400);
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
      if (out.includes('\n')) arm(Math.random() * 60);
    });
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      if (signal !== 'SIGKILL') return reject(new Error(`the writer stopped by itself (${code}): ${err.trim().split('\n')[0]}`));
      const acks = out
        .split('\n')
        .filter((line) => /^\d+ \d+ \S+$/.test(line))
        .map((line) => {
          const [first, last, id] = line.split(' ');
          return { first: Number(first), last: Number(last), id: id! };
        });
      resolve(acks);
    });
  });
}

async function trial(dir: string, acked: Map<number, string>, tally: Tally): Promise<void> {
  const acks = await killWriter(dir);
  tally.trials += 1;
  for (const ack of acks) {
    tally.acknowledged += ack.last - ack.first + 1;
    acked.set(ack.last, ack.id);
    for (let seq = ack.first; seq < ack.last; seq++) acked.set(seq, '');
  }
  if (existsSync(join(dir, 'events.jsonl.lock'))) tally.staleLocks += 1;
  let found = verifyFileSession(dir);
  if (found.problem !== null) {
    if (!found.torn) {
      tally.problems.push(`not repairable: ${found.problem}`);
      return;
    }
    // Until repaired: reading refuses and nothing is appended after the torn tail.
    const before = readFileSync(join(dir, 'events.jsonl'));
    expect(() => openFileSession(dir)).toThrow(LogError);
    expect(readFileSync(join(dir, 'events.jsonl')).equals(before)).toBe(true);
    repairLog(dir);
    tally.repaired += 1;
    found = verifyFileSession(dir);
    if (found.problem !== null) tally.problems.push(`after repair: ${found.problem}`);
  }
  const events = openFileSession(dir).log.read();
  for (const [seq, id] of acked) {
    const event = events[seq - 1];
    if (event === undefined || event.seq !== seq || (id !== '' && event.id !== id)) tally.lost += 1;
  }
}

describe('crash: SIGKILL at a random moment loses no acknowledged event', () => {
  it(`${FOLDERS * KILLS_PER_FOLDER} trials: verify (and repair of a torn tail) leaves every acknowledged event readable`, async () => {
    const tally: Tally = { trials: 0, acknowledged: 0, lost: 0, repaired: 0, staleLocks: 0, problems: [] };
    const folders = Array.from({ length: FOLDERS }, (_, i) => {
      const dir = join(root, `s${i}`);
      createFileSession(dir);
      return dir;
    });
    let next = 0;
    const lane = async () => {
      while (next < folders.length) {
        const dir = folders[next++]!;
        const acked = new Map<number, string>();
        for (let k = 0; k < KILLS_PER_FOLDER; k++) await trial(dir, acked, tally);
      }
    };
    await Promise.all(Array.from({ length: PARALLEL }, lane));
    console.log(
      `crash: ${tally.trials} trials, ${tally.acknowledged} events acknowledged, ${tally.lost} lost, ${tally.repaired} repaired (reads refused until then), ${tally.staleLocks} stale locks left by killed writers`,
    );
    expect(tally.problems).toEqual([]);
    expect(tally.trials).toBe(FOLDERS * KILLS_PER_FOLDER);
    expect(tally.acknowledged).toBeGreaterThan(0);
    expect(tally.lost).toBe(0);
  }, 170_000);
});
