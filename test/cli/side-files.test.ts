import { appendFileSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CHECKPOINT_LIMIT, formatBytes, HOOK_STATE_LIMIT, LOCK_FILE_LIMIT, SESSION_CONFIG_LIMIT, type InputLimit } from '../../src/log/index.js';
import { convergingAfterRoundOne, expectOneLineError, runCli, Sandbox, type CliResult } from './helpers.js';
import { stopInput } from './hook-inputs.js';
import { gapflow, mkfifo, type Run } from './watched-bin.js';

/*
 * What stands beside the log is input: a repository may commit a
 * `.gapflow/` holding anything. A symlink (to /dev/zero), a FIFO, or a
 * file past its limit at a side file's path is refused at once in one line
 * naming it (the lock, config.json, hook-state.json) or passed over as a
 * cache that is not there (the checkpoints), by the Stop hook, `gap open`
 * and `state`, through the bin's short paths and the full commands alike.
 * Nothing waits on it or reads it into memory.
 *
 * The bin runs watched (watched-bin.ts): killed at WATCH_MS, or past 1 GiB
 * of memory, so a regression fails here instead of hanging or swapping.
 */

const posix = process.platform !== 'win32';
const WATCH_MS = 10_000;
/** A refusal or a pass-over is a few opens and fstats: far under this, on a loaded machine too. */
const PROMPT_MS = 5_000;
/** Node itself is ~50 MB; nothing here holds more than a few small files. */
const RSS_BOUND_BYTES = 200 * 1024 * 1024;

/** What a planted side file does to each command: refuses it (naming the file), or nothing (not read, or a cache passed over). */
type Effect = 'refused' | 'passed';

interface SideFile {
  name: string;
  limit: InputLimit;
  hook: Effect;
  gapOpen: Effect | 'warned';
}

/**
 * Every file gapflow reads beside the log. The hook reads its state and,
 * blocking, takes the lock to keep it; `gap open` takes the lock and reads
 * the config after it wrote (status.md), which then warns; `state` reads
 * neither (a reader takes no lock), and every command passes a bad
 * checkpoint over.
 */
const SIDE_FILES: SideFile[] = [
  { name: 'hook-state.json', limit: HOOK_STATE_LIMIT, hook: 'refused', gapOpen: 'passed' },
  { name: 'events.jsonl.lock', limit: LOCK_FILE_LIMIT, hook: 'refused', gapOpen: 'refused' },
  { name: 'config.json', limit: SESSION_CONFIG_LIMIT, hook: 'passed', gapOpen: 'warned' },
  { name: 'checkpoint.json', limit: CHECKPOINT_LIMIT, hook: 'passed', gapOpen: 'passed' },
  { name: 'checkpoint.head.json', limit: CHECKPOINT_LIMIT, hook: 'passed', gapOpen: 'passed' },
  { name: 'checkpoint.closed.json', limit: CHECKPOINT_LIMIT, hook: 'passed', gapOpen: 'passed' },
  { name: 'checkpoint.state.json', limit: CHECKPOINT_LIMIT, hook: 'passed', gapOpen: 'passed' },
];

const PLANTS = {
  'a symlink to /dev/zero': { plant: (path: string) => symlinkSync('/dev/zero', path), is: 'a symbolic link, which gapflow does not follow' },
  'a FIFO': { plant: mkfifo, is: 'a FIFO, not a regular file' },
};

let box: Sandbox;
beforeEach(() => {
  box = new Sandbox();
});
afterEach(() => box.remove());

/** The session CONVERGING between rounds (so the hook blocks and keeps a count), with `name` replaced by what `plant` puts there. */
function plantedSession(name: string, plant: (path: string) => void): string {
  convergingAfterRoundOne(box);
  const path = join(box.dir, name);
  box.ok('state', '--json'); // leaves the stored state beside the head and the closed gaps' index
  // The plant takes the path itself.
  rmSync(path, { force: true });
  plant(path);
  return path;
}

/** The run ended by itself, soon, holding little memory. */
function expectPrompt(run: Run, what: string): void {
  expect(run.killedBecause, `${what} killed: ${run.killedBecause}; stderr: ${run.stderr}`).toBeNull();
  expect(run.ms, `${what} took ${run.ms} ms`).toBeLessThan(PROMPT_MS);
  expect(run.maxRssBytes, what).not.toBeNull();
  expect(run.maxRssBytes!, `${what} peak RSS`).toBeLessThan(RSS_BOUND_BYTES);
}

const asResult = (run: Run): CliResult => ({ code: run.code ?? -1, stdout: run.stdout, stderr: run.stderr });

/** The hook let the agent stop and told the user why, naming the file: a `systemMessage`, exit 0, the same line on stderr. */
function expectHookTold(result: CliResult, mentions: readonly string[]): void {
  expect(result.code).toBe(0);
  const answer = JSON.parse(result.stdout) as Record<string, string>;
  expect(Object.keys(answer)).toEqual(['systemMessage']);
  expect(answer.systemMessage).toMatch(/^gapflow hook: .*The hook let the agent stop/);
  expect(result.stderr).toMatch(/^gapflow hook: .*letting the agent stop\n$/);
  for (const mention of mentions) {
    expect(answer.systemMessage).toContain(mention);
    expect(result.stderr).toContain(mention);
  }
}

/** The hook answered as it does with nothing planted: CONVERGING blocks. */
function expectHookBlocked(result: CliResult): void {
  expect(result.code).toBe(0);
  expect(result.stderr).toBe('');
  expect((JSON.parse(result.stdout) as Record<string, string>).decision).toBe('block');
}

describe.skipIf(!posix)('a symlink or a FIFO at a side file, through the bin', () => {
  for (const [kind, { plant, is }] of Object.entries(PLANTS)) {
    it.each(SIDE_FILES)(
      `${kind} at $name: the hook, state and gap open answer at once`,
      async (file) => {
        const path = plantedSession(file.name, plant);
        const names = [path, is, `${file.limit.name} must be a regular file of at most ${formatBytes(file.limit.maxBytes)}`];

        const hook = await gapflow(['hook', 'claude', '--dir', box.dir], box.root, JSON.stringify(stopInput(box.root)), WATCH_MS);
        expectPrompt(hook, 'hook claude');
        if (file.hook === 'refused') expectHookTold(asResult(hook), names);
        else expectHookBlocked(asResult(hook));

        for (const argv of [['state', '--json'], ['state']]) {
          const state = await gapflow([...argv, '--dir', box.dir], box.root, '', WATCH_MS);
          expectPrompt(state, argv.join(' '));
          expect(state.code, state.stderr).toBe(0);
          expect(state.stderr).toBe('');
          expect(state.stdout).toContain('CONVERGING');
        }

        const gap = await gapflow(['gap', 'open', 'GAP-P', '--severity', 'LOW', '--title', 'Planted', '--dir', box.dir], box.root, '', WATCH_MS);
        expectPrompt(gap, 'gap open');
        if (file.gapOpen === 'refused') expectOneLineError(asResult(gap), 1, names);
        else {
          expect(gap.code, gap.stderr).toBe(0);
          expect(gap.stdout).toContain('Opened GAP-P');
          if (file.gapOpen === 'warned') for (const name of names) expect(gap.stderr).toContain(name);
          else expect(gap.stderr).toBe('');
        }
      },
      60_000,
    );
  }

  it('a reader that finds a torn tail asks after the lock: a FIFO there is refused at once, not waited on', async () => {
    const path = plantedSession('events.jsonl.lock', mkfifo);
    appendFileSync(box.logPath, '{"v":2,"seq":');
    const state = await gapflow(['state', '--dir', box.dir], box.root, '', WATCH_MS);
    expectPrompt(state, 'state');
    expectOneLineError(asResult(state), 1, [path, 'a FIFO', `${formatBytes(LOCK_FILE_LIMIT.maxBytes)}`]);
  }, 60_000);
});

describe('a side file past its limit, in-process', () => {
  /** A regular file of `bytes` at `name` (sparse: the size is there without the disk). */
  function oversized(name: string, bytes: number): string {
    const path = join(box.dir, name);
    rmSync(path, { force: true });
    writeFileSync(path, '');
    truncateSync(path, bytes);
    return path;
  }

  const hook = () => runCli(['hook', 'claude', '--dir', box.dir], { cwd: box.root, stdin: JSON.stringify(stopInput(box.root)) });
  const gapOpen = () => box.gf('gap', 'open', 'GAP-P', '--severity', 'LOW', '--title', 'Planted');
  const limitWords = (limit: InputLimit) => `over the ${formatBytes(limit.maxBytes)} limit of ${limit.name}`;

  it("hook-state.json past the hook state's limit: the hook tells the user, naming it and the limit, and lets the agent stop", () => {
    convergingAfterRoundOne(box);
    const path = oversized('hook-state.json', HOOK_STATE_LIMIT.maxBytes + 1);
    expectHookTold(hook(), [path, `${(HOOK_STATE_LIMIT.maxBytes + 1).toLocaleString('en-US')} bytes`, limitWords(HOOK_STATE_LIMIT)]);
  });

  it('a lock file past its limit is refused by a writer at once, naming it and the limit, with nothing written', () => {
    convergingAfterRoundOne(box);
    const before = box.logBytes();
    const path = join(box.dir, 'events.jsonl.lock');
    writeFileSync(path, 'x'.repeat(LOCK_FILE_LIMIT.maxBytes + 1));
    const started = Date.now();
    expectOneLineError(gapOpen(), 1, [path, limitWords(LOCK_FILE_LIMIT)]);
    expect(Date.now() - started).toBeLessThan(PROMPT_MS);
    expect(box.logBytes()).toEqual(before);
    expectHookTold(hook(), [path, limitWords(LOCK_FILE_LIMIT)]);
  });

  it('config.json past its limit is named with the limit (the write it follows stands)', () => {
    convergingAfterRoundOne(box);
    const path = join(box.dir, 'config.json');
    writeFileSync(path, `{"writeStatus":true,"pad":"${'x'.repeat(SESSION_CONFIG_LIMIT.maxBytes)}"}`);
    const result = gapOpen();
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain(path);
    expect(result.stderr).toContain(limitWords(SESSION_CONFIG_LIMIT));
  });

  it.each(['checkpoint.json', 'checkpoint.head.json', 'checkpoint.closed.json', 'checkpoint.state.json'])(
    '%s past the checkpoint limit is passed over, never read',
    (name) => {
      convergingAfterRoundOne(box);
      box.ok('state', '--json');
      oversized(name, CHECKPOINT_LIMIT.maxBytes + 1);
      const started = Date.now();
      expectHookBlocked(hook());
      expect(JSON.parse(box.ok('state', '--json').stdout)).toMatchObject({ state: 'CONVERGING' });
      expect(gapOpen().code).toBe(0);
      // Reading 512 MiB of zeros would take seconds and as much memory; passing it over takes an fstat.
      expect(Date.now() - started).toBeLessThan(PROMPT_MS);
    },
    30_000,
  );
});
