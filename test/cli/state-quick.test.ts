import { statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { runBin, TABLE, type CliIO } from '../../src/cli/index.js';
import { createFileSession } from '../../src/index.js';
import { CHECKPOINT_MIN_TAIL_BYTES } from '../../src/log/index.js';
import { tempDirs } from '../support.js';

/*
 * The bin answers `state --json` from its stored output before it loads
 * the command (src/cli/table.ts, src/cli/state-cache.ts): the command, and the
 * session it opens, are loaded only when the stored output is not current.
 */

const calls = vi.hoisted(() => ({ state: 0 }));
vi.mock('../../src/cli/read-commands.js', async (importOriginal) => {
  const real = await importOriginal<Record<string, unknown>>();
  const state = real.state as (argv: string[], io: CliIO) => void;
  return {
    ...real,
    state: (argv: string[], io: CliIO) => {
      calls.state += 1;
      state(argv, io);
    },
  };
});

const tempDir = tempDirs('gapflow-state-quick-');

async function stateJson(dir: string): Promise<string> {
  let stdout = '';
  const io: Omit<CliIO, 'stdin'> = {
    stdout: (text) => void (stdout += text),
    stdoutBytes: (bytes) => void (stdout += Buffer.from(bytes).toString('utf8')),
    stderr: (text) => void (stdout += `stderr: ${text}`),
    env: {},
    cwd: dir,
  };
  expect(await runBin(['state', '--json', '--dir', dir], io, () => Promise.resolve(), TABLE)).toBe(0);
  return stdout;
}

describe('the bin and the stored state --json', { timeout: 60_000 }, () => {
  it('loads the command only when the stored output is missing or stale', async () => {
    const dir = tempDir();
    const session = createFileSession(dir, { maxRounds: 10_000 });
    for (let i = 0; i < 400; i++) session.openGap(`G-${i}`, 'LOW', { title: `gap number ${i}` });
    expect(statSync(join(dir, 'events.jsonl')).size).toBeGreaterThan(CHECKPOINT_MIN_TAIL_BYTES);
    const first = await stateJson(dir);
    expect(calls.state).toBe(1);
    expect(await stateJson(dir)).toBe(first);
    expect(calls.state).toBe(1);
    session.openGap('G-LAST', 'HIGH');
    const after = await stateJson(dir);
    expect(after).toContain('G-LAST');
    expect(calls.state).toBe(2);
    expect(await stateJson(dir)).toBe(after);
    expect(calls.state).toBe(2);
  });
});
