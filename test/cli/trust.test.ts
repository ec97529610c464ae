import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { postgresServer } from '../postgres.js';
import { stopInput } from './hook-inputs.js';
import { runCli, Sandbox, type CliResult } from './helpers.js';

/*
 * A session's check command runs only by this user's choice on this
 * machine: set here with `init --verify`, or approved with `gapflow trust
 * --allow`. A command that arrived with the session (an import, a
 * hand-edited log, an edited database row) is named and not run, and the
 * session does not complete. A session folder someone else owns or may
 * write is not used until the user allows it.
 */

const TIMEOUT = 60_000;
const boxes: Sandbox[] = [];
afterEach(() => {
  for (const box of boxes.splice(0)) box.remove();
});

function sandbox(): Sandbox {
  const box = new Sandbox();
  boxes.push(box);
  return box;
}

/** A check that leaves a file named `name` in the sandbox when it runs: proof that it ran. */
const leaves = (name: string) => `touch ${name}`;

/** A session whose round 1 resolves its one gap (closing it would converge), made with `config` as the user's config folder. */
function readyToConverge(box: Sandbox, check: string, env: Record<string, string> = {}): void {
  const gf = (...argv: string[]) => {
    const result = runCli([...argv, '--dir', box.dir], { cwd: box.root, env });
    expect(result.stderr, argv.join(' ')).toBe('');
    expect(result.code, argv.join(' ')).toBe(0);
  };
  gf('init', '--verify', check);
  for (const step of ['gap open A --severity LOW', 'round start', 'gap move A RESOLVED']) gf(...step.split(' '));
}

/** Another user's config folder: what they set or approved there is nothing here. */
function elsewhere(): Record<string, string> {
  const config = mkdtempSync(join(tmpdir(), 'gapflow-other-user-'));
  return { XDG_CONFIG_HOME: config };
}

function expectNotRun(result: CliResult, command: string): void {
  expect(result.code).toBe(1);
  expect(result.stdout).toBe('');
  // One line, naming the command and how to approve it.
  expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
  expect(result.stderr).toContain(`the check ${JSON.stringify(command)} was not run`);
  expect(result.stderr).toContain('gapflow trust --allow');
}

describe('a check command that came with the session is not run', { timeout: TIMEOUT }, () => {
  it('an imported log: the close is refused naming the command, nothing is written, the session stays live; once approved it runs', () => {
    const source = sandbox();
    readyToConverge(source, leaves('pwned'), elsewhere());
    const exported = join(source.root, 'export.jsonl');
    expect(source.gf('export', '--out', exported).code).toBe(0);

    const box = sandbox();
    expect(box.gf('import', exported).code).toBe(0);
    const before = box.logBytes();
    const closed = box.gf('round', 'close');
    expectNotRun(closed, 'touch pwned');
    expect(existsSync(join(box.root, 'pwned'))).toBe(false);
    expect(box.logBytes()).toEqual(before);
    expect(box.stateJson()).toMatchObject({ state: 'CONVERGING', roundOpen: true });
    // Approving is the same: refused before anything runs.
    expect(box.gf('decide', 'approve').code).toBe(1);
    expect(existsSync(join(box.root, 'pwned'))).toBe(false);

    const shown = box.gf('trust');
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain('  | touch pwned\n');
    expect(shown.stdout).toContain('Not approved on this machine');
    expect(box.gf('trust', '--allow').code).toBe(0);
    const approved = box.gf('round', 'close');
    expect(approved.code, approved.stderr).toBe(0);
    expect(existsSync(join(box.root, 'pwned'))).toBe(true);
    expect(box.stateJson()).toMatchObject({ state: 'COMPLETE', outcome: 'CONVERGED' });
  });

  it('next and the stop hook say, while it is not approved, that the session cannot complete; next --json says whether it is', () => {
    const source = sandbox();
    readyToConverge(source, leaves('pwned'), elsewhere());
    const box = sandbox();
    expect(box.gf('import', source.dir).code).toBe(0);
    const note = 'is not approved on this machine, so it will not run and the session cannot complete: ask the user to read and approve it (gapflow trust)';
    const next = box.gf('next');
    expect(next.stdout).toMatch(/^continue: /);
    expect(next.stdout).toContain(`this session's check "touch pwned" ${note}`);
    expect(JSON.parse(box.gf('next', '--json').stdout)).toMatchObject({ verification: { command: 'touch pwned', approvedHere: false } });
    const hook = runCli(['hook', 'claude', '--dir', box.dir], { cwd: box.root, stdin: JSON.stringify(stopInput(box.root)) });
    const answer = JSON.parse(hook.stdout) as { decision?: string; reason?: string };
    expect(answer.decision).toBe('block');
    expect(answer.reason).toContain(note);
    expect(box.gf('trust', '--allow').code).toBe(0);
    expect(box.gf('next').stdout).not.toContain('not approved');
    expect(JSON.parse(box.gf('next', '--json').stdout)).toMatchObject({ verification: { approvedHere: true } });
    expect(existsSync(join(box.root, 'pwned'))).toBe(false);
  });

  it('a batch that would complete is refused whole, the check not run', () => {
    const source = sandbox();
    readyToConverge(source, leaves('pwned'), elsewhere());
    const box = sandbox();
    expect(box.gf('import', source.dir).code).toBe(0);
    const before = box.logBytes();
    const appended = runCli(['append', '--dir', box.dir], { cwd: box.root, stdin: '{"type":"round.closed","data":{"round":1}}\n' });
    expectNotRun(appended, 'touch pwned');
    expect(existsSync(join(box.root, 'pwned'))).toBe(false);
    expect(box.logBytes()).toEqual(before);
  });

  it("a hand-edited first line: the edited command is the session's, and it does not run", () => {
    const box = sandbox();
    readyToConverge(box, leaves('fine'));
    // The edit leaves the line's checksum wrong, which only `verify` reads; every other read takes the session as it stands.
    const edited = readFileSync(box.logPath, 'utf8').replace('"command":"touch fine"', '"command":"touch pwned"');
    writeFileSync(box.logPath, edited);
    for (const cache of ['checkpoint.json', 'head.json', 'state.json']) rmSync(join(box.dir, cache), { force: true });
    expect(JSON.parse(box.gf('trust', '--json').stdout)).toMatchObject({ command: 'touch pwned', approved: false });
    expectNotRun(box.gf('round', 'close'), 'touch pwned');
    expect(existsSync(join(box.root, 'pwned'))).toBe(false);
  });

  it('the command set here with init --verify runs; revoked, it does not', () => {
    const box = sandbox();
    readyToConverge(box, leaves('mine'));
    expect(JSON.parse(box.gf('trust', '--json').stdout)).toMatchObject({ command: 'touch mine', approved: true });
    expect(box.gf('trust', '--revoke').code).toBe(0);
    expectNotRun(box.gf('round', 'close'), 'touch mine');
    expect(existsSync(join(box.root, 'mine'))).toBe(false);
    expect(box.gf('trust', '--allow').code).toBe(0);
    expect(box.gf('round', 'close').code).toBe(0);
    expect(existsSync(join(box.root, 'mine'))).toBe(true);
  });

  it('an approval is for one folder: a copy of the session elsewhere asks again', () => {
    const box = sandbox();
    readyToConverge(box, leaves('copied'));
    const copy = sandbox();
    mkdirSync(copy.dir);
    writeFileSync(copy.logPath, readFileSync(box.logPath));
    expectNotRun(copy.gf('round', 'close'), 'touch copied');
    expect(existsSync(join(copy.root, 'copied'))).toBe(false);
  });
});

describe('a database session whose row was edited', { timeout: TIMEOUT }, () => {
  const databaseUrl = postgresServer();
  const root = mkdtempSync(join(tmpdir(), 'gapflow-trust-db-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const gf = (...argv: string[]) => runCli([...argv, '--store', databaseUrl(), '--session', 'edited'], { cwd: root, env: { CLAUDE_PROJECT_DIR: root } });

  it('runs not the command the row now holds, and names it', async () => {
    for (const step of [
      ['init', '--verify', 'touch fine'],
      ['gap', 'open', 'A', '--severity', 'LOW'],
      ['round', 'start'],
      ['gap', 'move', 'A', 'RESOLVED'],
    ]) {
      const result = gf(...step);
      expect(result.code, result.stderr).toBe(0);
    }
    const sql = new pg.Client({ connectionString: databaseUrl() });
    await sql.connect();
    try {
      const { rowCount } = await sql.query(
        `UPDATE gapflow.events SET line = replace(line, '"command":"touch fine"', '"command":"touch pwned"') WHERE stream = 'edited' AND seq = 1`,
      );
      expect(rowCount).toBe(1);
      await sql.query(`DELETE FROM gapflow.checkpoints WHERE stream = 'edited'`);
    } finally {
      await sql.end();
    }
    expect(JSON.parse(gf('trust', '--json').stdout)).toMatchObject({ command: 'touch pwned', approved: false });
    expectNotRun(gf('round', 'close'), 'touch pwned');
    expect(existsSync(join(root, 'pwned'))).toBe(false);
    expect(JSON.parse(gf('state', '--json').stdout)).toMatchObject({ state: 'CONVERGING', roundOpen: true });
  });
});

describe('a session folder that is not the user’s alone is not written or run from', { timeout: TIMEOUT }, () => {
  /** A session in `<root>/shared/.gapflow` whose check leaves `ran`, and a project folder below it where an agent works. */
  function planted(): { box: Sandbox; shared: string; project: string } {
    const box = sandbox();
    const shared = join(box.root, 'shared');
    const project = join(shared, 'project');
    mkdirSync(project, { recursive: true });
    const gf = (...argv: string[]) => expect(runCli(argv, { cwd: shared }).code).toBe(0);
    gf('init', '--verify', 'touch ran');
    for (const step of ['gap open A --severity LOW', 'round start', 'gap move A RESOLVED']) gf(...step.split(' '));
    return { box, shared, project };
  }

  const nobody = 65534;

  it('owned by another uid and found by the upward search: every write is refused naming the owner, nothing runs or is written; reads go on', () => {
    const { shared, project } = planted();
    const folder = join(shared, '.gapflow');
    chownSync(folder, nobody, nobody);
    chownSync(join(folder, 'events.jsonl'), nobody, nobody);
    const before = readFileSync(join(folder, 'events.jsonl'));
    for (const argv of [
      ['round', 'close'],
      ['decide', 'approve'],
      ['gap', 'open', 'B', '--severity', 'LOW'],
      ['status', '--write'],
    ]) {
      const result = runCli(argv, { cwd: project });
      expect(result.code, argv.join(' ')).toBe(1);
      expect(result.stderr.trimEnd().split('\n'), argv.join(' ')).toHaveLength(1);
      expect(result.stderr).toContain(`${folder} is owned by uid ${nobody}`);
      expect(result.stderr).toContain(`gapflow trust --folder --dir ${folder}`);
    }
    expect(existsSync(join(shared, 'ran'))).toBe(false);
    expect(readFileSync(join(folder, 'events.jsonl'))).toEqual(before);
    expect(existsSync(join(folder, 'status.md'))).toBe(false);
    // Reading it runs nothing and writes nothing there: allowed.
    for (const argv of [['state'], ['next'], ['status'], ['verify']]) expect(runCli(argv, { cwd: project }).code, argv.join(' ')).toBe(0);
    // The stop hook lets the agent stop, saying why, instead of sending it to close the round.
    const hook = runCli(['hook', 'claude'], { cwd: project, stdin: JSON.stringify(stopInput(project)) });
    expect(hook.code).toBe(0);
    const answer = JSON.parse(hook.stdout) as { decision?: string; systemMessage?: string };
    expect(answer.decision).toBeUndefined();
    expect(answer.systemMessage).toContain(`owned by uid ${nobody}`);
  });

  it('named by --dir, a log owned by another uid is refused too', () => {
    const { shared } = planted();
    const folder = join(shared, '.gapflow');
    chownSync(join(folder, 'events.jsonl'), nobody, nobody);
    const result = runCli(['round', 'close', '--dir', folder], { cwd: shared });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`${join(folder, 'events.jsonl')} is owned by uid ${nobody}`);
    expect(existsSync(join(shared, 'ran'))).toBe(false);
  });

  it('writable by its group or others is refused; a sticky folder of the user’s own is not', () => {
    const { shared } = planted();
    const folder = join(shared, '.gapflow');
    const gapOpen = (id: string) => runCli(['gap', 'open', id, '--severity', 'LOW'], { cwd: shared });
    chmodSync(folder, 0o775);
    const refused = gapOpen('B');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`the session folder ${folder} is writable by its group (mode 0775)`);
    chmodSync(folder, 0o757);
    expect(gapOpen('B').stderr).toContain('writable by others (mode 0757)');
    chmodSync(folder, 0o1777);
    expect(gapOpen('B').code).toBe(0);
  });

  it('trust --folder allows it for as long as the same uid owns it', () => {
    const { shared, project } = planted();
    const folder = join(shared, '.gapflow');
    const other = elsewhere();
    chownSync(folder, nobody, nobody);
    // Another user's approval is nothing here.
    expect(runCli(['trust', '--folder'], { cwd: project, env: other }).code).toBe(0);
    const gapOpen = (id: string) => runCli(['gap', 'open', id, '--severity', 'LOW'], { cwd: project });
    expect(gapOpen('B').code).toBe(1);
    const allowed = runCli(['trust', '--folder'], { cwd: project });
    expect(allowed.code, allowed.stderr).toBe(0);
    expect(allowed.stdout).toContain(`Allowed ${folder}`);
    expect(gapOpen('B').code).toBe(0);
    // Its check was set by this user at init, in this place: it runs on the close now that the folder is allowed.
    expect(runCli(['gap', 'move', 'B', 'RESOLVED'], { cwd: project }).code).toBe(0);
    expect(runCli(['round', 'close'], { cwd: project }).code).toBe(0);
    expect(existsSync(join(project, 'ran'))).toBe(true);
    // Handed to yet another owner, it is refused again.
    chownSync(folder, nobody - 1, nobody - 1);
    expect(gapOpen('C').code).toBe(1);
  });
});
