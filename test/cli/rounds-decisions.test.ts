import { copyFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { expectOneLineError, runCli, Sandbox } from './helpers.js';

/*
 * The CLI for issue 15's round items: `decide extend-rounds N` and the
 * warning before the last round (R24), `round start --kind` (R25),
 * `decide prioritize --gaps` (R26), and decisions.md (R27), written by
 * `status --write` and `init --write-status`, printed by `status --decisions`.
 */

let box: Sandbox;
beforeEach(() => {
  box = new Sandbox();
});
afterEach(() => box.remove());

const decisionsPath = () => join(box.dir, 'decisions.md');

/** Three baseline gaps and a round limit of `max`; stall_threshold 4 so flat rounds never stall here. */
function baseline(max: number, ...flags: string[]): void {
  box.ok('init', '--max-rounds', String(max), '--stall-threshold', '4', ...flags);
  box.steps('gap open F-1 --severity HIGH', 'gap open F-2 --severity MEDIUM', 'gap open U-1 --severity LOW');
}

describe('R24: decide extend-rounds N, and next before the last round', () => {
  it('next warns before the last round and names the extension; extending takes the warning away and the session past it', () => {
    baseline(2);
    box.steps('round start', 'round close');
    const next = box.ok('next');
    expect(next.stdout).toMatch(
      /round 2 is the last: closing it ends the session at max_rounds \(2\) unless the user extends the limit \(decide extend-rounds N\)/,
    );
    const json = JSON.parse(box.ok('next', '--json').stdout) as { lastRound: boolean; maxRounds: number };
    expect(json).toMatchObject({ lastRound: true, maxRounds: 2 });

    const extended = box.ok('decide', 'extend-rounds', '3');
    expect(extended.stdout).toContain(`max_rounds now ${2 + 3}`);
    expect(box.ok('next').stdout).not.toContain('is the last');
    box.steps('round start', 'round close');
    expect(box.stateJson()).toMatchObject({ state: 'FLAT', round: 2, config: { maxRounds: 5 } });
  });

  it('the stop hook that keeps the agent going says the round is the last, and how to get more', () => {
    baseline(1);
    const input = JSON.stringify({ session_id: 'agent-1', hook_event_name: 'Stop', stop_hook_active: false, cwd: box.root });
    const result = runCli(['hook', 'claude', '--dir', box.dir], { cwd: box.root, stdin: input });
    expect(result.code).toBe(0);
    const answer = JSON.parse(result.stdout) as { decision?: string; reason?: string };
    expect(answer.decision).toBe('block');
    expect(answer.reason).toContain(
      'Round 1 is the last: closing it ends the session at max_rounds (1). If more rounds are needed, ask the user to extend the limit (gapflow decide extend-rounds N).',
    );
  });

  it('a bad N is one clear line, exit 1, and nothing is written', () => {
    baseline(2);
    const before = box.logBytes();
    for (const bad of ['0', 'two', '1.5']) {
      expectOneLineError(box.gf('decide', 'extend-rounds', bad), 1, ['extend-rounds N', 'whole number']);
    }
    expectOneLineError(box.gf('decide', 'extend-rounds'), 2, ['missing N']);
    expect(Buffer.compare(box.logBytes()!, before!)).toBe(0);
  });
});

describe('R25: round start --kind', () => {
  it('a flat review round leaves the flat count; the round table shows the kind', () => {
    baseline(10);
    box.steps('round start', 'round close');
    expect(box.stateJson()).toMatchObject({ state: 'FLAT', flatCount: 1 });
    const started = box.ok('round', 'start', '--kind', 'Review');
    expect(started.stdout).toMatch(/^Round 2 \(review\) started/);
    const closed = box.ok('round', 'close');
    expect(closed.stdout).toMatch(/^Round 2 \(review round\) closed: FLAT/);
    const state = box.stateJson();
    expect(state).toMatchObject({ state: 'FLAT', flatCount: 1, rounds: [{ round: 1 }, { kind: 'review', flatCount: 1 }] });
    // A work round says nothing of its kind: state --json reads as it did before round kinds.
    expect(state.rounds[0]).not.toHaveProperty('kind');
    expect(box.ok('status').stdout).toMatch(/^\| 2 \| review \| 3 \| 0 \| 0 \| 3 \| 0 \| 0 \| FLAT \| 1 \|$/m);
  });

  it('a kind that is none of the words is refused with the nearest, and no round starts', () => {
    baseline(10);
    const before = box.logBytes();
    expectOneLineError(box.gf('round', 'start', '--kind', 'reveiw'), 1, ['--kind', 'work, review, consolidation', 'did you mean review?']);
    expect(Buffer.compare(box.logBytes()!, before!)).toBe(0);
  });

  it('append takes the kind on round.started, in any spelling', () => {
    baseline(10);
    const lines = '{"type":"round.started","data":{"kind":"CONSOLIDATION"}}\n{"type":"round.closed","data":{}}\n';
    const result = runCli(['append', '--dir', box.dir], { cwd: box.root, stdin: lines });
    expect(result.code, result.stderr).toBe(0);
    const started = box
      .logLines()
      .map((line) => JSON.parse(line) as { type: string; data: { kind?: string } })
      .find((e) => e.type === 'round.started');
    expect(started!.data.kind).toBe('consolidation');
    expect(box.stateJson().rounds).toMatchObject([{ kind: 'consolidation' }]);
  });
});

describe('R26: decide prioritize --gaps', () => {
  it('sets the focus on any open gaps, and round close flags a move outside it', () => {
    baseline(10);
    box.steps('round start', 'gap move U-1 RESOLVED', 'round close');
    const decided = box.ok('decide', 'prioritize', '--gaps', 'F-1,F-2');
    expect(decided.stdout).toMatch(/^prioritize: CONVERGING -> CONVERGING \(user prioritized: focus on F-1, F-2\)/);
    const input = JSON.stringify({ session_id: 'agent-1', hook_event_name: 'Stop', stop_hook_active: false, cwd: box.root });
    const hook = JSON.parse(runCli(['hook', 'claude', '--dir', box.dir], { cwd: box.root, stdin: input }).stdout) as { reason?: string };
    expect(hook.reason).toContain('Focus first on the gaps the user prioritized: F-1, F-2.');
    box.steps('round start', 'gap move F-1 IN_PROGRESS', 'gap move U-1 OPEN');
    const closed = box.ok('round', 'close');
    expect(closed.stdout).toContain('Outside the focus: U-1 moved though the focus did not name it');
    expect(box.ok('status').stdout).toContain('**Focus:** F-1, F-2 (prioritized gaps)');
  });

  it('without --gaps it is refused, saying to name them', () => {
    baseline(10);
    box.steps('round start', 'round close');
    expectOneLineError(box.gf('decide', 'prioritize'), 1, ['name the gaps to focus on', '--gaps']);
  });
});

describe('R27: decisions.md', () => {
  it('status --write writes it beside status.md; status --decisions prints the same text', () => {
    baseline(3);
    box.steps('round start', 'round close', 'decide extend-rounds 2', 'decide prioritize --gaps F-1 --rationale foundations');
    const written = box.ok('status', '--write');
    expect(written.stdout).toContain(decisionsPath());
    const text = readFileSync(decisionsPath(), 'utf8');
    expect(text).toBe(box.ok('status', '--decisions').stdout);
    expect(text).toMatch(/^\| 1 \| after round 1 \| extend rounds \+2 \| - \| - \| user extended the round limit by 2 rounds; max_rounds now 5 \|$/m);
    expect(text).toMatch(/^\| 2 \| after round 1 \| prioritize \| F-1 \| rationale: foundations \| user prioritized: focus on F-1 \|$/m);
  });

  it('init --write-status keeps it current after every decision', () => {
    baseline(3, '--write-status');
    box.steps('round start', 'round close');
    expect(readFileSync(decisionsPath(), 'utf8')).toContain('No decision has been made yet');
    box.ok('decide', 'pause');
    expect(readFileSync(decisionsPath(), 'utf8')).toBe(box.ok('status', '--decisions').stdout);
    expect(readFileSync(decisionsPath(), 'utf8')).toContain('| pause |');
  });

  it('status --decisions with --write is a usage error, and nothing is written', () => {
    baseline(3);
    expectOneLineError(box.gf('status', '--decisions', '--write'), 2, ['--decisions', '--write']);
    expect(existsSync(decisionsPath())).toBe(false);
  });

  it('a session that uses every new move, replayed from its log alone, gives the same status.md and decisions.md', () => {
    baseline(3);
    box.steps(
      'round start --kind review',
      'gap move U-1 RESOLVED',
      'round close',
      'decide extend-rounds 2',
      'decide prioritize --gaps F-1',
      'round start',
      'gap move F-2 IN_PROGRESS',
      'round close',
      'status --write',
    );
    const copy = join(box.root, 'replayed');
    mkdirSync(copy);
    copyFileSync(box.logPath, join(copy, 'events.jsonl'));
    const again = (name: string) => {
      expect(runCli(['status', '--write', '--dir', copy], { cwd: box.root }).code).toBe(0);
      return readFileSync(join(copy, name), 'utf8');
    };
    expect(again('status.md')).toBe(readFileSync(box.statusPath, 'utf8'));
    expect(again('decisions.md')).toBe(readFileSync(decisionsPath(), 'utf8'));
  });
});
