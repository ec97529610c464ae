import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { run, runBin, TABLE, type CliIO } from '../../src/cli/index.js';
import { Sandbox, type CliResult } from './helpers.js';

/*
 * The bin loads only the command it is asked for (src/cli/table.ts), `run`
 * has every command at hand: the two must be one CLI, answer for answer.
 */

function io(box: Sandbox, out: CliResult): Omit<CliIO, 'stdin'> {
  return {
    stdout: (text) => void (out.stdout += text),
    stderr: (text) => void (out.stderr += text),
    env: {},
    cwd: box.root,
    version: () => '9.9.9',
  };
}

/** One call through `run`, in `box`, its folder, timestamps, event ids and checksums written as words so two sandboxes compare. */
function viaRun(box: Sandbox, argv: string[]): CliResult {
  const out = { code: 0, stdout: '', stderr: '' };
  out.code = run(argv, io(box, out));
  return neutral(box, out);
}

async function viaBin(box: Sandbox, argv: string[]): Promise<CliResult> {
  const out = { code: 0, stdout: '', stderr: '' };
  out.code = await runBin(argv, io(box, out), () => Promise.resolve(), TABLE);
  return neutral(box, out);
}

function neutral(box: Sandbox, out: CliResult): CliResult {
  const path = (text: string) =>
    text
      .split(box.root)
      .join('ROOT')
      .replace(/\d{4}-\d\d-\d\dT[\d:.]+Z/g, 'AT')
      .replace(/"id": "[\w-]{21}"/g, '"id": "ID"')
      .replace(/\b[0-9a-f]{16}\b/g, 'SUM');
  return { code: out.code, stdout: path(out.stdout), stderr: path(out.stderr) };
}

let a: Sandbox;
let b: Sandbox;
beforeEach(() => {
  a = new Sandbox();
  b = new Sandbox();
});
afterEach(() => {
  a.remove();
  b.remove();
});

describe('the bin and run are one CLI', () => {
  it('answers every call as run does: help, version, usage errors, refusals, writes and reads', async () => {
    const calls = [
      [],
      ['--help'],
      ['-h'],
      ['help'],
      ['--version'],
      ['--dir', 'session', '--version'],
      ['nope'],
      ['Hook', 'claude'],
      ['hook'],
      ['next', '--help'],
      ['gap', '-h'],
      ['inspect', '--help'],
      ['state', '--dir', 'session'],
      ['init', '--dir', 'session', '--max-rounds', 'lots'],
      ['init', '--dir', 'session', '--bogus'],
      ['init', '--dir', 'session'],
      ['--dir', 'session', 'gap', 'open', 'G-1', '--severity', 'HIGH'],
      ['gap', '--dir', 'session', 'open', 'G-2', '--severity', 'urgent'],
      ['round', 'start', '--dir', 'session', '--json'],
      ['next', '--dir', 'session'],
      ['next', '--json', '--dir', 'session'],
      ['state', '--json', '--dir', 'session'],
      ['verify', '--dir', 'session'],
      ['schema', 'extra'],
      ['viz', '--format', 'png', '--dir', 'session'],
    ];
    for (const argv of calls) {
      const expected = viaRun(a, argv);
      expect(await viaBin(b, argv), argv.join(' ')).toEqual(expected);
    }
  });
});

const BIN = fileURLToPath(new URL('../../dist/gapflow.cjs', import.meta.url));

/** The files a module loads before it runs (its static imports, theirs, and so on), itself included. */
function staticClosure(file: string, seen = new Set<string>()): Set<string> {
  if (seen.has(file)) return seen;
  seen.add(file);
  // `import{a}from"./x.js"` and `import"./x.js"`, not `import("./x.js")`, which loads only when a call asks for it.
  for (const [, path] of readFileSync(file, 'utf8').matchAll(/\bimport\s*(?:\{[^}]*\}|\*\s*as\s+[\w$]+|[\w$]+)?\s*(?:from\s*)?"(\.{1,2}\/[^"]+)"/g)) {
    staticClosure(resolve(dirname(file), path!), seen);
  }
  return seen;
}

describe('the bundled bin (npm run build)', () => {
  // The command table, with each command's help text, is most of it (src/cli/table.ts); a schema or statechart is ten times that.
  it('loads a few kilobytes before it knows the command: no schema, statechart or renderer', () => {
    const files = [...staticClosure(BIN)];
    const bytes = files.reduce((sum, file) => sum + readFileSync(file).length, 0);
    expect(bytes, files.join(', ')).toBeLessThan(16_000);
  });

  it('answers --version from that alone', { timeout: 30_000 }, () => {
    const { version } = JSON.parse(readFileSync(join(dirname(BIN), '..', 'package.json'), 'utf8')) as { version: string };
    expect(execFileSync(process.execPath, [BIN, '--version'], { encoding: 'utf8' })).toBe(`${version}\n`);
  });
});
