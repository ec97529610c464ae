import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from './cli/helpers.js';

const root = join(import.meta.dirname, '..');
const readme = readFileSync(join(root, 'README.md'), 'utf8');
// `npm test` builds first: this is the `gapflow` a user installs.
const bin = join(root, 'dist', 'gapflow.js');

/** The fenced blocks of one language in the README's section `heading`. */
function blocks(heading: string, language: string): string[] {
  const start = readme.indexOf(`### ${heading}\n`);
  expect(start, `README section "${heading}"`).toBeGreaterThanOrEqual(0);
  const end = readme.indexOf('\n### ', start + 1);
  const section = readme.slice(start, end < 0 ? undefined : end);
  return [...section.matchAll(new RegExp(`^\`\`\`${language}\\n([\\s\\S]*?)^\`\`\`$`, 'gm'))].map((m) => m[1]!);
}

describe('README: a loop in Python', () => {
  let work: string;
  beforeEach(() => {
    work = mkdtempSync(join(tmpdir(), 'gapflow-python-'));
  });
  afterEach(() => rmSync(work, { recursive: true, force: true }));

  it('the snippet runs with python3 against the built CLI and drives a session to COMPLETE (CONVERGED)', () => {
    const [snippet] = blocks('A loop in Python', 'python');
    expect(snippet).toBeDefined();
    // `gapflow` on the PATH, as after an install: a shim that runs the bundled CLI with this node.
    const shims = join(work, 'bin');
    const project = join(work, 'project');
    mkdirSync(shims);
    mkdirSync(project);
    writeFileSync(join(shims, 'gapflow'), `#!/bin/sh\nexec "${process.execPath}" "${bin}" "$@"\n`);
    chmodSync(join(shims, 'gapflow'), 0o755);
    writeFileSync(join(work, 'loop.py'), snippet!);

    // No skipping: a machine without python3 fails here with ENOENT.
    const python = spawnSync('python3', [join(work, 'loop.py')], {
      cwd: project,
      encoding: 'utf8',
      env: { PATH: `${shims}${delimiter}${process.env.PATH ?? ''}`, HOME: work },
      timeout: 60_000,
    });
    expect(python.error, 'python3 must be installed to run the README snippet').toBeUndefined();
    expect(python.stderr).toBe('');
    expect(python.status).toBe(0);

    // Three gaps, one resolved a round: rounds 1 and 2 converge, round 3 closes with nothing open.
    const lines = python.stdout.trimEnd().split('\n');
    expect(lines.filter((l) => l.startsWith('CONVERGING: continue'))).toHaveLength(3);
    expect(lines.at(-1)).toMatch(/^COMPLETE: stop \(the session is COMPLETE \(CONVERGED\)/);
    expect(python.stdout).toMatch(/^line 2: seq \d+ gap\.moved GAP-1$/m);

    const state = JSON.parse(runCli(['state', '--json'], { cwd: project }).stdout) as { state: string; outcome: string; round: number; gaps: { id: string; state: string }[] };
    expect(state).toMatchObject({ state: 'COMPLETE', outcome: 'CONVERGED', round: 3 });
    expect(state.gaps.map((g) => g.state)).toEqual(['RESOLVED', 'RESOLVED', 'RESOLVED']);
    const events = readFileSync(join(project, '.gapflow', 'events.jsonl'), 'utf8').trimEnd().split('\n').map((l) => JSON.parse(l) as { id: string; type: string });
    expect(events.filter((e) => e.id.startsWith('round-')).map((e) => e.id)).toEqual(['round-1-fix', 'round-2-fix', 'round-3-fix']);
  }, 60_000);
});

describe('README: the Claude Code hooks recipe', () => {
  it('is valid settings.json that runs `gapflow hook claude` on Stop and SubagentStop', () => {
    const [json] = blocks('Claude Code: the Stop and SubagentStop hooks', 'json');
    const settings = JSON.parse(json!) as { hooks: Record<string, { hooks: { type: string; command: string }[] }[]> };
    expect(Object.keys(settings.hooks).sort()).toEqual(['Stop', 'SubagentStop']);
    for (const groups of Object.values(settings.hooks)) {
      expect(groups.flatMap((g) => g.hooks)).toEqual([expect.objectContaining({ type: 'command', command: 'gapflow hook claude' })]);
    }
  });
});
