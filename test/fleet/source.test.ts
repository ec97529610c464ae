import { appendFileSync, mkdirSync, readFileSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Fleet, fleetSource, folderSource, type FleetChange } from '../../src/fleet/index.js';
import { createFileSession, openFileSession } from '../../src/index.js';
import { LogError } from '../../src/log/index.js';
import { until } from '../cli/children.js';
import { fixedStamps, tempDirs } from '../support.js';

/*
 * A folder source: every `.gapflow` folder holding a session under a
 * folder, named by where it sits; and, watched, every change to them.
 */

const tempDir = tempDirs('gapflow-fleet-');
const io = (cwd: string) => ({ cwd, env: {} });

/** A session in `<root>/<at>/.gapflow` with `gaps` open gaps. */
function sessionAt(root: string, at: string, gaps = 1): string {
  const dir = join(root, at, '.gapflow');
  const session = createFileSession(dir, {}, fixedStamps());
  for (let i = 1; i <= gaps; i++) session.openGap(`G-${i}`, 'LOW');
  return dir;
}

const stops: (() => void)[] = [];
afterEach(() => {
  for (const stop of stops.splice(0)) stop();
});

describe('the folder source: which sessions, and their names', () => {
  it('finds sessions at any depth, named by the folder holding .gapflow, "." for the folder itself, sorted', () => {
    const root = tempDir();
    sessionAt(root, '.');
    sessionAt(root, 'zeta');
    sessionAt(root, 'team/alpha');
    sessionAt(root, 'team/alpha/sub/deeper');
    const source = fleetSource(root, io('/'));
    expect(source.location).toBe(root);
    expect(source.sessions().map((entry) => entry.name)).toEqual(['.', 'team/alpha', 'team/alpha/sub/deeper', 'zeta']);
    const zeta = source.sessions().find((entry) => entry.name === 'zeta')!;
    expect('store' in zeta && zeta.store.location).toBe(join(root, 'zeta', '.gapflow', 'events.jsonl'));
  });

  it('takes a relative folder from the current folder', () => {
    const root = tempDir();
    sessionAt(root, 'work/one');
    expect(
      fleetSource('work', io(root))
        .sessions()
        .map((entry) => entry.name),
    ).toEqual(['one']);
  });

  it('leaves out node_modules, dot-folders, symbolic links to folders, and .gapflow folders with no log', () => {
    const root = tempDir();
    sessionAt(root, 'node_modules/pkg');
    sessionAt(root, '.cache/tool');
    sessionAt(root, 'real');
    symlinkSync(join(root, 'real'), join(root, 'link'));
    mkdirSync(join(root, 'empty', '.gapflow'), { recursive: true });
    writeFileSync(join(root, 'empty', '.gapflow', 'events.jsonl'), '');
    mkdirSync(join(root, 'bare', '.gapflow'), { recursive: true });
    expect(
      folderSource(root)
        .sessions()
        .map((entry) => entry.name),
    ).toEqual(['real']);
  });

  it('takes a session folder named directly as the one session "."', () => {
    const root = tempDir();
    const dir = sessionAt(root, 'only');
    expect(
      folderSource(dir)
        .sessions()
        .map((entry) => entry.name),
    ).toEqual(['.']);
  });

  it('refuses a folder that is not there, or a file, with a LogError naming it', () => {
    const root = tempDir();
    writeFileSync(join(root, 'file'), 'x');
    expect(() => folderSource(join(root, 'missing'))).toThrow(new LogError(`${join(root, 'missing')}: no such folder`));
    expect(() => folderSource(join(root, 'file'))).toThrow(`${join(root, 'file')}: not a folder`);
  });

  it('reads a PostgreSQL URL as a database: one out of reach fails at once, naming it without the password', () => {
    for (const url of ['postgres://me:s3cret@127.0.0.1:1/loops', 'postgresql://me:s3cret@127.0.0.1:1/loops']) {
      let thrown: unknown;
      try {
        fleetSource(url, io('/'));
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(LogError);
      expect((thrown as Error).message).toContain('me@127.0.0.1:1/loops: cannot reach the database');
      expect((thrown as Error).message).not.toContain('s3cret');
    }
  });
});

describe('the folder source, watched', () => {
  const watched = (root: string) => {
    const heard: (string | null)[] = [];
    const source = folderSource(root, { rescanMs: 50, followMs: 50 });
    stops.push(source.watch((name) => heard.push(name)));
    return heard;
  };

  it('names a session when another writer appends to it, and no other', { timeout: 30_000 }, async () => {
    const root = tempDir();
    const a = sessionAt(root, 'a');
    sessionAt(root, 'b');
    const heard = watched(root);
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(heard).toEqual([]);
    openFileSession(a).openGap('LATE', 'HIGH');
    await until('the change', () => heard.includes('a'), 5_000);
    expect(heard).not.toContain('b');
    expect(heard).not.toContain(null);
  });

  it('says sessions came or went when a new one is made or one is removed', { timeout: 30_000 }, async () => {
    const root = tempDir();
    sessionAt(root, 'a');
    const heard = watched(root);
    sessionAt(root, 'new/one');
    await until('the new session', () => heard.includes(null), 5_000);
    heard.length = 0;
    renameSync(join(root, 'a'), join(root, '.gone'));
    await until('the removed session', () => heard.includes(null), 5_000);
  });
});

describe('a fleet over a folder, watched', () => {
  it("recomputes a changed session's row, adds a new session and drops a removed one", { timeout: 30_000 }, async () => {
    const root = tempDir();
    const a = sessionAt(root, 'a', 1);
    sessionAt(root, 'b', 2);
    const fleet = new Fleet(folderSource(root, { rescanMs: 50, followMs: 50 }), { settleMs: 10 });
    stops.push(() => fleet.stop());
    const changes: FleetChange[] = [];
    fleet.subscribe((change) => changes.push(change));
    fleet.watch();
    expect(fleet.rows().map((row) => [row.name, row.open])).toEqual([
      ['a', 1],
      ['b', 2],
    ]);

    openFileSession(a).openGap('LATE', 'HIGH');
    await until("a's new row", () => changes.some((change) => change.rows.some((row) => row.name === 'a' && row.open === 2)), 5_000);
    expect(fleet.rows().find((row) => row.name === 'a')).toMatchObject({ open: 2, weightedOpen: 5 });

    sessionAt(root, 'c', 3);
    await until('c', () => fleet.rows().some((row) => row.name === 'c'), 5_000);
    expect(changes.at(-1)!.rows.map((row) => [row.name, row.open])).toEqual([['c', 3]]);

    renameSync(join(root, 'b'), join(root, '.b'));
    await until('b gone', () => !fleet.rows().some((row) => row.name === 'b'), 5_000);
    expect(changes.at(-1)!.removed).toEqual(['b']);
    expect(fleet.rows().map((row) => row.name)).toEqual(['a', 'c']);
  });

  it('a session that grew is read past what was read, to the row a fresh read gives; one replaced beneath it is read whole', { timeout: 30_000 }, async () => {
    const root = tempDir();
    const a = sessionAt(root, 'a', 2);
    const now = () => Date.UTC(2026, 0, 12, 12);
    const fleet = new Fleet(folderSource(root, { rescanMs: 50, followMs: 50 }), { settleMs: 10, now });
    stops.push(() => fleet.stop());
    fleet.watch();
    const session = openFileSession(a);
    session.startRound();
    session.moveGap('G-1', 'RESOLVED');
    session.openGap('NEW', 'CRITICAL');
    session.closeRound();
    const fresh = () => new Fleet(folderSource(root), { now }).rows();
    await until('the round close', () => fleet.rows()[0]!.round === 1, 5_000);
    expect(fleet.rows()).toEqual(fresh());
    expect(fleet.detail('a')!.chart).toEqual(new Fleet(folderSource(root), { now }).detail('a')!.chart);

    // The log replaced by a shorter session's (a restore, a new session in the folder): its seq no longer goes on.
    const other = sessionAt(tempDir(), 'x', 5);
    writeFileSync(join(a, 'events.jsonl'), readFileSync(join(other, 'events.jsonl')));
    await until('the replaced log', () => fleet.rows()[0]!.open === 5, 5_000);
    expect(fleet.rows()).toEqual(fresh());
  });

  it('shows a session whose log goes bad as a row with its error, and goes on with the others', { timeout: 30_000 }, async () => {
    const root = tempDir();
    const a = sessionAt(root, 'a', 1);
    sessionAt(root, 'b', 1);
    const fleet = new Fleet(folderSource(root, { rescanMs: 50, followMs: 50 }), { settleMs: 10 });
    stops.push(() => fleet.stop());
    fleet.watch();
    // Two bad lines: a bad last line alone may be a write under way, which a follower waits out.
    appendFileSync(join(a, 'events.jsonl'), '{"this is": not an event}\n{"nor": this}\n');
    await until('the error row', () => fleet.rows().find((row) => row.name === 'a')!.error !== null, 5_000);
    expect(fleet.rows().find((row) => row.name === 'a')).toMatchObject({ state: null, error: expect.stringContaining('line 3') });
    expect(fleet.rows().find((row) => row.name === 'b')).toMatchObject({ state: 'CONVERGING', error: null });
    expect(fleet.detail('a')).toMatchObject({ status: null, chart: [] });
  });
});
