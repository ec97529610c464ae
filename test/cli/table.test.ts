import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { commandHelp, entryHelp, HELP, run, runBin, TABLE, WRITE_COMMANDS, WRITE_ENTRIES, type CliIO } from '../../src/cli/index.js';
import type { CliResult } from './helpers.js';

/*
 * The command table (src/cli/table.ts) is the one place a command is
 * named: its parsing, its help, "did you mean" and the docs' list all come
 * from it or are held to it here.
 */

const NAMES = TABLE.map((entry) => entry.name);

function io(out: CliResult): CliIO {
  return { stdout: (text) => void (out.stdout += text), stderr: (text) => void (out.stderr += text), env: {}, cwd: '/nonexistent-gapflow-table' };
}

function viaRun(argv: string[]): CliResult {
  const out = { code: 0, stdout: '', stderr: '' };
  out.code = run(argv, io(out));
  return out;
}

async function viaBin(argv: string[]): Promise<CliResult> {
  const out = { code: 0, stdout: '', stderr: '' };
  out.code = await runBin(argv, { ...io(out), stdin: () => '' }, () => Promise.resolve(), TABLE);
  return out;
}

/** `name` with its last two letters swapped (`statsu`), or a letter added to a short one (`gapp`). */
function typo(name: string): string {
  return name.length < 4 ? `${name}${name.at(-1)!}` : `${name.slice(0, -2)}${name.at(-1)!}${name.at(-2)!}`;
}

describe('the command table', () => {
  it('names each command once', () => {
    expect(new Set(NAMES).size).toBe(NAMES.length);
    expect(NAMES.length).toBeGreaterThan(20);
  });

  it('begins with the write commands, which the bin knows by name alone (launch.ts)', () => {
    expect(TABLE.slice(0, WRITE_ENTRIES.length)).toEqual(WRITE_ENTRIES);
    expect(WRITE_ENTRIES.map((entry) => entry.name)).toEqual(WRITE_COMMANDS);
    // Each takes dispatch from the write bundle, and no other command does.
    expect(TABLE.filter((entry) => entry.dispatch !== undefined)).toEqual(WRITE_ENTRIES);
  });

  it('gives every command help that names it, under a section', () => {
    for (const entry of TABLE) {
      const help = entryHelp(entry);
      expect(help.trim(), entry.name).not.toBe('');
      for (const line of help.split('\n')) expect(line, entry.name).toMatch(/^ {2}\S|^ {5,}\S/);
      expect(help.startsWith(`  ${entry.name} `) || help === `  ${entry.name}`, `${entry.name}: ${help.split('\n')[0]}`).toBe(true);
      expect(entry.section.heading, entry.name).not.toBe('');
    }
  });

  it('`gapflow --help` lists every command of the table, in its section', () => {
    const result = viaRun(['--help']);
    expect(result).toEqual({ code: 0, stdout: HELP, stderr: '' });
    for (const entry of TABLE) {
      const at = HELP.indexOf(`\n${entryHelp(entry)}\n`);
      expect(at, entry.name).toBeGreaterThan(0);
      // Its section's heading is the nearest one above it.
      const headings = TABLE.map((other) => other.section.heading);
      const above = HELP.slice(0, at)
        .split('\n')
        .filter((line) => headings.includes(line))
        .at(-1);
      expect(above, entry.name).toBe(entry.section.heading);
    }
  });

  it('`gapflow COMMAND --help` prints that command’s help and exits 0, in the bin and in run', async () => {
    for (const entry of TABLE) {
      const words = entry.verb ? [entry.name, '--help'] : [entry.name, '-h'];
      const expected = { code: 0, stdout: commandHelp(entry), stderr: '' };
      expect(viaRun(words), entry.name).toEqual(expected);
      expect(await viaBin(words), entry.name).toEqual(expected);
      expect(expected.stdout).toContain(entryHelp(entry));
    }
  });

  it('answers a mistyped command with the nearest one, exit 2', async () => {
    for (const name of NAMES) {
      const expected = {
        code: 2,
        stdout: '',
        stderr: `gapflow: unknown command "${typo(name)}" (did you mean ${name}?) (gapflow --help lists the commands)\n`,
      };
      expect(viaRun([typo(name)]), name).toEqual(expected);
      expect(await viaBin([typo(name)]), name).toEqual(expected);
    }
    expect(viaRun(['zzzzzzzz']).stderr).not.toContain('did you mean');
  });

  it('runs a command that stays up only from the bin', () => {
    for (const entry of TABLE.filter((candidate) => candidate.stays)) {
      const result = viaRun([entry.name]);
      expect(result.code, entry.name).toBe(2);
      expect(result.stderr, entry.name).toContain(`${entry.name} stays up until interrupted`);
    }
    expect(TABLE.filter((entry) => entry.stays).map((entry) => entry.name)).toEqual(['mcp', 'inspect', 'watch', 'serve']);
  });
});

describe('docs/cli.md', () => {
  it('lists the same commands as the table, in its Commands table', () => {
    const docs = readFileSync(new URL('../../docs/cli.md', import.meta.url), 'utf8');
    const section = docs.slice(docs.indexOf('\n## Commands\n'), docs.indexOf('\n## ', docs.indexOf('\n## Commands\n') + 1));
    const rows = section.split('\n').filter((line) => line.startsWith('| `'));
    expect(rows.length).toBeGreaterThan(0);
    // Each row's command: the first word of its first code span (`gap move ID STATE …`).
    const listed = new Set(rows.map((row) => /^\| `([a-z-]+)/.exec(row)![1]!));
    expect([...listed].sort()).toEqual([...NAMES].sort());
  });
});
