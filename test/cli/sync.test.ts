import { spawnSync } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync, writeFileSync, ftruncateSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SyncSummary } from '../../src/render/index.js';
import type { Finding } from '../../src/sync/index.js';
import { eslintSarif, expectedFromEslint } from '../sync/producers.js';
import { expectOneLineError, expectRefused, runCli, Sandbox, type CliResult } from './helpers.js';
import { stopInput } from './hook-inputs.js';

/*
 * `gapflow sync` as a loop runs it: real producers' output made here (ESLint
 * 9 with @microsoft/eslint-formatter-sarif over a module edited between
 * rounds; node's test runner with its JUnit reporter over an edited test
 * file), each snapshot reconciled by the CLI. What each round must count is
 * worked out here, as set differences of the ids the identity rule gives
 * (test/sync/producers.ts), never read from the code under test.
 */

/** What `sync --json` prints: the summary, and the state after it. */
type SyncJson = SyncSummary & {
  state: { round: number; state: string; rounds: { round: number; resolved: number; new: number; openEnd: number }[]; gaps: { id: string; state: string }[] };
};

let box: Sandbox;
let project: string;
beforeEach(() => {
  box = new Sandbox();
  project = join(box.root, 'app');
  mkdirSync(project);
  expect(box.gf('init').code).toBe(0);
});
afterEach(() => box.remove());

/** `gapflow sync ARGS --json` from the sandbox root, its JSON answer. */
function syncJson(...argv: string[]): SyncJson {
  const result = box.gf('sync', ...argv, '--json');
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  return JSON.parse(result.stdout) as SyncJson;
}

/** ESLint over app/mod.js as it now reads: the SARIF written to app/eslint.sarif, and the findings the identity rule says it holds. */
async function lint(source: string): Promise<Set<string>> {
  writeFileSync(join(project, 'mod.js'), source);
  const run = await eslintSarif(box.root, ['app/mod.js']);
  writeFileSync(join(project, 'eslint.sarif'), run.sarif);
  return ids(expectedFromEslint(run, box.root));
}

const ids = (findings: readonly Finding[]) => new Set(findings.map((finding) => finding.id));
const minus = (a: Set<string>, b: Set<string>) => [...a].filter((id) => !b.has(id)).sort();
const sorted = (list: readonly string[]) => [...list].sort();

const MODULE = {
  // no-unused-vars (error) on `unused`, eqeqeq (warn) twice.
  first: 'const unused = 1;\nexport function f(a, b) {\n  if (a == b) return 1;\n  return a == 2;\n}\n',
  // Lines shifted down; one eqeqeq fixed; a new unused variable.
  second: '\n\n// shifted\nconst unused = 1;\nconst spare = 2;\nexport function f(a, b) {\n  if (a === b) return 1;\n  return a == 2;\n}\n',
  // The fixed eqeqeq back; `spare` fixed.
  third: 'const unused = 1;\nexport function f(a, b) {\n  if (a == b) return 1;\n  return a == 2;\n}\n',
  // Everything fixed.
  clean: 'export function f(a, b) {\n  return a === b;\n}\n',
};

describe('gapflow sync: an ESLint loop, round after round', () => {
  it('counts each round as the set difference of its snapshots: fixed resolved, new opened, shifted lines the same, a returning finding reopened', {
    timeout: 60_000,
  }, async () => {
    const first = await lint(MODULE.first);
    const baseline = syncJson('app/eslint.sarif');
    expect(baseline).toMatchObject({ source: 'ESLint', reported: first.size, round: 0, closed: false, resolved: [], reopened: [] });
    expect(sorted(baseline.opened)).toEqual([...first].sort());

    const second = await lint(MODULE.second);
    const round1 = syncJson('--close', 'app/eslint.sarif');
    expect(sorted(round1.opened)).toEqual(minus(second, first));
    expect(sorted(round1.resolved)).toEqual(minus(first, second));
    expect(round1.opened).toHaveLength(1);
    expect(round1.resolved).toHaveLength(1);
    expect(round1).toMatchObject({ round: 1, closed: true });
    expect(round1.state.rounds[0]).toMatchObject({ round: 1, resolved: minus(first, second).length, new: minus(second, first).length, openEnd: second.size });

    const third = await lint(MODULE.third);
    const round2 = syncJson('--close', 'app/eslint.sarif');
    // The fixed comparison comes back with its old id: its gap reopens, and no second gap opens for it.
    expect(sorted(round2.reopened)).toEqual(minus(third, second).filter((id) => first.has(id)));
    expect(round2.opened).toEqual(minus(third, second).filter((id) => !first.has(id)));
    expect(sorted(round2.resolved)).toEqual(minus(second, third));
    expect(round2.claimed).toEqual([]);
    expect(round2.state.rounds[1]).toMatchObject({ round: 2, resolved: minus(second, third).length, new: minus(third, second).length, openEnd: third.size });
    expect(round2.state.gaps.map((gap) => gap.id).sort()).toEqual([...new Set([...first, ...second, ...third])].sort());

    await lint(MODULE.clean);
    const round3 = syncJson('--close', 'app/eslint.sarif');
    expect(sorted(round3.resolved)).toEqual([...third].sort());
    expect(round3.state.state).toBe('COMPLETE');

    // The log reads back whole, and today's rules find nothing to say of its history.
    const verified = box.gf('verify', '--strict');
    expect(verified.code, verified.stderr).toBe(0);
    expect(verified.stdout).not.toContain('Audit');
  });

  it('the same snapshot twice appends nothing', { timeout: 60_000 }, async () => {
    await lint(MODULE.first);
    syncJson('app/eslint.sarif');
    const before = box.logBytes()!;
    const again = box.gf('sync', 'app/eslint.sarif');
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain('nothing changed since its last snapshot');
    expect(Buffer.compare(box.logBytes()!, before)).toBe(0);
  });

  it('a retried close with its event id records nothing again: one round, not two', { timeout: 60_000 }, async () => {
    await lint(MODULE.first);
    syncJson('app/eslint.sarif');
    await lint(MODULE.second);
    const first = syncJson('--close', '--event-id', 'ci-run-41', 'app/eslint.sarif');
    expect(first.closed).toBe(true);
    const before = box.logBytes()!;
    const retried = box.gf('sync', '--close', '--event-id', 'ci-run-41', 'app/eslint.sarif', '--json');
    expect(retried.code, retried.stderr).toBe(0);
    expect(Buffer.compare(box.logBytes()!, before)).toBe(0);
    expect((JSON.parse(retried.stdout) as SyncJson).state.round).toBe(1);
  });

  it('a gap the user set to WONT_FIX keeps it, whether the snapshot still reports it or drops it', { timeout: 60_000 }, async () => {
    const first = await lint(MODULE.first);
    syncJson('app/eslint.sarif');
    const kept = [...first][0]!;
    expect(box.gf('round', 'start').code).toBe(0);
    expect(box.gf('gap', 'move', kept, 'WONT_FIX', '--reason', 'style only').code).toBe(0);
    expect(syncJson('app/eslint.sarif').reopened).toEqual([]);
    await lint(MODULE.clean);
    const gone = syncJson('app/eslint.sarif');
    expect(gone.resolved).not.toContain(kept);
    expect(gone.state.gaps.find((gap) => gap.id === kept)?.state).toBe('WONT_FIX');
  });

  it('a gap resolved by hand that the next snapshot still reports reopens, named as claimed in the output, next, the hook, the round verdict and status.md', {
    timeout: 60_000,
  }, async () => {
    const first = await lint(MODULE.first);
    syncJson('app/eslint.sarif');
    const claimed = [...first][0]!;
    expect(box.gf('round', 'start').code).toBe(0);
    expect(box.gf('gap', 'move', claimed, 'RESOLVED').code).toBe(0);

    const text = box.gf('sync', 'app/eslint.sarif');
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain(`Claimed but still reported (closed by hand, reopened): ${claimed}`);

    const next = JSON.parse(box.gf('next', '--json').stdout) as { reason: string; claimedStillReported: string[] };
    expect(next.claimedStillReported).toEqual([claimed]);
    expect(next.reason).toContain(`claimed but still reported: ${claimed}`);

    const hook = runCli(['hook', 'claude', '--dir', box.dir], { cwd: box.root, stdin: JSON.stringify(stopInput(box.root)) });
    expect(hook.code).toBe(0);
    const answer = JSON.parse(hook.stdout) as { decision: string; reason: string };
    expect(answer.decision).toBe('block');
    expect(answer.reason).toContain(`Claimed but still reported: ${claimed}.`);

    const close = box.gf('round', 'close', '--json');
    expect(close.code, close.stderr).toBe(0);
    const closed = JSON.parse(close.stdout) as { events: { type: string; data: { outcome?: { combined: { detail: string } } } }[] };
    expect(closed.events.find((event) => event.type === 'round.closed')?.data.outcome?.combined.detail).toContain(`claimed but still reported: ${claimed}`);

    const status = box.gf('status');
    expect(status.stdout).toContain('### Findings Sources');
    expect(status.stdout).toContain(`Claimed but still reported:** ${claimed}`);
  });
});

describe('gapflow sync: what a loop that only syncs sees', () => {
  const write = (name: string, findings: string[]) =>
    writeFileSync(join(box.root, name), JSON.stringify(findings.map((id) => ({ id, severity: 'HIGH', title: id }))));

  it('sync --close alone: the first run records the baseline and starts round 1; the next closes it with what changed; --json names the round', () => {
    write('f.json', ['A', 'B']);
    const first = syncJson('--close', '--source', 'ci', 'f.json');
    expect(first).toMatchObject({ round: 0, closed: false, opened: ['A', 'B'] });
    expect(first.state).toMatchObject({ round: 0, state: 'CONVERGING' });
    write('f.json', ['A']);
    const second = syncJson('--close', '--source', 'ci', 'f.json');
    expect(second).toMatchObject({ round: 1, closed: true, resolved: ['B'] });
    expect(second.state.rounds[0]).toMatchObject({ round: 1, resolved: 1, new: 0 });
    expect(box.gf('round', 'start').code).toBe(0);
    write('f.json', []);
    expect(syncJson('--source', 'ci', 'f.json')).toMatchObject({ round: 2, closed: false, resolved: ['A'] });
  });

  it('a retried close that changed nothing, with its event id, records once', () => {
    write('f.json', ['A']);
    syncJson('--source', 'ci', 'f.json');
    expect(syncJson('--close', '--event-id', 'ci-2', '--source', 'ci', 'f.json')).toMatchObject({ closed: true, opened: [], resolved: [] });
    const before = box.logBytes()!;
    const retried = box.gf('sync', '--close', '--event-id', 'ci-2', '--source', 'ci', 'f.json');
    expect(retried.code, retried.stderr).toBe(0);
    expect(Buffer.compare(box.logBytes()!, before)).toBe(0);
  });

  it('an append line of the same snapshot twice: the second records nothing and says so', () => {
    const line = `${JSON.stringify({ type: 'findings.synced', data: { source: 'ci', findings: [{ id: 'A', severity: 'LOW' }] } })}\n`;
    expect(runCli(['append', '--dir', box.dir], { cwd: box.root, stdin: line }).code).toBe(0);
    const before = box.logBytes()!;
    const again = runCli(['append', '--dir', box.dir], { cwd: box.root, stdin: line });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain('line 1: findings.synced: nothing changed; nothing appended');
    expect(Buffer.compare(box.logBytes()!, before)).toBe(0);
    const json = runCli(['append', '--json', '--dir', box.dir], { cwd: box.root, stdin: line });
    expect((JSON.parse(json.stdout) as { appended: unknown[] }).appended).toEqual([
      { line: 1, seq: null, id: null, type: 'findings.synced', roundStartedSeq: null, alreadyRecorded: false },
    ]);
  });

  it("a request cannot pass for a tool's: source on a gap and by on a move are refused", () => {
    const refuse = (event: object, field: string) => {
      const result = runCli(['append', '--dir', box.dir], { cwd: box.root, stdin: `${JSON.stringify(event)}\n` });
      expectOneLineError(result, 1, [`unknown field "${field}"`]);
    };
    refuse({ type: 'gap.opened', data: { id: 'H-1', severity: 'LOW', source: 'eslint' } }, 'source');
    expect(box.gf('gap', 'open', 'H-1', '--severity', 'LOW').code).toBe(0);
    refuse({ type: 'gap.moved', data: { id: 'H-1', to: 'RESOLVED', by: 'eslint' } }, 'by');
  });
});

describe('gapflow sync: two sources in one session', () => {
  it("a test run's JUnit snapshot and a linter's SARIF each move only their own gaps", { timeout: 90_000 }, async () => {
    const lintIds = await lint(MODULE.first);
    syncJson('app/eslint.sarif');
    const testFile = join(project, 'math.test.mjs');
    const junit = join(project, 'junit.xml');
    const runTests = (body: string) => {
      writeFileSync(testFile, `import { test } from 'node:test';\nimport assert from 'node:assert';\n${body}`);
      spawnSync(process.execPath, ['--test', '--test-reporter=junit', `--test-reporter-destination=${junit}`, testFile], { timeout: 60_000 });
    };
    runTests("test('adds', () => assert.equal(1 + 1, 3));\ntest('subtracts', () => assert.equal(2 - 1, 1));\n");
    const tests = syncJson('--source', 'node-tests', 'app/junit.xml');
    expect(tests).toMatchObject({ source: 'node-tests', reported: 1 });
    expect(tests.opened).toHaveLength(1);

    runTests("test('adds', () => assert.equal(1 + 1, 2));\ntest('subtracts', () => assert.equal(2 - 1, 1));\n");
    const fixed = syncJson('--source', 'node-tests', 'app/junit.xml');
    expect(fixed.resolved).toEqual(tests.opened);
    // The linter's gaps are untouched by the test run's snapshot.
    const open = fixed.state.gaps.filter((gap) => gap.state === 'OPEN').map((gap) => gap.id);
    expect(open.sort()).toEqual([...lintIds].sort());

    // And the linter's empty snapshot resolves only its own.
    await lint(MODULE.clean);
    const clean = syncJson('app/eslint.sarif');
    expect(sorted(clean.resolved)).toEqual([...lintIds].sort());
  });

  it("a source's snapshot naming another source's gap is refused, and nothing is written", { timeout: 60_000 }, () => {
    const findings = JSON.stringify([{ id: 'SHARED-1', severity: 'HIGH', title: 'one' }]);
    writeFileSync(join(box.root, 'a.json'), findings);
    expect(box.gf('sync', '--source', 'review', 'a.json').code).toBe(0);
    expectRefused(box, ['sync', '--source', 'other', 'a.json'], ['findings.synced other: gap SHARED-1 belongs to source review']);
  });
});

describe('gapflow sync: bad input is refused with one line naming the file and where, and nothing is written', () => {
  const write = (name: string, text: string) => writeFileSync(join(box.root, name), text);

  it('SARIF that is cut short names the line and column where it ends', () => {
    write('cut.sarif', '{\n  "version": "2.1.0",\n  "runs": [\n    {"tool": {"driver": {"name": "ESLint"}}, "results": [');
    expectRefused(box, ['sync', 'cut.sarif'], ['cut.sarif', /line 4 column \d+/]);
  });

  it('SARIF other than 2.1.0', () => {
    write('old.sarif', JSON.stringify({ version: '2.0.0', runs: [] }));
    expectRefused(box, ['sync', 'old.sarif'], ['old.sarif: /version', '"2.0.0"', '2.1.0']);
  });

  it('a SARIF result without its message, named by its JSON pointer', () => {
    write('bad.sarif', JSON.stringify({ version: '2.1.0', runs: [{ tool: { driver: { name: 'x' } }, results: [{ ruleId: 'r' }] }] }));
    expectRefused(box, ['sync', 'bad.sarif'], ['bad.sarif: /runs/0/results/0']);
  });

  it("ESLint's SARIF of a file it could not parse: not a whole snapshot", { timeout: 60_000 }, async () => {
    writeFileSync(join(project, 'mod.js'), 'const = ;\n');
    writeFileSync(join(project, 'eslint.sarif'), (await eslintSarif(box.root, ['app/mod.js'])).sarif);
    expectRefused(box, ['sync', 'app/eslint.sarif'], ['app/eslint.sarif: /runs/0/invocations/0', 'Parsing error']);
  });

  it('malformed XML, and XML with a document type', () => {
    write('broken.xml', '<testsuites>\n  <testsuite name="a">\n    <testcase name="b">\n  </testsuite>\n</testsuites>\n');
    expectRefused(box, ['sync', 'broken.xml'], ['broken.xml: line 4 column 3']);
    write('entity.xml', '<?xml version="1.0"?>\n<!DOCTYPE x [<!ENTITY lol "lol">]>\n<testsuites/>\n');
    expectRefused(box, ['sync', 'entity.xml'], ['entity.xml: line 2 column 1', 'DOCTYPE']);
  });

  it('a JSON list with a severity gapflow does not have, or an id twice', () => {
    write('f.json', JSON.stringify([{ id: 'A', severity: 'SEVERE' }]));
    expectRefused(box, ['sync', 'f.json'], ['f.json: /0/severity', '"SEVERE"']);
    write(
      'twice.json',
      JSON.stringify([
        { id: 'A', severity: 'LOW' },
        { id: 'A', severity: 'LOW' },
      ]),
    );
    expectRefused(box, ['sync', 'twice.json'], ['twice.json: /1/id']);
  });

  it('empty input, text in no format, a format or a severity word gapflow does not know, a bad source name', () => {
    write('empty.sarif', '');
    expectRefused(box, ['sync', 'empty.sarif'], ['empty.sarif', 'empty']);
    write('prose.txt', 'all good');
    expectRefused(box, ['sync', 'prose.txt'], ['prose.txt: neither SARIF']);
    write('f.json', '[]');
    expectRefused(box, ['sync', '--format', 'csv', 'f.json'], ['--format "csv"']);
    expectRefused(box, ['sync', '--severity', 'fatal=HIGH', 'f.json'], ['--severity "fatal=HIGH"']);
    expectRefused(box, ['sync', '--severity', 'error=SEVERE', 'f.json'], ['"SEVERE" is not one of']);
    expectRefused(box, ['sync', '--source', '../etc', 'f.json'], ['source']);
  });

  it('a file over the batch limit, /dev/zero and a FIFO are refused before they are read', () => {
    const big = join(box.root, 'big.sarif');
    const fd = openSync(big, 'w');
    ftruncateSync(fd, 65 * 1024 * 1024);
    closeSync(fd);
    expectRefused(box, ['sync', 'big.sarif'], ['big.sarif', 'limit']);
    expectRefused(box, ['sync', '/dev/zero'], ['/dev/zero']);
    const fifo = join(box.root, 'pipe.sarif');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    expectRefused(box, ['sync', 'pipe.sarif'], ['pipe.sarif']);
  });

  it('a snapshot on standard input, and its refusal named as stdin', () => {
    const result: CliResult = runCli(['sync', '-', '--dir', box.dir], { cwd: box.root, stdin: '{"version": "2.1.0", "runs": [' });
    expectOneLineError(result, 1, ['stdin: line 1']);
    const ok = runCli(['sync', '--source', 'review', '-', '--dir', box.dir], {
      cwd: box.root,
      stdin: JSON.stringify([{ id: 'R-1', severity: 'low', title: 'nit' }]),
    });
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toContain('review (json): 1 finding; opened 1 (R-1)');
    expect(readFileSync(box.logPath, 'utf8')).toContain('"source":"review"');
  });
});
