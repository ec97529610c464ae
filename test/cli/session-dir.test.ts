import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { expectOneLineError, runCli, Sandbox, type CliResult } from './helpers.js';

/*
 * Without --dir or $GAPFLOW_DIR, every command finds its session as git
 * finds a repository: the nearest `.gapflow` holding a log, from the cwd
 * upward. `init` makes one where it is asked to, in the cwd.
 */

const BIN = fileURLToPath(new URL('../../dist/gapflow.cjs', import.meta.url));

let box: Sandbox;
let project: string;
let deep: string;
beforeEach(() => {
  box = new Sandbox();
  project = join(box.root, 'project');
  deep = join(project, 'src', 'parser');
  mkdirSync(deep, { recursive: true });
});
afterEach(() => box.remove());

// Every call here is held under the sandbox (as Claude Code holds a hook under its project), so no `.gapflow`
// in a folder above the test's own temporary folder can answer for it.
const at = (cwd: string, ...argv: string[]): CliResult => runCli(argv, { cwd, env: { CLAUDE_PROJECT_DIR: box.root } });
const ok = (cwd: string, ...argv: string[]): CliResult => {
  const result = at(cwd, ...argv);
  expect(result.stderr, `gapflow ${argv.join(' ')}`).toBe('');
  expect(result.code).toBe(0);
  return result;
};
const logOf = (dir: string) => readFileSync(join(dir, '.gapflow', 'events.jsonl'), 'utf8');

/** A session in `project/.gapflow`: one HIGH gap, round 1 open. */
function projectSession(): void {
  ok(project, 'init');
  ok(project, 'gap', 'open', 'G-1', '--severity', 'HIGH', '--title', 'Parser');
  ok(project, 'round', 'start');
}

describe('every command finds the session from a subfolder, the nearest .gapflow upward', () => {
  it('gapflow state in a subfolder two levels down reads the session above, as it reads it there', () => {
    projectSession();
    for (const argv of [['state'], ['state', '--json'], ['next', '--json'], ['status'], ['prompt']]) {
      expect(at(deep, ...argv), argv.join(' ')).toEqual(at(project, ...argv));
    }
    expect(ok(deep, 'state').stdout).toMatch(/^State: CONVERGING$/m);
  });

  it('a write from a subfolder goes to the session above and makes nothing where it was run', () => {
    projectSession();
    ok(deep, 'gap', 'move', 'G-1', 'RESOLVED');
    ok(join(project, 'src'), 'round', 'close');
    expect(logOf(project)).toContain('"type":"round.closed"');
    expect(JSON.parse(ok(project, 'state', '--json').stdout)).toMatchObject({ state: 'COMPLETE', outcome: 'CONVERGED' });
    expect(existsSync(join(deep, '.gapflow'))).toBe(false);
    expect(existsSync(join(project, 'src', '.gapflow'))).toBe(false);
  });

  it('the bin finds it too, on its quick paths (state --json from its stored output, next from the head)', () => {
    projectSession();
    const bin = (cwd: string, ...argv: string[]) =>
      spawnSync(process.execPath, [BIN, ...argv], { cwd, input: '', encoding: 'utf8', env: { PATH: process.env.PATH ?? '', CLAUDE_PROJECT_DIR: box.root } });
    for (const argv of [['state', '--json'], ['next'], ['gap', 'open', 'G-2', '--severity', 'LOW']]) {
      const result = bin(deep, ...argv);
      expect(result.stderr, argv.join(' ')).toBe('');
      expect(result.status).toBe(0);
    }
    expect(logOf(project)).toContain('"id":"G-2"');
    expect(bin(deep, 'state', '--json').stdout).toBe(ok(project, 'state', '--json').stdout);
  });

  it('the nearest session wins: one in a folder between shadows the one above', () => {
    projectSession();
    const inner = join(project, 'src');
    ok(inner, 'init');
    ok(deep, 'gap', 'open', 'INNER-1', '--severity', 'LOW');
    expect(logOf(inner)).toContain('"id":"INNER-1"');
    expect(logOf(project)).not.toContain('INNER-1');
  });

  it('a .gapflow folder holding no log is passed over', () => {
    projectSession();
    mkdirSync(join(project, 'src', '.gapflow'));
    expect(JSON.parse(ok(deep, 'state', '--json').stdout)).toMatchObject({ roundOpen: true, openGapCount: 1 });
  });

  it('--dir and $GAPFLOW_DIR still name the session, whatever is above', () => {
    projectSession();
    const elsewhere = join(box.root, 'elsewhere');
    ok(deep, 'init', '--dir', elsewhere);
    ok(deep, 'gap', 'open', 'E-1', '--severity', 'LOW', '--dir', elsewhere);
    const viaEnv = runCli(['gap', 'open', 'E-2', '--severity', 'LOW'], { cwd: deep, env: { GAPFLOW_DIR: elsewhere } });
    expect(viaEnv.code, viaEnv.stderr).toBe(0);
    const log = readFileSync(join(elsewhere, 'events.jsonl'), 'utf8');
    expect(log).toContain('"id":"E-1"');
    expect(log).toContain('"id":"E-2"');
    expect(logOf(project)).not.toContain('"id":"E-');
  });

  it('inside $CLAUDE_PROJECT_DIR the search stops at the project root, as the stop hook does', () => {
    projectSession();
    const nested = join(project, 'vendor', 'lib');
    mkdirSync(nested, { recursive: true });
    const result = runCli(['state'], { cwd: nested, env: { CLAUDE_PROJECT_DIR: join(project, 'vendor') } });
    expectOneLineError(result, 1, [`no session in ${join(nested, '.gapflow')}`]);
  });

  it('no session anywhere: the refusal names .gapflow in the cwd, and nothing is made', () => {
    const result = at(deep, 'state');
    expectOneLineError(result, 1, [`no session in ${join(deep, '.gapflow')}`, 'gapflow init']);
    expect(existsSync(join(deep, '.gapflow'))).toBe(false);
  });
});

describe('init makes the session where it is run', () => {
  it('in a subfolder of a session it makes a new one there, leaving the one above as it was', () => {
    projectSession();
    const before = logOf(project);
    ok(deep, 'init');
    expect(existsSync(join(deep, '.gapflow', 'events.jsonl'))).toBe(true);
    expect(logOf(project)).toBe(before);
    // From there down, the new session is the nearest.
    expect(JSON.parse(ok(deep, 'state', '--json').stdout)).toMatchObject({ openGapCount: 0, round: 0 });
  });

  it('where a session already is, it refuses as before', () => {
    projectSession();
    const result = at(project, 'init');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`${join(project, '.gapflow', 'events.jsonl')} already holds a session`);
  });
});
