import { spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { createFileSession, verifyFileSession } from '../../src/index.js';

/*
 * A 100,000-line batch through the built bin, under a 256 MB heap: a batch
 * folds on one working copy of the view, so its memory grows with the batch,
 * not with its square (a copy of the gap map per event ran a 20,000-line
 * batch out of a 4 GB heap). Time is not asserted here (bench/ measures
 * speed); the explicit budgets only keep a stuck run from hanging CI.
 */

const BIN = fileURLToPath(new URL('../../dist/gapflow.cjs', import.meta.url));
const LINES = 100_000;
const HEAP_MB = 256;
const BUDGET_MS = 150_000;

const root = mkdtempSync(join(tmpdir(), 'gapflow-large-batch-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function batchFile(name: string, lastLine?: string): string {
  const severities = ['LOW', 'MEDIUM', 'HIGH'];
  const lines: string[] = [];
  for (let i = 0; i < LINES; i++) {
    lines.push(JSON.stringify({ type: 'gap.opened', data: { id: `G-${i}`, severity: severities[i % 3], title: `gap ${i}` } }));
  }
  if (lastLine !== undefined) lines[LINES - 1] = lastLine;
  const path = join(root, name);
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
}

/** `gapflow append --file F --dir D` in a child with a bounded heap; stdout goes to a file, so no pipe limits what it prints. */
function appendBatch(dir: string, file: string): { status: number | null; signal: string | null; stdout: string; stderr: string } {
  const outPath = join(root, `out-${Math.random().toString(36).slice(2)}.txt`);
  const out = openSync(outPath, 'w');
  try {
    const child = spawnSync(process.execPath, [`--max-old-space-size=${HEAP_MB}`, BIN, 'append', '--file', file, '--dir', dir], {
      stdio: ['ignore', out, 'pipe'],
      encoding: 'utf8',
      timeout: BUDGET_MS - 10_000,
    });
    return { status: child.status, signal: child.signal, stdout: readFileSync(outPath, 'utf8'), stderr: child.stderr };
  } finally {
    closeSync(out);
  }
}

describe('a large append batch: whole or not at all, in memory that grows with the batch', () => {
  it(
    `appends ${LINES.toLocaleString('en')} lines in one write under a ${HEAP_MB} MB heap; the log verifies`,
    () => {
      const dir = join(root, 'whole');
      createFileSession(dir);
      const result = appendBatch(dir, batchFile('whole.jsonl'));
      expect(result.signal, result.stderr).toBeNull();
      expect(result.stderr).toBe('');
      expect(result.status).toBe(0);
      const acks = result.stdout.trimEnd().split('\n');
      expect(acks).toHaveLength(LINES + 1);
      expect(acks[LINES - 1]).toBe(`line ${LINES}: seq ${LINES + 1} gap.opened G-${LINES - 1}`);
      expect(acks[LINES]).toBe(`Appended ${LINES} events; CONVERGING, open count ${LINES}`);
      const verified = verifyFileSession(dir);
      expect(verified.problem).toBeNull();
      expect(verified.events.map((e) => e.seq)).toEqual(Array.from({ length: LINES + 1 }, (_, i) => i + 1));
    },
    BUDGET_MS,
  );

  it(
    `refuses the whole batch when its last line is bad, naming line ${LINES.toLocaleString('en')}; nothing is written`,
    () => {
      const dir = join(root, 'refused');
      createFileSession(dir);
      const before = readFileSync(join(dir, 'events.jsonl'));
      const bad = JSON.stringify({ type: 'gap.moved', data: { id: 'NO-SUCH-GAP', to: 'RESOLVED' } });
      const result = appendBatch(dir, batchFile('refused.jsonl', bad));
      expect(result.signal, result.stderr).toBeNull();
      expect(result.status).toBe(1);
      expect(result.stdout).toBe('');
      expect(result.stderr).toMatch(new RegExp(`^gapflow: refused: \\S+ line ${LINES}: gap.moved NO-SUCH-GAP: unknown gap NO-SUCH-GAP\\n$`));
      expect(Buffer.compare(readFileSync(join(dir, 'events.jsonl')), before)).toBe(0);
    },
    BUDGET_MS,
  );
});
