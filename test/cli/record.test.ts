import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { writePolicyReports } from '../../src/cli/index.js';
import { openFileSession } from '../../src/index.js';
import { Sandbox, expectRefused } from './helpers.js';

let box: Sandbox;
afterEach(() => box.remove());

/** Blocks this thread (the CLI runs in-process and synchronously, so nothing else needs to run meanwhile). */
const pause = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

const verifyOf = (b: Sandbox) =>
  b
    .logLines()
    .map((l) => JSON.parse(l) as { type: string; data: { metrics?: { verify?: Record<string, unknown> } } })
    .filter((e) => e.type === 'metrics.recorded')
    .map((e) => e.data.metrics?.verify);

describe('record atoms --verify: the timeout kills the whole process group', () => {
  it('a grandchild that would touch a file after the timeout is killed with the command', { timeout: 30_000 }, () => {
    box = new Sandbox();
    box.ok('init', '--policy', 'atoms');
    // The inner shell is a grandchild: killing only the outer shell would leave it to touch `late`.
    // The grandchild waits 3 s, well past the 0.3 s timeout even on a loaded machine, and the test past that.
    box.ok('record', 'atoms', '--pending', '2', '--resolved', '0', '--verify', "sh -c 'sleep 3; touch late' & sleep 30", '--verify-timeout', '0.3');
    expect(verifyOf(box)[0]).toMatchObject({ exitCode: null, timedOut: true });
    pause(3500);
    expect(existsSync(join(box.root, 'late'))).toBe(false);
  });

  it('a command that finishes in time reports its exit code', () => {
    box = new Sandbox();
    box.ok('init', '--policy', 'atoms');
    box.ok('record', 'atoms', '--pending', '2', '--resolved', '0', '--verify', 'exit 4');
    expect(verifyOf(box)[0]).toMatchObject({ command: 'exit 4', exitCode: 4, timedOut: false });
  });
});

describe('record atoms --verify runs only a record that will be new', () => {
  it('a retry with the same --event-id does not run the command again, and returns the original', () => {
    box = new Sandbox();
    box.ok('init', '--policy', 'atoms');
    const args = ['record', 'atoms', '--pending', '2', '--resolved', '0', '--verify', 'echo x >> ran.txt', '--event-id', 'atoms-1'];
    box.ok(...args);
    box.ok(...args);
    expect(readFileSync(join(box.root, 'ran.txt'), 'utf8')).toBe('x\n');
    expect(verifyOf(box)).toHaveLength(1);
  });

  it('a wrong --expect-seq is refused before the command runs', () => {
    box = new Sandbox();
    box.ok('init', '--policy', 'atoms');
    expectRefused(box, ['record', 'atoms', '--pending', '2', '--resolved', '0', '--verify', 'touch ran.txt', '--expect-seq', '7'], ['7']);
    expect(existsSync(join(box.root, 'ran.txt'))).toBe(false);
  });
});

describe('record: one clear line naming the flag and the value', () => {
  it.each([
    ['-1', '--pending takes a whole number ≥ 0, not "-1"'],
    ['3.5', '--pending takes a whole number ≥ 0, not "3.5"'],
    ['1e3', '--pending takes a whole number ≥ 0, not "1e3"'],
    ['many', '--pending takes a whole number ≥ 0, not "many"'],
  ])('record atoms --pending %s', (value, message) => {
    box = new Sandbox();
    box.ok('init', '--policy', 'atoms');
    expectRefused(box, ['record', 'atoms', '--pending', value, '--resolved', '0'], [message]);
  });

  it('questions counts and the quality score say the same', () => {
    box = new Sandbox();
    box.ok('init', '--policy', 'questions,quality');
    expectRefused(box, ['record', 'questions', '--open', '2', '--high', '-3', '--medium', '0'], ['--high takes a whole number ≥ 0, not "-3"']);
    expectRefused(box, ['record', 'quality', '--score', 'good'], ['--score takes a number, not "good"']);
    expectRefused(box, ['record', 'quality', '--score', '-1'], ['metrics.score']);
  });

  it('--verify-timeout -1 is named, not "ambiguous"', () => {
    box = new Sandbox();
    box.ok('init', '--policy', 'atoms');
    expectRefused(
      box,
      ['record', 'atoms', '--pending', '1', '--resolved', '0', '--verify', 'true', '--verify-timeout', '-1'],
      ['--verify-timeout takes a number of seconds above 0, not "-1"'],
    );
  });

  it('init takes decimals as people type them: --forge-threshold .8, --quality-min-score 8.5e1', () => {
    box = new Sandbox();
    box.ok('init', '--policy', 'forge,quality', '--forge-threshold', '.8', '--quality-min-score', '8.5e1');
    const settings = openFileSession(box.dir).view.policies.settings;
    expect(settings.get('forge')).toMatchObject({ threshold: 0.8 });
    expect(settings.get('quality')).toMatchObject({ minScore: 85 });
  });
});

describe('atoms check tree: a redirect is an interrupt, not a stop', () => {
  it('prints DECISION: INTERRUPT (redirect)', () => {
    box = new Sandbox();
    box.ok('init', '--policy', 'atoms');
    box.ok('record', 'atoms', '--pending', '3', '--resolved', '0', '--redirect-requested');
    const out = box.ok('check', '--verbose').stdout;
    expect(out).toContain('└─ DECISION: INTERRUPT (redirect)');
    expect(out).not.toContain('STOP (redirect)');
  });
});

describe('quality reports for events that did not come through `record quality`', () => {
  it('writePolicyReports writes scores.json for each quality metrics.recorded among the events, and nothing for others', () => {
    box = new Sandbox();
    box.ok('init', '--policy', 'quality,atoms');
    const session = openFileSession(box.dir);
    const io = { stdout: () => {}, stderr: () => {}, env: {}, cwd: box.root };
    const first = session.recordMetrics('quality', { score: 80 });
    const other = session.recordMetrics('atoms', { pending: 3, resolved: 0 });
    const second = session.recordMetrics('quality', { score: 86 });
    const written = writePolicyReports(session, io, { dir: box.dir }, [...first.events, ...other.events, ...second.events]);
    expect(written).toHaveLength(2);
    const read = (n: number) => JSON.parse(readFileSync(join(box.dir, 'quality', `v${n}`, 'scores.json'), 'utf8'));
    // R18: 86 >= 85 but |86 - 80| = 6 >= 2, so not converged; the overall score only, no dimensions.
    expect(read(1)).toEqual({ overall: 80, dimensions: {}, iteration: 1, converged: false, meetsMinimum: 80 >= 85 });
    expect(read(2)).toEqual({ overall: 86, dimensions: {}, iteration: 2, converged: Math.abs(86 - 80) < 2, meetsMinimum: 86 >= 85 });
    expect(writePolicyReports(session, io, { dir: box.dir }, other.events)).toEqual([]);
  });
});

describe('decide accept-complexity in a session of metric policies', () => {
  it('does not speak of a baseline of 0 open gaps', () => {
    box = new Sandbox();
    box.ok('init', '--policy', 'quality');
    box.ok('record', 'quality', '--score', '90');
    box.ok('record', 'quality', '--score', '80'); // a drop of more than 5: DIVERGENCE_WARNING
    expect(box.stateJson().state).toBe('DIVERGENCE_WARNING');
    box.ok('decide', 'accept-complexity');
    const reasons = openFileSession(box.dir).view.history.map((h) => h.reason);
    const last = reasons.at(-1)!;
    expect(last).toContain('user accepted complexity');
    expect(last).not.toContain('baseline of 0 open');
  });
});
