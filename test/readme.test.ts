import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { postgresServer } from './postgres.js';
import { runCli } from './cli/helpers.js';
import { blocks } from './docs/markdown.js';
import { WEIGHT } from './support.js';

const root = join(import.meta.dirname, '..');
// `npm test` builds first: this is the `gapflow` a user installs.
const bin = join(root, 'dist', 'gapflow.cjs');

/** A temporary folder with `gapflow` on the PATH, as after an install: a shim that runs the bundled CLI with this node. */
class Workspace {
  readonly root = mkdtempSync(join(tmpdir(), 'gapflow-docs-'));
  readonly project = join(this.root, 'project');
  readonly shims = join(this.root, 'bin');

  constructor() {
    mkdirSync(this.shims);
    mkdirSync(this.project);
    writeFileSync(join(this.shims, 'gapflow'), `#!/bin/sh\nexec "${process.execPath}" "${bin}" "$@"\n`);
    chmodSync(join(this.shims, 'gapflow'), 0o755);
  }

  /** Runs `command args` in the project with only the shims and the system's PATH. */
  run(command: string, args: string[], input?: string) {
    return spawnSync(command, args, {
      cwd: this.project,
      encoding: 'utf8',
      env: { PATH: `${this.shims}${delimiter}${process.env.PATH ?? ''}`, HOME: this.root },
      timeout: 60_000,
      ...(input === undefined ? {} : { input }),
    });
  }

  remove(): void {
    rmSync(this.root, { recursive: true, force: true });
  }
}

describe('README: a session from the command line', () => {
  let work: Workspace;
  beforeEach(() => {
    work = new Workspace();
  });
  afterEach(() => work.remove());

  it('the quick start runs as a shell script from an empty folder and closes round 1 as the README says', () => {
    const [script] = blocks('README.md', 'A session from the command line', 'sh');
    expect(script).toBeDefined();
    writeFileSync(join(work.root, 'quick-start.sh'), script!);
    const sh = work.run('sh', ['-e', join(work.root, 'quick-start.sh')]);
    expect(sh.stderr).toBe('');
    expect(sh.status).toBe(0);

    // One HIGH gap resolved and one LOW gap opened: weighted net 4 - 1.
    const net = WEIGHT.HIGH - WEIGHT.LOW;
    expect(sh.stdout).toContain(`Weighted net: +${net}`);
    // The round close's output the README shows is what the commands print.
    const [shown] = blocks('README.md', 'A session from the command line', '');
    expect(shown).toBeDefined();
    expect(sh.stdout).toContain(shown!);

    expect(existsSync(join(work.project, '.gapflow', 'status.md'))).toBe(true);
    const state = JSON.parse(runCli(['state', '--json'], { cwd: work.project }).stdout) as { state: string; round: number; openGapCount: number };
    expect(state).toMatchObject({ state: 'CONVERGING', round: 1, openGapCount: 2 });
  }, 60_000);
});

describe('README: many machines, one PostgreSQL database', () => {
  let work: Workspace;
  const databaseUrl = postgresServer();
  beforeEach(() => {
    work = new Workspace();
  });
  afterEach(() => work.remove());

  it("the block runs against a real server once its URL is the server's: the session, its fleet line and its exported log", () => {
    const [script] = blocks('README.md', 'Many machines: one PostgreSQL database', 'sh');
    expect(script).toMatch(/^export GAPFLOW_STORE='postgres:\/\/[^']+'/m);
    writeFileSync(join(work.root, 'postgres.sh'), script!.replace(/^export GAPFLOW_STORE='[^']+'/m, `export GAPFLOW_STORE='${databaseUrl()}'`));
    const sh = work.run('sh', ['-e', join(work.root, 'postgres.sh')]);
    expect(sh.stderr).toBe('');
    expect(sh.status).toBe(0);
    expect(sh.stdout).toMatch(/^payments-spec +CONVERGING /m);
    // What the block wrote: session.started and the one gap, line for line as the database holds them.
    const exported = readFileSync(join(work.project, 'payments.jsonl'), 'utf8');
    expect(
      exported
        .trimEnd()
        .split('\n')
        .map((line) => (JSON.parse(line) as { type: string }).type),
    ).toEqual(['session.started', 'gap.opened']);
    const state = JSON.parse(runCli(['state', '--json', '--store', databaseUrl(), '--session', 'payments-spec'], { cwd: work.project }).stdout) as {
      weightedOpen: number;
    };
    expect(state.weightedOpen).toBe(WEIGHT.HIGH);
  }, 60_000);
});

describe('docs/cli.md: a loop in Python', () => {
  let work: Workspace;
  beforeEach(() => {
    work = new Workspace();
  });
  afterEach(() => work.remove());

  it('the snippet runs with python3 against the built CLI and drives a session to COMPLETE (CONVERGED)', () => {
    const [snippet] = blocks('docs/cli.md', 'A loop in Python', 'python');
    expect(snippet).toBeDefined();
    writeFileSync(join(work.root, 'loop.py'), snippet!);

    // No skipping: a machine without python3 fails here with ENOENT.
    const python = work.run('python3', [join(work.root, 'loop.py')]);
    expect(python.error, 'python3 must be installed to run the snippet').toBeUndefined();
    expect(python.stderr).toBe('');
    expect(python.status).toBe(0);

    // Three gaps, one resolved a round: rounds 1 and 2 converge, round 3 closes with nothing open.
    const lines = python.stdout.trimEnd().split('\n');
    expect(lines.filter((l) => l.startsWith('CONVERGING: continue'))).toHaveLength(3);
    expect(lines.at(-1)).toMatch(/^COMPLETE: stop \(the session is COMPLETE \(CONVERGED\)/);
    expect(python.stdout).toMatch(/^line 2: seq \d+ gap\.moved GAP-1$/m);

    const state = JSON.parse(runCli(['state', '--json'], { cwd: work.project }).stdout) as {
      state: string;
      outcome: string;
      round: number;
      gaps: { id: string; state: string }[];
    };
    expect(state).toMatchObject({ state: 'COMPLETE', outcome: 'CONVERGED', round: 3 });
    expect(state.gaps.map((g) => g.state)).toEqual(['RESOLVED', 'RESOLVED', 'RESOLVED']);
    const events = readFileSync(join(work.project, '.gapflow', 'events.jsonl'), 'utf8')
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as { id: string; type: string });
    expect(events.filter((e) => e.id.startsWith('round-')).map((e) => e.id)).toEqual(['round-1-fix', 'round-2-fix', 'round-3-fix']);
  }, 60_000);
});

type Settings = { hooks: Record<string, { matcher?: string; hooks: { type: string; command: string }[] }[]> };

describe('README: the Claude Code Stop hook', () => {
  let work: Workspace;
  beforeEach(() => {
    work = new Workspace();
  });
  afterEach(() => work.remove());

  it('is valid settings.json with one Stop hook, whose command blocks the agent while round 1 is open and exits 0', () => {
    const [json] = blocks('README.md', 'Claude Code: a Stop hook', 'json');
    const settings = JSON.parse(json!) as Settings;
    expect(Object.keys(settings.hooks)).toEqual(['Stop']);
    const hooks = settings.hooks.Stop!.flatMap((g) => g.hooks);
    expect(hooks).toEqual([expect.objectContaining({ type: 'command', command: 'gapflow hook claude' })]);

    // Run the command as Claude Code would: through a shell, with a Stop hook's input on stdin.
    const input = (cwd: string) =>
      JSON.stringify({ session_id: 'sess-1', transcript_path: join(work.root, 't.jsonl'), cwd, hook_event_name: 'Stop', stop_hook_active: false });
    const silent = work.run('sh', ['-c', hooks[0]!.command], input(work.project));
    expect(silent.status).toBe(0);
    expect(JSON.parse(silent.stdout)).toEqual({}); // no session here: the agent stops, nothing said

    for (const argv of [['init'], ['gap', 'open', 'GAP-1', '--severity', 'HIGH'], ['round', 'start']]) expect(runCli(argv, { cwd: work.project }).code).toBe(0);
    const blocked = work.run('sh', ['-c', hooks[0]!.command], input(work.project));
    expect(blocked.stderr).toBe('');
    expect(blocked.status).toBe(0);
    const answer = JSON.parse(blocked.stdout) as { decision?: string; reason?: string };
    expect(answer.decision).toBe('block');
    expect(answer.reason).toContain('GAP-1');
  }, 60_000);
});

describe('docs/hooks.md: the Stop and SubagentStop hooks', () => {
  it('is valid settings.json that runs `gapflow hook claude` on Stop, and on SubagentStop only for the subagent types a matcher names', () => {
    const [json] = blocks('docs/hooks.md', 'Claude Code: the Stop and SubagentStop hooks', 'json');
    const settings = JSON.parse(json!) as Settings;
    expect(Object.keys(settings.hooks).sort()).toEqual(['Stop', 'SubagentStop']);
    for (const groups of Object.values(settings.hooks)) {
      expect(groups.flatMap((g) => g.hooks)).toEqual([expect.objectContaining({ type: 'command', command: 'gapflow hook claude' })]);
    }
    // Claude Code matches a SubagentStop matcher against the subagent's type: without one, `Explore` would be held to the loop too.
    for (const group of settings.hooks.SubagentStop!) {
      expect(group.matcher, 'a SubagentStop group names its agent types').toMatch(/^\^.+\$$/);
      const matcher = new RegExp(group.matcher!);
      expect(['Explore', 'Plan', 'general-purpose'].filter((type) => matcher.test(type))).toEqual([]);
    }
  });
});
