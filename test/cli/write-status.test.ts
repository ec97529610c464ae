import { spawn } from 'node:child_process';
import { existsSync, linkSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runBin, TABLE, type CliIO } from '../../src/cli/index.js';
import { writeSessionConfig } from '../../src/log/index.js';
import { terminalMarkdown } from '../../src/render/index.js';
import { BIN } from './children.js';
import { expectOneLineError, runCli, Sandbox } from './helpers.js';
import { longSession } from './long-session.js';

/*
 * `init --write-status`: every command that records an event leaves
 * status.md as `gapflow status` prints it, written whole (temp + rename);
 * reads, refusals and retries that record nothing leave it alone.
 */

let box: Sandbox;
beforeEach(() => {
  box = new Sandbox();
});
afterEach(() => box.remove());

const statusMd = () => readFileSync(box.statusPath, 'utf8');
const removeStatus = () => rmSync(box.statusPath, { force: true });
/** status.md is what `gapflow status` prints now (which spells the file's `&gt;` as `\>`, the terminal's way). */
function expectCurrent(): void {
  expect(existsSync(box.statusPath), 'status.md was not written').toBe(true);
  expect(terminalMarkdown(statusMd())).toBe(box.ok('status').stdout);
}

describe('init --write-status', () => {
  it('writes status.md at once, and says so', () => {
    const init = box.ok('init', '--write-status');
    expect(init.stdout).toContain('status.md is rewritten after every command that records an event');
    expectCurrent();
    expect(JSON.parse(readFileSync(join(box.dir, 'config.json'), 'utf8'))).toEqual({ writeStatus: true });
  });

  it('in a subfolder of another session, writes status.md for the session it made, not the one above', () => {
    // A session in <root>/.gapflow, found from any folder below it.
    expect(runCli(['init'], { cwd: box.root, env: {} }).code).toBe(0);
    const sub = join(box.root, 'sub');
    mkdirSync(sub);
    // No --dir: init makes .gapflow here, while every other command would find the session above.
    const made = runCli(['init', '--write-status'], { cwd: sub, env: {} });
    expect(made.code, made.stderr).toBe(0);
    expect(made.stderr).toBe('');
    expect(readFileSync(join(sub, '.gapflow', 'status.md'), 'utf8')).toBe(runCli(['status'], { cwd: sub, env: {} }).stdout);
    expect(existsSync(join(box.root, '.gapflow', 'status.md'))).toBe(false);
  });

  it.each([
    ['gap open', ['gap', 'open', 'GAP-L1', '--severity', 'LOW', '--title', 'Logging']],
    ['gap move', ['gap', 'move', 'GAP-H1', 'IN_PROGRESS']],
    ['gap severity', ['gap', 'severity', 'GAP-M1', 'HIGH']],
    ['round start', ['round', 'start']],
  ])('after %s, status.md is rewritten to what status prints', (_name, argv) => {
    box.ok('init', '--write-status');
    box.steps('gap open GAP-H1 --severity HIGH --title Parser', 'gap open GAP-M1 --severity MEDIUM --title Retries');
    const before = statusMd();
    removeStatus();
    box.ok(...argv);
    expectCurrent();
    expect(statusMd()).not.toBe(before);
  });

  it('after round close, a decision, an append batch and a metrics record too', () => {
    box.ok('init', '--write-status', '--policy', 'gaps,quality');
    box.steps('gap open GAP-H1 --severity HIGH', 'round start', 'gap open GAP-C1 --severity CRITICAL', 'record quality --score 70');
    for (const step of [
      () => box.ok('round', 'close'),
      () => box.ok('decide', 'accept-complexity'),
      () => box.ok('gap', 'open', 'GAP-L1', '--severity', 'LOW'),
      () => box.ok('record', 'quality', '--score', '75'),
    ]) {
      removeStatus();
      step();
      expectCurrent();
    }
    removeStatus();
    const batch = `${JSON.stringify({ type: 'gap.moved', data: { id: 'GAP-L1', to: 'RESOLVED' } })}\n`;
    const appended = box.gf('append', '--file', '-');
    expect(appended.code).toBe(2); // no stdin handed over in-process: a usage error, nothing written
    expect(existsSync(box.statusPath)).toBe(false);
    writeFileSync(join(box.root, 'batch.jsonl'), batch);
    box.ok('append', '--file', join(box.root, 'batch.jsonl'));
    expectCurrent();
    expect(statusMd()).toContain('GAP-L1');
  });

  it('reads, refusals and retries that record nothing leave status.md alone', () => {
    box.ok('init', '--write-status');
    box.steps('gap open GAP-H1 --severity HIGH --event-id first-gap', 'round start');
    removeStatus();
    for (const read of [['state'], ['state', '--json'], ['status'], ['next'], ['next', '--json'], ['prompt'], ['check'], ['replay'], ['verify'], ['viz']]) {
      expect(box.gf(...read).code, read.join(' ')).toBe(0);
    }
    expectOneLineError(box.gf('gap', 'move', 'GAP-NOPE', 'RESOLVED'), 1, ['GAP-NOPE']);
    expectOneLineError(box.gf('decide', 'approve'), 1, []);
    // A retry: its id is in the log already, so nothing is appended.
    expect(box.gf('gap', 'open', 'GAP-H1', '--severity', 'HIGH', '--event-id', 'first-gap').code).toBe(0);
    expect(existsSync(box.statusPath)).toBe(false);
  });

  it('is written whole: a new file renamed into place, never the old one rewritten, and no temporary file left', () => {
    box.ok('init', '--write-status');
    // A second name for the file as it is: a writer that rewrote it in place would change what this name shows.
    const kept = join(box.root, 'kept.md');
    linkSync(box.statusPath, kept);
    const before = statusMd();
    box.ok('gap', 'open', 'GAP-H1', '--severity', 'HIGH');
    expect(readFileSync(kept, 'utf8')).toBe(before);
    expect(statSync(kept).ino).not.toBe(statSync(box.statusPath).ino);
    expect(statusMd()).toContain('GAP-H1');
    expect(readdirSync(box.dir).filter((name) => name.includes('.tmp'))).toEqual([]);
  });

  it('without it, no write makes status.md', () => {
    box.ok('init');
    box.steps('gap open GAP-H1 --severity HIGH', 'round start', 'gap move GAP-H1 RESOLVED', 'round close');
    expect(existsSync(box.statusPath)).toBe(false);
    expect(existsSync(join(box.dir, 'config.json'))).toBe(false);
  });

  it('a new init without it turns off what an earlier session in the folder asked for', () => {
    box.ok('init', '--write-status');
    rmSync(box.logPath);
    removeStatus();
    box.ok('init');
    box.ok('gap', 'open', 'GAP-H1', '--severity', 'HIGH');
    expect(existsSync(join(box.dir, 'config.json'))).toBe(false);
    expect(existsSync(box.statusPath)).toBe(false);
  });

  it('a config it cannot read costs the rewrite, not the write: exit 0, one line saying so', () => {
    box.ok('init', '--write-status');
    writeFileSync(join(box.dir, 'config.json'), '{"writeStatus": "yes"}');
    removeStatus();
    const result = box.gf('gap', 'open', 'GAP-H1', '--severity', 'HIGH');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('GAP-H1');
    expect(result.stderr).toMatch(
      /^gapflow: recorded, but status\.md was not rewritten: .*config\.json is not a session config like \{"writeStatus": true\}; fix it, or delete it to turn the setting off\n$/,
    );
    expect(box.stateJson().openGapCount).toBe(1);
    expect(existsSync(box.statusPath)).toBe(false);
  });
});

describe('--write-status from the bin', () => {
  it('a gap write the head could decide on its own still leaves status.md current', { timeout: 60_000 }, async () => {
    // Long enough for a head checkpoint, so the write is decided on the head. The new gap is CRITICAL, so it is among
    // the first gaps of its severity status.md lists (the session's LOW ones run past that).
    longSession(box.dir, 400).startRound();
    writeSessionConfig(box.dir, { writeStatus: true });
    let stderr = '';
    const io: CliIO = { stdout: () => undefined, stderr: (text) => void (stderr += text), env: {}, cwd: box.root };
    expect(await runBin(['gap', 'open', 'LATE-1', '--severity', 'CRITICAL', '--dir', box.dir], io, () => Promise.resolve(), TABLE)).toBe(0);
    expect(stderr).toBe('');
    expectCurrent();
    expect(statusMd()).toContain('LATE-1');
  });

  it('writers finishing together leave status.md as status prints it', { timeout: 60_000 }, async () => {
    box.ok('init', '--write-status');
    const writer = (i: number) =>
      new Promise<number | null>((resolve) => {
        const child = spawn('node', [BIN, 'gap', 'open', `GAP-${i}`, '--severity', 'LOW', '--dir', box.dir], { stdio: 'ignore' });
        child.on('exit', (code) => resolve(code));
      });
    for (let wave = 0; wave < 3; wave++) {
      const codes = await Promise.all([0, 1, 2, 3].map((i) => writer(wave * 4 + i)));
      expect(codes).toEqual([0, 0, 0, 0]);
    }
    expect(box.stateJson().gaps).toHaveLength(12);
    expectCurrent();
  });
});
