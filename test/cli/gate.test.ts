import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { expectRefused, Sandbox } from './helpers.js';

/*
 * `init --verify CMD [--verify-timeout S]`: completing as converged or
 * approved runs CMD first, once, at that moment; its run is recorded in the
 * log (`verification.ran`) and never run again by a read or a replay.
 */

const TIMEOUT = 60_000;
let box: Sandbox;
afterEach(() => box?.remove());

/** A check that notes each run in `runs.txt` beside the session folder, and passes only once `ok` exists there. */
const CHECK = 'echo run >> runs.txt; echo "checking"; test -f ok || { printf "\\033[31mFAIL\\033[0m\\tsrc/a.ts\\n" >&2; exit 3; }';

function runs(): number {
  try {
    return readFileSync(join(box.root, 'runs.txt'), 'utf8').split('\n').filter(Boolean).length;
  } catch {
    return 0;
  }
}

/** A gated session whose round 1 resolves its one gap: closing it would converge. */
function readyToConverge(extra: string[] = []): void {
  box = new Sandbox();
  box.ok('init', '--verify', CHECK, ...extra);
  box.steps('gap open A --severity LOW', 'round start', 'gap move A RESOLVED');
}

describe('the verification gate on the command line', { timeout: TIMEOUT }, () => {
  it('a passing check lets the close complete the session, and says it passed', () => {
    readyToConverge();
    writeFileSync(join(box.root, 'ok'), '');
    const closed = box.gf('round', 'close');
    expect(closed.code, closed.stderr).toBe(0);
    expect(closed.stdout).toMatch(/^Verification check passed \(exit 0 after \d+ ms\): echo run/);
    expect(closed.stdout).toContain('Round 1 closed: CONVERGING -> COMPLETE (CONVERGED)');
    expect(box.stateJson()).toMatchObject({ state: 'COMPLETE', outcome: 'CONVERGED' });
    expect(runs()).toBe(1);
    const types = box.logLines().map((line) => (JSON.parse(line) as { type: string }).type);
    expect(types.slice(-2)).toEqual(['verification.ran', 'round.closed']);
  });

  it("a check's invisible and direction-changing characters are dropped from what is shown and recorded", () => {
    box = new Sandbox();
    // U+200F (right-to-left mark) and U+E0069 (a tag character) around the words, as UTF-8 bytes.
    box.ok('init', '--verify', "printf 'a\\342\\200\\217b \\363\\240\\201\\251hidden\\n'; exit 1");
    box.steps('gap open A --severity LOW', 'round start', 'gap move A RESOLVED');
    const closed = box.gf('round', 'close');
    expect(closed.code).toBe(1);
    expect(closed.stderr).toContain('  | ab hidden\n');
    expect(closed.stderr).not.toMatch(/[\u200f\u{e0069}]/u);
    expect(box.stateJson()).toMatchObject({ verification: { lastRun: { output: 'ab hidden' } } });
  });

  it('a failing check keeps the session live with the round open, and says why in the output, next, state and status.md', () => {
    readyToConverge();
    const closed = box.gf('round', 'close');
    expect(closed.code).toBe(1);
    expect(closed.stdout).toBe('');
    // The tail of its output, control characters gone, each line marked; then the refusal's one line.
    expect(closed.stderr).toContain('Verification check failed (exit 3 after');
    expect(closed.stderr).toContain('  | checking\n  | FAIL src/a.ts\n');
    expect(closed.stderr).not.toContain('\u001b');
    expect(closed.stderr).toMatch(
      /gapflow: refused: round\.closed: the verification check failed \(exit 3 after \d+ ms\): .*; the session stays CONVERGING until it passes/,
    );
    const state = box.stateJson();
    expect(state).toMatchObject({ state: 'CONVERGING', roundOpen: true, round: 0 });
    expect(state).toMatchObject({
      verification: { command: CHECK, lastRun: { passed: false, exitCode: 3, timedOut: false, output: 'checking\nFAIL src/a.ts', gates: 'round_close' } },
    });
    expect(box.ok('next').stdout).toContain('the verification check failed (exit 3 after');
    expect(box.ok('status').stdout).toMatch(
      /### Verification[\s\S]*Last run for the close of round 1: \*\*failed\*\* \(exit 3 after \d+ ms\), so the session did not complete; it stays CONVERGING[\s\S]*FAIL src\/a\.ts/,
    );
    // Fixed: the same command runs the check again, and completes.
    writeFileSync(join(box.root, 'ok'), '');
    expect(box.gf('round', 'close').code).toBe(0);
    expect(box.stateJson()).toMatchObject({ state: 'COMPLETE', outcome: 'CONVERGED' });
    expect(runs()).toBe(2);
  });

  it('a session that keeps status.md written shows the failing run there, though the close was refused', () => {
    readyToConverge(['--write-status']);
    expect(box.gf('round', 'close').code).toBe(1);
    expect(readFileSync(box.statusPath, 'utf8')).toMatch(/Last run for the close of round 1: \*\*failed\*\* \(exit 3 after \d+ ms\)/);
  });

  it('a check that runs past --verify-timeout is killed and fails as timed out', () => {
    box = new Sandbox();
    box.ok('init', '--verify', 'sleep 20', '--verify-timeout', '0.5');
    box.steps('gap open A --severity LOW', 'round start', 'gap move A RESOLVED');
    const started = Date.now();
    const closed = box.gf('round', 'close');
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(closed.code).toBe(1);
    expect(closed.stderr).toMatch(/the verification check failed \(timed out after \d+ ms\): sleep 20/);
    expect(box.stateJson()).toMatchObject({
      state: 'CONVERGING',
      verification: { timeoutSeconds: 0.5, lastRun: { timedOut: true, exitCode: null, passed: false } },
    });
  });

  it('an approval runs the check; failing, the session stays where it was', () => {
    readyToConverge(['--stall-threshold', '5']);
    box.steps('gap open B --severity LOW', 'round close');
    const approved = box.gf('decide', 'approve');
    expect(approved.code).toBe(1);
    expect(approved.stderr).toMatch(/decision\.made approve: the verification check failed .*; the session stays FLAT until it passes/);
    expect(box.stateJson()).toMatchObject({ state: 'FLAT', outcome: null });
    writeFileSync(join(box.root, 'ok'), '');
    expect(box.gf('decide', 'approve').code).toBe(0);
    expect(box.stateJson()).toMatchObject({ state: 'COMPLETE', outcome: 'GOOD_ENOUGH', verification: { lastRun: { gates: 'approve', passed: true } } });
  });

  it('record: metrics that would close the round and complete run the check; failing, they are recorded and the round stays open', () => {
    box = new Sandbox();
    box.ok('init', '--policy', 'quality', '--verify', CHECK);
    box.ok('record', 'quality', '--score', '90');
    const recorded = box.gf('record', 'quality', '--score', '90');
    expect(recorded.code, recorded.stderr).toBe(0);
    expect(recorded.stderr).toContain('Verification check failed (exit 3 after');
    expect(box.stateJson()).toMatchObject({ state: 'CONVERGING', round: 1, roundOpen: true, verification: { lastRun: { passed: false } } });
    writeFileSync(join(box.root, 'ok'), '');
    const closed = box.gf('round', 'close');
    expect(closed.code, closed.stderr).toBe(0);
    expect(box.stateJson()).toMatchObject({ state: 'COMPLETE', outcome: 'CONVERGED', round: 2 });
    expect(runs()).toBe(2);
  });

  it('reads and replays never run the check again: status, state, verify, and a replay without checkpoints', () => {
    readyToConverge();
    box.gf('round', 'close');
    writeFileSync(join(box.root, 'ok'), '');
    box.ok('round', 'close');
    expect(runs()).toBe(2);
    box.ok('status');
    box.ok('state', '--json');
    box.ok('next', '--json');
    expect(box.gf('verify').code).toBe(0);
    for (const file of readdirSync(box.dir)) if (file.startsWith('checkpoint')) rmSync(join(box.dir, file));
    expect(box.stateJson()).toMatchObject({ state: 'COMPLETE', outcome: 'CONVERGED', verification: { lastRun: { passed: true } } });
    expect(runs()).toBe(2);
  });

  it('append runs the check for a batch that would complete, and writes its run just before the close', () => {
    readyToConverge();
    writeFileSync(join(box.root, 'ok'), '');
    const batch =
      '{"type":"gap.opened","data":{"id":"B","severity":"LOW"}}\n{"type":"gap.moved","data":{"id":"B","to":"RESOLVED"}}\n{"type":"round.closed","data":{}}\n';
    const done = runBatch(batch);
    expect(done.code, done.stderr).toBe(0);
    expect(runs()).toBe(1);
    const types = box.logLines().map((line) => (JSON.parse(line) as { type: string }).type);
    expect(types.slice(-3)).toEqual(['gap.moved', 'verification.ran', 'round.closed']);
    expect(box.stateJson()).toMatchObject({ state: 'COMPLETE', outcome: 'CONVERGED' });
  });

  it('append of a batch that starts and closes a round, refused after a failing check, records the run alone and claims no open round', () => {
    box = new Sandbox();
    box.ok('init', '--verify', CHECK);
    box.steps('gap open A --severity LOW');
    const refused = runBatch('{"type":"round.started","data":{}}\n{"type":"gap.moved","data":{"id":"A","to":"RESOLVED"}}\n{"type":"round.closed","data":{}}\n');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/the verification check failed \(exit 3 after \d+ ms\): .*; the session stays CONVERGING until it passes/);
    expect(refused.stderr).not.toMatch(/round \d+ open/);
    const types = box.logLines().map((line) => (JSON.parse(line) as { type: string }).type);
    expect(types.slice(-2)).toEqual(['gap.opened', 'verification.ran']);
    expect(box.stateJson()).toMatchObject({ state: 'CONVERGING', roundOpen: false });
    expect(runs()).toBe(1);
  });

  it('round close with a budget record runs the check once and writes the record, the run and the close together; a failing check writes the run alone', () => {
    readyToConverge(['--policy', 'gaps,budget']);
    const failed = box.gf('round', 'close', '--cost', '1');
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(/the verification check failed \(exit 3 after \d+ ms\)/);
    let types = box.logLines().map((line) => (JSON.parse(line) as { type: string }).type);
    expect(types.slice(-2)).toEqual(['gap.moved', 'verification.ran']);
    expect(box.stateJson()).toMatchObject({ state: 'CONVERGING', roundOpen: true });
    writeFileSync(join(box.root, 'ok'), '');
    const closed = box.gf('round', 'close', '--cost', '1');
    expect(closed.code, closed.stderr).toBe(0);
    expect(closed.stdout).toMatch(/^Verification check passed/);
    types = box.logLines().map((line) => (JSON.parse(line) as { type: string }).type);
    expect(types.slice(-4)).toEqual(['verification.ran', 'metrics.recorded', 'verification.ran', 'round.closed']);
    expect(box.stateJson()).toMatchObject({ state: 'COMPLETE', outcome: 'CONVERGED' });
    expect(runs()).toBe(2);
  });

  it('append takes no verification.ran line: only gapflow records a run', () => {
    readyToConverge();
    const forged = '{"type":"verification.ran","data":{"command":"x","exitCode":0,"durationMs":1,"timedOut":false,"gates":"round_close"}}\n';
    const before = box.logBytes();
    const refused = runBatch(forged);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/line 1: verification\.ran is recorded by gapflow when it runs the session's check itself/);
    expect(Buffer.compare(box.logBytes()!, before!)).toBe(0);
  });

  it.each([
    [['--verify', 'true', '--verify-timeout', 'abc'], 1, /--verify-timeout takes a number of seconds above 0 and at most 86400, not "abc"/],
    [['--verify', 'true', '--verify-timeout', '0'], 1, /--verify-timeout takes a number of seconds above 0/],
    [['--verify', 'true', '--verify-timeout', '100000'], 1, /at most 86400, not "100000"/],
    [['--verify-timeout', '5'], 2, /--verify-timeout goes with --verify/],
    [['--verify', '  '], 2, /--verify needs a command/],
    [['--ping-pong', 'two'], 1, /--ping-pong takes a whole number, not "two"/],
  ] as const)('init %j is refused with one line, and no session is made', (argv, code, message) => {
    box = new Sandbox();
    expectRefused(box, ['init', ...argv], [message], code);
  });
});

function runBatch(text: string) {
  const path = join(box.root, 'batch.jsonl');
  writeFileSync(path, text);
  return box.gf('append', '--file', path);
}
