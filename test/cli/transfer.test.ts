import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { PgLog } from '../../src/index.js';
import { postgresServer } from '../postgres.js';
import { runCli } from './helpers.js';

/*
 * export and import move a session between a JSONL folder and a PostgreSQL
 * stream line for line: JSONL -> PostgreSQL -> JSONL gives back the same
 * bytes, and both stores give the same figures. Every released log format
 * (the old-log fixtures) makes the trip; a damaged log makes none.
 */

const OLD_LOGS = fileURLToPath(new URL('../fixtures/old-logs', import.meta.url));
const root = mkdtempSync(join(tmpdir(), 'gapflow-transfer-'));
const databaseUrl = postgresServer();
afterAll(() => rmSync(root, { recursive: true, force: true }));

const gf = (...argv: string[]) => runCli(argv, { cwd: root });
const db = (session: string) => ['--store', databaseUrl(), '--session', session];

function ok(...argv: string[]) {
  const result = gf(...argv);
  expect(result.stderr, `gapflow ${argv.join(' ')}`).toBe('');
  expect(result.code, `gapflow ${argv.join(' ')}`).toBe(0);
  return result;
}

/** Every fixture folder holding a log, by its path under old-logs. */
function oldLogs(dir = OLD_LOGS): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const path = join(dir, name);
      if (!statSync(path).isDirectory()) return [];
      return existsSync(join(path, 'events.jsonl')) ? [relative(OLD_LOGS, path)] : oldLogs(path);
    });
}

let sessions = 0;

describe('export and import between a JSONL folder and PostgreSQL', () => {
  it('a session made through the CLI goes to PostgreSQL and back byte for byte, with the same figures in both', { timeout: 60_000 }, () => {
    const dir = join(root, 'made');
    ok('init', '--dir', dir, '--stall-threshold', '3');
    ok('gap', 'open', 'G1', '--severity', 'CRITICAL', '--title', 'Ünïcode — “quoted” <b>', '--dir', dir);
    ok('gap', 'open', 'G2', '--severity', 'LOW', '--dir', dir);
    ok('round', 'start', '--dir', dir);
    ok('gap', 'move', 'G1', 'RESOLVED', '--dir', dir);
    ok('gap', 'open', 'G3', '--severity', 'HIGH', '--dir', dir);
    ok('round', 'close', '--dir', dir);
    const original = readFileSync(join(dir, 'events.jsonl'));

    const exported = join(root, 'made.jsonl');
    ok('export', '--dir', dir, '--out', exported);
    expect(readFileSync(exported).equals(original)).toBe(true);
    ok('import', exported, ...db('made'));
    const back = join(root, 'made-back.jsonl');
    ok('export', ...db('made'), '--out', back);
    expect(readFileSync(back).equals(original)).toBe(true);

    // The same figures from either store: state --json of the folder and of the database session.
    const fromFolder = JSON.parse(ok('state', '--json', '--dir', dir).stdout) as Record<string, unknown>;
    const fromDatabase = JSON.parse(ok('state', '--json', ...db('made')).stdout) as Record<string, unknown>;
    expect(fromDatabase).toEqual(fromFolder);
    // 16 (CRITICAL) + 1 (LOW) open before; G1 resolved, G3 (HIGH, 4) new: weighted open 1 + 4.
    expect(fromDatabase.weightedOpen).toBe(1 + 4);

    // And a session that lives in the database is written on there, its chain going on from the imported lines.
    ok('gap', 'open', 'G4', '--severity', 'MEDIUM', ...db('made'));
    expect(ok('verify', ...db('made')).stdout).toContain('checksum chain intact');
    const grown = ok('export', ...db('made')).stdout;
    expect(grown.startsWith(original.toString('utf8'))).toBe(true);
    // Between rounds, a gap event starts the next round first (R8).
    const added = Buffer.from(grown, 'utf8')
      .subarray(original.length)
      .toString('utf8')
      .trimEnd()
      .split('\n')
      .map((line) => (JSON.parse(line) as { type: string }).type);
    expect(added).toEqual(['round.started', 'gap.opened']);
  });

  it.each(oldLogs())('the released log %s makes the trip JSONL -> PostgreSQL -> JSONL unchanged, with the same state', { timeout: 60_000 }, (fixture) => {
    const dir = join(root, `old-${++sessions}`);
    mkdirSync(dir);
    copyFileSync(join(OLD_LOGS, fixture, 'events.jsonl'), join(dir, 'events.jsonl'));
    const original = readFileSync(join(dir, 'events.jsonl'));
    const session = `old-${sessions}`;
    // A folder given to import: the log of the session in it.
    ok('import', dir, ...db(session));
    const back = join(root, `${session}.jsonl`);
    ok('export', ...db(session), '--out', back);
    expect(readFileSync(back).equals(original)).toBe(true);
    expect(ok('state', '--json', ...db(session)).stdout).toBe(ok('state', '--json', '--dir', dir).stdout);
  });

  it('a log with a line edited in place is neither exported nor imported, and the refusal names the line', { timeout: 60_000 }, () => {
    const dir = join(root, 'edited');
    ok('init', '--dir', dir);
    ok('gap', 'open', 'G1', '--severity', 'LOW', '--dir', dir);
    ok('gap', 'open', 'G2', '--severity', 'LOW', '--dir', dir);
    const path = join(dir, 'events.jsonl');
    // Line 2 edited, its length kept: a read (which checks the last line's sum only) still opens the log.
    writeFileSync(path, readFileSync(path, 'utf8').replace('"id":"G1"', '"id":"G9"'));
    expect(gf('state', '--dir', dir).code).toBe(0);

    const out = join(root, 'edited.jsonl');
    const exported = gf('export', '--dir', dir, '--out', out);
    expect(exported.code).toBe(1);
    expect(exported.stderr).toMatch(/events\.jsonl line 2: .*checksum.*nothing was exported/);
    expect(existsSync(out)).toBe(false);

    const imported = gf('import', path, ...db('edited'));
    expect(imported.code).toBe(1);
    expect(imported.stderr).toMatch(/line 2: .*checksum.*nothing was imported/);
    expect(new PgLog(databaseUrl(), 'edited').exists()).toBe(false);
  });

  it('import refuses a session that exists, and export never writes over a file; neither changes anything', { timeout: 60_000 }, () => {
    const dir = join(root, 'taken');
    ok('init', '--dir', dir);
    const log = join(dir, 'events.jsonl');
    ok('import', log, ...db('taken'));
    const before = ok('export', ...db('taken')).stdout;
    const again = gf('import', log, ...db('taken'));
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('a session already lives in');
    expect(ok('export', ...db('taken')).stdout).toBe(before);

    const out = join(root, 'taken.jsonl');
    writeFileSync(out, 'mine\n');
    const over = gf('export', ...db('taken'), '--out', out);
    expect(over.code).toBe(1);
    expect(over.stderr).toContain('already exists');
    expect(readFileSync(out, 'utf8')).toBe('mine\n');
  });
});
