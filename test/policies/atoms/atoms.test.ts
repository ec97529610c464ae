import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { agentStopRequest } from '../../../src/core/index.js';
import type { Session } from '../../../src/index.js';
import { renderStatus, renderSummary } from '../../../src/render/index.js';
import { toStateJson } from '../../../src/core/index.js';
import { Sandbox, expectRefused } from '../../cli/helpers.js';
import { newSession } from '../../support.js';

type Step = { pending: number; resolved?: number; stopRequested?: boolean; redirectRequested?: boolean };

function play(steps: Step[], settings: Record<string, unknown> = {}, session: Record<string, unknown> = {}): Session {
  const s = newSession({ policies: ['atoms'], policySettings: { atoms: settings }, ...session });
  for (const step of steps) s.recordMetrics('atoms', { resolved: 0, ...step });
  return s;
}

const atoms = (s: Session) => toStateJson(s.view).policies.find((p) => p.name === 'atoms')!;

describe('atoms policy: progress evaluation', () => {
  it('plays the iteration sequence 5, 4, 4, 3: progress, progress, stall, progress recovered', () => {
    const s = newSession({ policies: ['atoms'] });
    const seen: unknown[] = [];
    for (const pending of [5, 4, 4, 3]) {
      s.recordMetrics('atoms', { pending, resolved: 5 - pending });
      const a = atoms(s);
      seen.push([a.figures.progress, a.figures.stallCount, toStateJson(s.view).state]);
    }
    expect(seen).toEqual([
      ['progress', 0, 'CONVERGING'],
      ['progress', 0, 'CONVERGING'],
      ['stall', 1, 'FLAT'],
      ['progress', 0, 'CONVERGING'],
    ]);
  });

  it('an expansion (more pending than before) counts as a stall', () => {
    const s = play([{ pending: 5 }, { pending: 7 }]);
    expect(atoms(s)).toMatchObject({ verdict: 'flat', reason: 'dag_expanding' });
    expect(atoms(s).figures).toMatchObject({ progress: 'expansion', stallCount: 1 });
    expect(toStateJson(s.view).state).toBe('FLAT');
  });

  it('max_stall_count (default 3) is the stall threshold when atoms runs alone: the third stalled iteration reaches STALLED', () => {
    const s = play([{ pending: 5 }, { pending: 5 }, { pending: 5 }]);
    expect(toStateJson(s.view)).toMatchObject({ state: 'FLAT', flatCount: 2, config: { stallThreshold: 3 } });
    s.recordMetrics('atoms', { pending: 5, resolved: 0 });
    expect(atoms(s)).toMatchObject({ verdict: 'flat', reason: 'max_stall_count' });
    expect(s.view.history.slice(-2).map((h) => `${h.from}->${h.to}`)).toEqual(['FLAT->STALLED', 'STALLED->DIVERGENCE_WARNING']);
  });

  it('an explicit --stall-threshold beats max_stall_count, and with another policy the session default applies', () => {
    expect(toStateJson(play([], { maxStallCount: 5 }, { stallThreshold: 4 }).view).config.stallThreshold).toBe(4);
    expect(toStateJson(play([], { maxStallCount: 5 }).view).config.stallThreshold).toBe(5);
    expect(toStateJson(newSession({ policies: ['atoms', 'quality'] }).view).config.stallThreshold).toBe(2);
  });
});

describe('atoms policy: stop conditions in priority order', () => {
  it('1. redirect_requested: an interrupt, not a stop; the user decides (DIVERGENCE_WARNING), even with stop also requested', () => {
    const s = play([{ pending: 5 }, { pending: 4, redirectRequested: true, stopRequested: true }]);
    expect(atoms(s)).toMatchObject({ verdict: 'diverging', reason: 'redirect_requested' });
    expect(toStateJson(s.view).state).toBe('DIVERGENCE_WARNING');
    expect(agentStopRequest(s.view)?.request).toMatchObject({ kind: 'redirect' });
  });

  it('2. stop_requested: manual stop, COMPLETE with outcome STOPPED, even when the base case holds', () => {
    const s = play([{ pending: 5 }, { pending: 0, stopRequested: true }]);
    expect(atoms(s)).toMatchObject({ verdict: 'stopped', reason: 'stop_requested' });
    expect(toStateJson(s.view)).toMatchObject({ state: 'COMPLETE', outcome: 'STOPPED' });
    expect(agentStopRequest(s.view)?.request).toMatchObject({ kind: 'stop' });
    expect(renderSummary(s.view)).toContain('manual stop requested');
  });

  it('3. base case satisfied (nothing pending, no verify command): completion stop, CONVERGED', () => {
    const s = play([{ pending: 5 }, { pending: 0, resolved: 5 }]);
    expect(atoms(s)).toMatchObject({ verdict: 'converged', reason: 'base_case' });
    expect(toStateJson(s.view)).toMatchObject({ state: 'COMPLETE', outcome: 'CONVERGED' });
    expect(agentStopRequest(s.view)).toBeUndefined();
  });

  it('4. stall_count >= max_stall_count comes before the iteration limit', () => {
    const s = play([{ pending: 5 }, { pending: 5 }, { pending: 5 }], { maxStallCount: 2, maxIterations: 3 });
    expect(atoms(s)).toMatchObject({ verdict: 'flat', reason: 'max_stall_count' });
    expect(toStateJson(s.view).state).toBe('DIVERGENCE_WARNING');
  });

  it('5. iteration >= max_iterations: limit stop, COMPLETE with MAX_ROUNDS', () => {
    const s = play([{ pending: 5 }, { pending: 4 }, { pending: 3 }], { maxIterations: 3 });
    expect(atoms(s)).toMatchObject({ verdict: 'limit', reason: 'max_iterations' });
    expect(toStateJson(s.view)).toMatchObject({ state: 'COMPLETE', outcome: 'MAX_ROUNDS' });
  });

  it('max_iterations defaults to 20', () => {
    const s = play(Array.from({ length: 19 }, (_, i) => ({ pending: 100 - i })));
    expect(toStateJson(s.view).state).toBe('CONVERGING');
    s.recordMetrics('atoms', { pending: 50, resolved: 0 });
    expect(toStateJson(s.view)).toMatchObject({ state: 'COMPLETE', outcome: 'MAX_ROUNDS', round: 20 });
  });
});

describe('atoms policy in status.md', () => {
  it('has a section with its figures per round, and escapes the recorded verify command', () => {
    const s = newSession({ policies: ['atoms'] });
    s.recordMetrics('atoms', { pending: 4, resolved: 1 });
    s.recordMetrics('atoms', { pending: 4, resolved: 1, verify: { command: 'test | <b>x</b>', exitCode: 0, durationMs: 12 } });
    const status = renderStatus(s.view);
    expect(status).toContain('### Policy: atoms');
    expect(status).toContain('| Round | Pending | Resolved | Progress | Stall Count | Base Case | Verdict | Reason |');
    expect(status).toContain('| 1 | 4 | 1 | progress | 0 | no | progress | first_iteration |');
    expect(status).toContain('| 2 | 4 | 1 | stall | 1 | yes | converged | base_case |');
    expect(status).not.toContain('<b>');
    expect(status).toContain('test \\| &lt;b&gt;x&lt;/b&gt;');
  });
});

describe('atoms policy through the CLI: --verify runs once, at the edge', () => {
  let box: Sandbox;
  afterEach(() => box.remove());

  it('records the exit code and duration; a passing command is the base case; replay never runs it again', () => {
    box = new Sandbox();
    box.ok('init', '--policy', 'atoms');
    box.ok('record', 'atoms', '--pending', '3', '--resolved', '1', '--verify', 'echo x >> ran.txt; exit 3');
    const failed = JSON.parse(box.logLines().find((l) => l.includes('metrics.recorded'))!);
    expect(failed.data.metrics.verify).toMatchObject({ command: 'echo x >> ran.txt; exit 3', exitCode: 3, timedOut: false });
    expect(typeof failed.data.metrics.verify.durationMs).toBe('number');
    expect(box.stateJson().state).toBe('CONVERGING');
    box.ok('record', 'atoms', '--pending', '2', '--resolved', '2', '--verify', 'echo x >> ran.txt; exit 0');
    expect(box.stateJson()).toMatchObject({ state: 'COMPLETE', outcome: 'CONVERGED' });
    const runs = () => readFileSync(join(box.root, 'ran.txt'), 'utf8').split('\n').filter(Boolean).length;
    expect(runs()).toBe(2);
    box.ok('replay');
    box.ok('check', '--verbose');
    expect(runs()).toBe(2);
  });

  it('a command that outlives --verify-timeout is killed and recorded as timed out, not as the base case', () => {
    box = new Sandbox();
    box.ok('init', '--policy', 'atoms');
    box.ok('record', 'atoms', '--pending', '0', '--resolved', '4', '--verify', 'sleep 5', '--verify-timeout', '0.3');
    const line = JSON.parse(box.logLines().find((l) => l.includes('metrics.recorded'))!);
    expect(line.data.metrics.verify).toMatchObject({ exitCode: null, timedOut: true });
    expect(box.stateJson().policies[0]).toMatchObject({ verdict: 'progress', figures: { baseCase: false } });
  });

  it('does not run the command when the record would be refused', () => {
    box = new Sandbox();
    box.ok('init', '--policy', 'atoms');
    box.ok('record', 'atoms', '--pending', '3', '--resolved', '0');
    box.ok('decide', 'pause');
    expectRefused(box, ['record', 'atoms', '--pending', '2', '--resolved', '1', '--verify', 'touch ran.txt'], ['PAUSED']);
    expect(existsSync(join(box.root, 'ran.txt'))).toBe(false);
  });

  it('flags: --stop-requested and --redirect-requested; --verify only for atoms', () => {
    box = new Sandbox();
    box.ok('init', '--policy', 'atoms,quality', '--atoms-max-stall-count', '4');
    expectRefused(box, ['record', 'quality', '--score', '80', '--verify', 'true'], ['--verify'], 2);
    box.ok('record', 'atoms', '--pending', '3', '--resolved', '0', '--stop-requested');
    expect(box.stateJson().policies.find((p) => p.name === 'atoms')).toMatchObject({ verdict: 'stopped', reason: 'stop_requested' });
  });
});
