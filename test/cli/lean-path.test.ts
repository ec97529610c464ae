import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createFileSession, type Session } from '../../src/index.js';
import { runBin, TABLE, type CliIO } from '../../src/cli/index.js';
import { HEAD_FILE } from '../../src/log/index.js';
import { decodeHead } from '../../src/core/index.js';
import { diverge, fixedStamps, tempDirs } from '../support.js';
import { runCli, type CliResult } from './helpers.js';

/*
 * `next` and a stop hook run on every turn of an agent's loop, so when the
 * head checkpoint is current the bin answers them without loading zod,
 * xstate or immer (src/cli/head-answers.ts), and answers them as the full
 * commands do, byte for byte.
 */

const tempDir = tempDirs('gapflow-lean-');
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIN = join(ROOT, 'dist', 'gapflow.cjs');
const HEAVY = ['node_modules/zod/', 'node_modules/xstate/', 'node_modules/immer/'];

/** A session whose log is past the size that earns a head checkpoint (64 KiB), ending CONVERGING or FLAT. */
function longSession(dir: string, rounds = 60): Session {
  const session = createFileSession(dir, { maxRounds: 10_000, stallThreshold: 50 }, fixedStamps());
  for (let r = 0; r < rounds; r++) {
    session.startRound();
    session.openGap(`G-${r}-a`, 'HIGH', { title: `first of round ${r}` });
    session.openGap(`G-${r}-b`, 'LOW', { title: `second of round ${r}` });
    session.moveGap(`G-${r}-b`, 'IN_PROGRESS');
    session.moveGap(`G-${r}-b`, 'BLOCKED', { reason: 'waits on a', blockedBy: `G-${r}-a` });
    if (r > 0) session.moveGap(`G-${r - 1}-a`, 'RESOLVED');
    session.closeRound();
    if (session.view.machine.state === 'DIVERGENCE_WARNING') session.makeDecision('accept_complexity');
  }
  expect(existsSync(join(dir, HEAD_FILE))).toBe(true);
  return session;
}

/** A long session ending in DIVERGENCE_WARNING: the prompt has everything to show. */
function divergedSession(dir: string): Session {
  return diverge(longSession(dir), 'G-59-a');
}

/** A long session whose last rounds resolve eight of the blocked LOW gaps each: its forecast has a trend to read (from the head's series, on the short path). */
function decliningSession(dir: string): Session {
  const session = longSession(dir);
  for (let r = 0; r < 5; r++) {
    session.startRound();
    for (let g = r * 8; g < r * 8 + 8; g++) session.moveGap(`G-${g}-b`, 'RESOLVED');
    session.closeRound();
  }
  return session;
}

const stop = (agent: string, active = false) => JSON.stringify({ session_id: agent, hook_event_name: 'Stop', stop_hook_active: active });

/** One call through the bin's loader (which takes the head's short path when it can), in-process. */
async function viaBin(argv: string[], cwd: string, stdin?: string): Promise<CliResult> {
  const out = { code: 0, stdout: '', stderr: '' };
  const io: Omit<CliIO, 'stdin'> & Pick<CliIO, 'stdin'> = {
    stdout: (text) => void (out.stdout += text),
    stderr: (text) => void (out.stderr += text),
    env: {},
    cwd,
    ...(stdin === undefined ? {} : { stdin: () => stdin }),
  };
  out.code = await runBin(argv, io, () => Promise.resolve(), TABLE);
  return out;
}

describe('next and the stop hook, answered from a current head', { timeout: 60_000 }, () => {
  it('answer as the full commands do, whatever the session says', async () => {
    for (const make of [longSession, divergedSession, decliningSession]) {
      // Two sessions alike: the full commands (`run`) answer in one, the bin in the other.
      const [full, bin] = [tempDir(), tempDir()];
      make(full);
      make(bin);
      const neutral = (result: CliResult, dir: string): CliResult => ({
        ...result,
        stdout: result.stdout.split(dir).join('DIR'),
        stderr: result.stderr.split(dir).join('DIR'),
      });
      // The first hook call binds the session (a write, on the full path); the calls after it read the head.
      const calls: [(dir: string) => string[], string?][] = [
        [(dir) => ['next', '--json', '--dir', dir]],
        [(dir) => ['hook', 'claude', '--dir', dir], stop('agent-1')],
        [(dir) => ['next', '--dir', dir]],
        [(dir) => ['next', '--json', '--dir', dir]],
        [(dir) => ['--dir', dir, 'next', '--json']],
        [(dir) => ['hook', 'claude', '--dir', dir], stop('agent-1')],
        [(dir) => ['hook', 'claude', '--dir', dir, '--max-blocks', '1'], stop('agent-1', true)],
        [(dir) => ['hook', 'claude', '--dir', dir, '--max-blocks', '1'], stop('agent-1', true)],
        [(dir) => ['hook', 'claude', '--dir', dir], stop('agent-2')],
        [(dir) => ['hook', 'claude', '--dir', dir], '{"session_id":""}'],
        [(dir) => ['hook', 'claude', '--dir', dir], 'not json'],
        [(dir) => ['hook', 'claude', '--dir', dir, '--max-blocks', '-1'], stop('agent-1')],
        [(dir) => ['next', '--dir', dir, 'extra']],
        [(dir) => ['next', '--bogus', '--dir', dir]],
        [(dir) => ['next', '--dir', `${dir}-none`]],
      ];
      for (const [argv, stdin] of calls) {
        const expected = neutral(runCli(argv(full), { cwd: full, ...(stdin === undefined ? {} : { stdin }) }), full);
        const actual = neutral(await viaBin(argv(bin), bin, stdin), bin);
        expect(actual, `${make.name}: ${argv('DIR').join(' ')}`).toEqual(expected);
      }
      // The blocks in a row each kept for the next call (none when no call blocked).
      const hookState = (dir: string) => (existsSync(join(dir, 'hook-state.json')) ? readFileSync(join(dir, 'hook-state.json'), 'utf8') : null);
      expect(hookState(bin)).toBe(hookState(full));
      if (make === decliningSession) {
        const answered = JSON.parse((await viaBin(['next', '--json', '--dir', bin], bin)).stdout) as { forecast: { reason: string } };
        expect(answered.forecast.reason).toBe('declining');
      }
    }
  });
});

describe('gap writes, decided on a current head', { timeout: 60_000 }, () => {
  it('print, write and leave the head through the bin in process as the bundled bin does, refusals and reopens included', async () => {
    const [full, bin] = [tempDir(), tempDir()];
    for (const dir of [full, bin]) {
      longSession(dir);
      runCli(['round', 'start', '--dir', dir], { cwd: dir });
    }
    const calls = [
      ['gap', 'open', 'Q-1', '--severity', 'high', '--title', 'quick'],
      ['gap', 'open', 'Q-2', '--severity', 'LOW', '--spawned-by', 'G-0-a', '--non-blocking'],
      ['gap', 'move', 'Q-1', 'in-progress'],
      ['gap', 'move', 'Q-1', 'BLOCKED', '--blocked-by', 'Q-2', '--reason', 'waits on Q-2'],
      ['gap', 'severity', 'Q-2', 'critical'],
      ['gap', 'move', 'Q-2', 'RESOLVED'],
      // Refused, or beyond the head: a reused id, an unknown gap, a bad value, a reopen (the whole view), --json.
      ['gap', 'open', 'Q-2', '--severity', 'LOW'],
      ['gap', 'move', 'NOPE', 'RESOLVED'],
      ['gap', 'open', 'Q-3', '--severity', 'HUGE'],
      ['gap', 'open', 'Q 3', '--severity', 'LOW'],
      ['gap', 'move', 'G-0-a', 'OPEN'],
      ['gap', 'open', 'Q-4', '--severity', 'LOW', '--json'],
      ['gap', 'open', 'Q-5', '--severity', 'MEDIUM', '--title', 'after the others'],
    ];
    const index = (dir: string) => readFileSync(join(dir, 'checkpoint.closed.json'), 'utf8');
    for (const call of calls) {
      const expected = runCli([...call, '--dir', full], { cwd: full });
      const actual = await viaBin([...call, '--dir', bin], bin);
      const neutral = (result: CliResult) => ({
        ...result,
        stdout: result.stdout.replace(/"id": "[^"]+"/g, '"id": "ID"').replace(/"at": "[^"]+"/g, '"at": "AT"'),
      });
      expect(neutral(actual), call.join(' ')).toEqual(neutral(expected));
    }
    // The events as the full command recorded them, ids, times and checksums aside.
    const events = (dir: string) =>
      readFileSync(join(dir, 'events.jsonl'), 'utf8')
        .replace(/"id":"[^"]*","at":"[^"]*"/g, '"id":"ID","at":"AT"')
        .replace(/,"sum":"[0-9a-f]+"\}/g, '}');
    expect(events(bin)).toBe(events(full));
    expect(index(bin).slice(index(bin).indexOf('\n'))).toBe(index(full).slice(index(full).indexOf('\n')));
    // The heads as the full command left them, the last event's time aside (each call stamps its own).
    const heads = (dir: string) => {
      const text = readFileSync(join(dir, 'checkpoint.head.json'), 'utf8');
      const head = decodeHead(text.slice(text.indexOf('\n') + 1))!;
      expect(head.lastAt).toMatch(/^\d{4}-\d\d-\d\dT/);
      return { ...head, lastAt: 'AT' };
    };
    expect(heads(bin)).toEqual(heads(full));
  });
});

/** The esbuild commands of the build script, as package.json has them (the split bundle, and the short path's own). */
function buildCommands(): string[][] {
  const { scripts } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: { build: string } };
  const commands = scripts.build
    .split('&&')
    .map((step) => step.trim())
    .filter((step) => step.startsWith('esbuild '))
    // Words as a shell reads them: a "quoted" part (the launcher's banner) keeps its spaces.
    .map((step) =>
      (
        step
          .slice('esbuild '.length)
          .trim()
          .match(/(?:[^\s"]+|"[^"]*")+/g) ?? []
      ).map((word) => word.replaceAll('"', '')),
    );
  expect(commands.length).toBeGreaterThan(0);
  return commands;
}

/** Each output of the bundle (named as dist names it: `gapflow.js`, `chunks/…`) with the source files in it. */
function bundleInputs(): Map<string, string[]> {
  const out = tempDir();
  const meta = join(out, 'meta.json');
  const outputs: Record<string, { inputs: Record<string, unknown> }> = {};
  for (const command of buildCommands()) {
    const words = command.map((word) => (word.startsWith('--outdir=') ? `--outdir=${out}` : word));
    execFileSync(join(ROOT, 'node_modules', '.bin', 'esbuild'), [...words, `--metafile=${meta}`], { cwd: ROOT, stdio: 'pipe' });
    Object.assign(outputs, (JSON.parse(readFileSync(meta, 'utf8')) as { outputs: typeof outputs }).outputs);
  }
  return new Map(
    Object.entries(outputs).map(([path, output]) => {
      const name = path.replaceAll('\\', '/').split('/').slice(-2);
      return [name[0] === 'chunks' ? name.join('/') : name[1]!, Object.keys(output.inputs)];
    }),
  );
}

/** The files of dist the bin loads to answer `argv`, as a loader hook sees them load. */
function loadedBy(argv: string[], stdin?: string): string[] {
  const box = tempDir();
  const log = join(box, 'loaded.txt');
  writeFileSync(
    join(box, 'hooks.mjs'),
    `import { appendFileSync } from 'node:fs';\nexport async function load(url, context, next) {\n  if (url.startsWith('file:')) appendFileSync(${JSON.stringify(log)}, url + '\\n');\n  return next(url, context);\n}\n`,
  );
  writeFileSync(join(box, 'register.mjs'), `import { register } from 'node:module';\nregister('./hooks.mjs', import.meta.url);\n`);
  execFileSync(process.execPath, ['--import', join(box, 'register.mjs'), BIN, ...argv], { input: stdin ?? '', stdio: 'pipe' });
  const dist = join(ROOT, 'dist');
  return readFileSync(log, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((url) => fileURLToPath(url))
    .filter((file) => file.startsWith(dist))
    .map((file) => (basename(join(file, '..')) === 'chunks' ? `chunks/${basename(file)}` : basename(file)));
}

describe('the bundled bin (npm run build), answering from a current head', () => {
  it('loads no zod, xstate or immer for next, next --json, a bound session’s stop hook and a current state --json', { timeout: 120_000 }, () => {
    const dir = tempDir();
    longSession(dir);
    runCli(['hook', 'claude', '--dir', dir], { cwd: dir, stdin: stop('agent-1') }); // binds the session
    runCli(['state', '--json', '--dir', dir], { cwd: dir }); // stores its output
    const inputs = bundleInputs();
    const calls = [
      [['next', '--dir', dir]],
      [['next', '--json', '--dir', dir]],
      [['hook', 'claude', '--dir', dir], stop('agent-1')],
      [['state', '--json', '--dir', dir]],
    ] as const;
    for (const [argv, stdin] of calls) {
      const loaded = loadedBy([...argv], stdin);
      expect(loaded).toContain('gapflow.js');
      for (const file of loaded) {
        // A file the fresh build does not name: dist is older than the sources (run npm run build).
        expect(inputs.has(file), `${file} is not in a fresh build`).toBe(true);
        const heavy = inputs.get(file)!.filter((input) => HEAVY.some((lib) => input.includes(lib)));
        expect(heavy, `${argv.join(' ')} loads ${file}`).toEqual([]);
      }
    }
  });
});

describe('the bin (dist/gapflow.cjs)', { timeout: 60_000 }, () => {
  /** Node's own modules loaded by one call of the bin, as `process.moduleLoadList` names them at exit. */
  function nodeModulesLoadedBy(argv: string[]): string[] {
    const box = tempDir();
    const list = join(box, 'modules.json');
    writeFileSync(
      join(box, 'list.cjs'),
      `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(list)}, JSON.stringify(process.moduleLoadList)));\n`,
    );
    execFileSync(process.execPath, ['--require', join(box, 'list.cjs'), BIN, ...argv], { stdio: 'pipe', env: { ...process.env, GAPFLOW_CODE_CACHE: 'off' } });
    return JSON.parse(readFileSync(list, 'utf8')) as string[];
  }

  it('runs a write without starting the ES module loader, and any other call through it', () => {
    const dir = join(tempDir(), '.gapflow');
    runCli(['init', '--dir', dir], { cwd: tempDir() });
    // A module job is what the loader makes for each module it runs (an entry costs a call ~7 ms before its first line).
    const job = 'NativeModule internal/modules/esm/module_job';
    expect(nodeModulesLoadedBy(['gap', 'open', 'G-1', '--severity', 'LOW', '--dir', dir])).not.toContain(job);
    expect(nodeModulesLoadedBy(['next', '--dir', dir])).toContain(job);
  });
});
