import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { parseLines } from '../../src/log/index.js';
import { replay } from '../../src/index.js';
import { toStateJson, type StateJson } from '../../src/core/index.js';
import { Sandbox, expectRefused, resealed } from '../cli/helpers.js';

describe('a mixed session (gaps + quality), end to end through the CLI', () => {
  let box: Sandbox;
  afterEach(() => box.remove());

  function play(): void {
    box.ok('init', '--policy', 'gaps,quality');
    box.steps('gap open G1 --severity HIGH --title Parser', 'gap open G2 --severity MEDIUM --title Retries', 'round start');
    // Round 1: gaps progress (+2), quality's first iteration.
    box.steps('gap move G2 RESOLVED', 'record quality --score 70', 'round close');
    // Round 2: gaps flat (a LOW gap opens: -1), quality rises: progress if any progressed.
    box.steps('gap open G3 --severity LOW', 'record quality --score 80', 'round close');
  }

  it('combines the verdicts each round and drives the one machine, replaying to the same state', () => {
    box = new Sandbox();
    play();
    let s = box.stateJson();
    expect(s.rounds.map((r) => [r.verdicts.map((v) => `${v.policy}:${v.verdict}`), r.verdict?.verdict, r.state])).toEqual([
      [['gaps:progress', 'quality:progress'], 'progress', 'CONVERGING'],
      [['gaps:flat', 'quality:progress'], 'progress', 'CONVERGING'],
    ]);
    expect(s.rounds[1]!.verdict).toMatchObject({ policies: ['quality'] });

    // Round 3: the round cannot close before quality has recorded for it.
    box.ok('round', 'start');
    expectRefused(box, ['round', 'close'], ['round 3 has no quality metrics', 'gapflow record POLICY']);
    // Gaps progress (+1) but quality drops 8 points: diverging if any diverges.
    box.steps('gap move G3 RESOLVED', 'record quality --score 72', 'round close');
    s = box.stateJson();
    expect(s).toMatchObject({ state: 'DIVERGENCE_WARNING' });
    expect(s.rounds[2]).toMatchObject({ verdict: { verdict: 'diverging', reason: 'score_dropped', policies: ['quality'] } });
    expectRefused(box, ['record', 'quality', '--score', '80'], ['DIVERGENCE_WARNING']);
    box.ok('decide', 'accept-complexity');

    // Round 4: no gap moves (flat) while quality still rises: progress, not every policy converged.
    box.steps('round start', 'record quality --score 86', 'round close');
    s = box.stateJson();
    expect(s.rounds[3]!.verdicts.map((v) => v.verdict)).toEqual(['flat', 'progress']);
    expect(s).toMatchObject({ state: 'CONVERGING', openGapCount: 1 });

    // Round 5: metrics start the round (as a gap event would); the last gap closes and both converge: COMPLETE.
    const recorded = box.ok('record', 'quality', '--score', '87').stdout;
    expect(recorded).toContain('Round 5 started.');
    box.steps('gap move G1 RESOLVED', 'round close');
    s = box.stateJson();
    expect(s).toMatchObject({ state: 'COMPLETE', outcome: 'CONVERGED', round: 5 });
    expect(s.policies.map((p) => [p.name, p.verdict, p.reason])).toEqual([
      ['gaps', 'converged', 'nothing_left_open'],
      ['quality', 'converged', 'converged'],
    ]);
    expect(s.policies[1]!.metrics).toEqual({ score: 87 });

    // Replay: the CLI and the library rebuild the same state from the log alone.
    const replayed = JSON.parse(box.ok('replay', '--json').stdout);
    expect(replayed.state).toEqual(s);
    const view = replay(parseLines(readFileSync(box.logPath, 'utf8'), 'log'));
    expect(toStateJson(view)).toEqual(s);

    // status.md: a section for quality with its figures per round, escaped.
    const status = box.ok('status').stdout;
    expect(status).toContain('### Policy: quality');
    expect(status).toMatch(/\| 3 \| 72 \| -8 \| no \| diverging \| score_dropped \|/);
    expect(status).toContain('### Gap Inventory');
    expect(box.ok('check').stdout).toContain('combined (all): converged (gaps, quality)');
  });

  it('with --complete-when any, the first policy to converge completes the session', () => {
    box = new Sandbox();
    box.ok('init', '--policy', 'gaps,quality', '--complete-when', 'any');
    box.steps('gap open G1 --severity HIGH', 'round start', 'record quality --score 90', 'round close');
    box.steps('round start', 'record quality --score 91', 'round close');
    expect(box.stateJson()).toMatchObject({ state: 'COMPLETE', outcome: 'CONVERGED', openGapCount: 1, completeWhen: 'any' });
  });

  /** A sealed hand edit of the first metrics line: the log opens as recorded (R19), and `verify` names the line. */
  function editedMetrics(edit: (line: string) => string): { at: number; before: StateJson } {
    box = new Sandbox();
    play();
    const before = box.stateJson();
    const lines = box.logLines();
    const at = lines.findIndex((l) => l.includes('"metrics.recorded"'));
    lines[at] = edit(lines[at]!);
    box.writeLog(resealed(lines));
    return { at: at + 1, before };
  }

  it('a hand-edited log whose metrics break the policy schema opens as recorded; verify names the line as an audit finding', () => {
    const { at, before } = editedMetrics((line) => line.replace('"score":70', '"score":170'));
    const after = box.stateJson();
    expect(after.state).toBe(before.state);
    expect(after.rounds.map((r) => [r.round, r.state, r.flatCount])).toEqual(before.rounds.map((r) => [r.round, r.state, r.flatCount]));
    const verified = box.ok('verify');
    expect(verified.stdout).toMatch(new RegExp(`line ${at}: metrics.recorded: today's rules refuse it: .*metrics\\.score`));
    const strict = box.gf('verify', '--strict');
    expect(strict.code).toBe(3);
    expect(strict.stdout).toBe(verified.stdout);
    expect(strict.stderr).toBe('');
  });

  it('metrics of a policy the session did not enable open as recorded; verify names them', () => {
    const { at } = editedMetrics((line) => line.replace('"policy":"quality"', '"policy":"atoms"'));
    box.ok('state');
    expect(box.ok('verify').stdout).toMatch(new RegExp(`line ${at}: metrics.recorded: today's rules refuse it: .*atoms is not enabled`));
  });

  it('a gaps-only session shows the gap verdict per round in state --json and no policy section in status.md', () => {
    box = new Sandbox();
    box.ok('init');
    box.steps('gap open G1 --severity HIGH', 'round start', 'round close');
    const s = box.stateJson();
    expect(s.policies).toEqual([
      expect.objectContaining({ name: 'gaps', verdict: 'flat', reason: 'no_weighted_progress', metrics: { openCount: 1, weightedOpen: 4 } }),
    ]);
    // Every round close carries the verdict that drove the machine; with one policy it is that policy's.
    expect(s.rounds[0]!.verdict).toEqual({ verdict: 'flat', reason: 'no_weighted_progress', policies: ['gaps'] });
    expect(box.ok('status').stdout).not.toContain('## Policies');
    expectRefused(box, ['record', 'quality', '--score', '80'], ['quality is not enabled']);
  });
});

describe('the decision prompt and check tree when policies judge the round', () => {
  let box: Sandbox;
  afterEach(() => box.remove());

  it("a policy-only warning names the policy's verdict as the cause and offers no gap options", () => {
    box = new Sandbox();
    box.ok('init', '--policy', 'quality');
    box.steps('record quality --score 80', 'record quality --score 70');
    const prompt = box.ok('prompt').stdout;
    expect(prompt).toContain('quality: diverging (score_dropped): score 80 -> 70 (-10)');
    expect(prompt).toContain('PRIMARY: diverging (quality)');
    expect(prompt).not.toContain('Weighted Net');
    expect(prompt).not.toContain('narrow-scope');
    box.ok('decide', 'accept-complexity');
    expect(box.stateJson()).toMatchObject({ state: 'CONVERGING', flatCount: 0 });
  });

  it("check --verbose draws the gap policy's tree from the last round's figures", () => {
    box = new Sandbox();
    box.ok('init');
    box.steps('gap open A --severity HIGH', 'gap open B --severity LOW', 'round start', 'gap move B RESOLVED', 'gap open C --severity MEDIUM', 'round close');
    const out = box.ok('check', '--verbose').stdout;
    // resolved LOW (1), new MEDIUM (2): weighted net 1 - 2 = -1
    expect(out).toContain('├─ Diverging: NO (weighted_net -1 >= -8)');
    expect(out).toContain('│   └─ Weighted resolved: 1, Weighted new: 2');
    expect(out).toContain('├─ Flat count: 1 (stall at 2)');
    expect(out).toContain('└─ DECISION: CONTINUE');
  });
});
