import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

/*
 * examples/loop.py (issue 14's acceptance): a loop in Python drives a whole
 * session with `append` and `next --json` alone (the first batch starts it), reaches a
 * decision point and takes an option through its `event`, then completes.
 * Run with the machine's python3 against the built CLI, as a user runs it.
 */

const root = join(import.meta.dirname, '..', '..');
// `npm test` builds first: this is the `gapflow` a user installs.
const bin = join(root, 'dist', 'gapflow.cjs');

describe('examples/loop.py', () => {
  let work: string;
  beforeEach(() => {
    work = mkdtempSync(join(tmpdir(), 'gapflow-loop-py-'));
  });
  afterEach(() => rmSync(work, { recursive: true, force: true }));

  it('drives a session to COMPLETE (CONVERGED) through append and next --json, taking the recommended option by its event', () => {
    // `gapflow` on the PATH, as after an install: a shim that notes each command it is asked for, then runs the bundled CLI.
    const shims = join(work, 'bin');
    const project = join(work, 'project');
    const calls = join(work, 'calls.txt');
    mkdirSync(shims);
    mkdirSync(project);
    writeFileSync(join(shims, 'gapflow'), `#!/bin/sh\necho "$1" >> "${calls}"\nexec "${process.execPath}" "${bin}" "$@"\n`);
    chmodSync(join(shims, 'gapflow'), 0o755);

    // No skipping: a machine without python3 fails here with ENOENT.
    const python = spawnSync('python3', [join(root, 'examples', 'loop.py')], {
      cwd: project,
      encoding: 'utf8',
      env: { PATH: `${shims}${delimiter}${process.env.PATH ?? ''}`, HOME: work },
      timeout: 60_000,
    });
    expect(python.error, 'python3 must be installed to run examples/loop.py').toBeUndefined();
    expect(python.stderr).toBe('');
    expect(python.status).toBe(0);

    const commands = new Set(readFileSync(calls, 'utf8').trim().split('\n'));
    expect([...commands].sort()).toEqual(['append', 'next']);

    const out = python.stdout;
    // A refused value comes back as JSON the script reads: the field, the value, what it takes.
    expect(out).toMatch(/^refused as expected: stdin line 1: gap\.opened GAP-9: data\.severity: "URGNT" is not one of CRITICAL, HIGH, MEDIUM, LOW/m);
    expect(out).toMatch(/^DIVERGENCE_WARNING: ask_user/m);
    expect(out).toMatch(/^ {2}\* Prioritize CRITICAL: Focuses the next rounds on GAP-4/m);
    expect(out).toMatch(/^taking prioritize_critical: round 1 introduced CRITICAL GAP-4/m);
    expect(out.trimEnd().split('\n').at(-1)).toMatch(/^the session is COMPLETE \(CONVERGED\)/);

    const events = readFileSync(join(project, '.gapflow', 'events.jsonl'), 'utf8')
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; data: Record<string, unknown> });
    // The decision went in through append, as the option's event, and the log keeps the canonical words.
    expect(events.filter((e) => e.type === 'decision.made').map((e) => [e.data.kind, e.data.gaps])).toEqual([['prioritize_critical', ['GAP-4']]]);
    expect(events.filter((e) => e.type === 'gap.opened').map((e) => e.data.severity)).toEqual(['HIGH', 'MEDIUM', 'LOW', 'CRITICAL']);
    expect(events.filter((e) => e.type === 'round.closed').map((e) => e.data.round)).toEqual([1, 2, 3, 4]);
    expect(events.at(-1)).toMatchObject({ type: 'round.closed', data: { outcome: { machine: { state: 'COMPLETE', outcome: 'CONVERGED' } } } });
  }, 60_000);
});
