import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { tempDirs } from '../support.js';

/*
 * One way in: `gap open`, plain or with --json, on a warm cache (the head
 * and the closed gaps' index current) or a cold one (no checkpoint beside
 * the log), runs the same code: the files of the tsc output in which a
 * function ran under V8's coverage (a module's body alone does not count:
 * loading a door is not running its folder) are the same for the four
 * calls, and at most 25.
 */

const DIST = fileURLToPath(new URL('../../dist/', import.meta.url));
const MAIN = join(DIST, 'src/cli/main.js');
const LIMIT = 25;
const tempDir = tempDirs('gapflow-one-path-');

/** The project files in which a function other than the module's body ran, for one call of the tsc output's CLI. */
function filesRun(argv: string[]): { files: string[]; code: number | null; stderr: string } {
  const coverage = mkdtempSync(join(tempDir(), 'coverage-'));
  try {
    const run = spawnSync(process.execPath, [MAIN, ...argv], { env: { ...process.env, NODE_V8_COVERAGE: coverage }, encoding: 'utf8' });
    const files = new Set<string>();
    for (const name of readdirSync(coverage)) {
      const { result } = JSON.parse(readFileSync(join(coverage, name), 'utf8')) as {
        result: { url: string; functions: { functionName: string; isBlockCoverage: boolean; ranges: { count: number }[] }[] }[];
      };
      for (const script of result) {
        if (!script.url.startsWith(`file://${DIST}`)) continue;
        // functions[0] is the module's body; any other with a count ran.
        if (script.functions.slice(1).some((fn) => (fn.ranges[0]?.count ?? 0) > 0)) files.add(script.url.slice(`file://${DIST}`.length));
      }
    }
    return { files: [...files].sort(), code: run.status, stderr: run.stderr };
  } finally {
    rmSync(coverage, { recursive: true, force: true });
  }
}

const cli = (argv: string[]) => spawnSync(process.execPath, [MAIN, ...argv], { encoding: 'utf8' });

describe('one gap open', () => {
  it('runs the same files, at most 25, plain or --json, on a warm or a cold cache', { timeout: 120_000 }, () => {
    const dir = tempDir();
    expect(cli(['init', '--dir', dir]).status).toBe(0);
    // A first write leaves the head and the closed gaps' index: the cache is warm.
    expect(cli(['gap', 'open', 'G-0', '--severity', 'LOW', '--dir', dir]).status).toBe(0);
    const cold = () => {
      for (const name of readdirSync(dir)) if (name.startsWith('checkpoint.')) rmSync(join(dir, name));
    };
    const calls = [
      { name: 'plain, warm', argv: ['gap', 'open', 'G-1', '--severity', 'LOW', '--dir', dir], before: () => undefined },
      { name: '--json, warm', argv: ['gap', 'open', 'G-2', '--severity', 'LOW', '--dir', dir, '--json'], before: () => undefined },
      { name: 'plain, cold', argv: ['gap', 'open', 'G-3', '--severity', 'LOW', '--dir', dir], before: cold },
      { name: '--json, cold', argv: ['gap', 'open', 'G-4', '--severity', 'LOW', '--dir', dir, '--json'], before: cold },
    ];
    const seen = calls.map(({ name, argv, before }) => {
      before();
      const run = filesRun(argv);
      expect(run.code, `${name}: ${run.stderr}`).toBe(0);
      return { name, files: run.files };
    });
    for (const { name, files } of seen) {
      expect(files, name).toEqual(seen[0]!.files);
      expect(files.length, `${name}: ${files.join(', ')}`).toBeLessThanOrEqual(LIMIT);
    }
  });
});
