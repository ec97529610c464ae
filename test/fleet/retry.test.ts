import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { GapflowEvent } from '../../events/index.js';
import { Fleet, isPassingReadFailure, retryDelayMs, type FleetChange, type FleetSource } from '../../src/fleet/index.js';
import { closePostgresStores, createFileSession, FileLog, LogError, MemoryLog, PgLog, Session } from '../../src/index.js';
import { databaseAt, DatabaseError } from '../../src/log/index.js';
import { until } from '../cli/children.js';
import { fixedStamps, tempDirs } from '../support.js';

/*
 * Which failed reads are tried again (they say nothing about the log), and
 * how often: a schedule that backs off, is bounded, and stops with the
 * fleet. The fleet here reads a store made to fail on demand, so the
 * schedule can be counted; the real faults (a connection cut, a log
 * refused) are in stale.test.ts.
 */

const tempDir = tempDirs('gapflow-retry-');

describe('which failed reads are passing, and which are faults of the log', () => {
  afterAll(() => closePostgresStores());

  it('a connection cut, refused or timed out, and a server shutting down or out of connections, are passing', () => {
    for (const [message, code] of [
      ['db: terminating connection due to administrator command', '57P01'],
      ['db: the database system is starting up', '57P03'],
      ['db: sorry, too many clients already', '53300'],
      ['db: connection failure', '08006'],
      ['db: canceling statement due to lock timeout', '55P03'],
    ] as const) {
      expect(isPassingReadFailure(new DatabaseError(message, code)), message).toBe(true);
    }
    // What the bridge throws when no answer from the server stands behind a request, whatever its words.
    for (const [message, code] of [
      ['db: cannot reach the database: connect ECONNREFUSED 127.0.0.1:1', 'ECONNREFUSED'],
      ['db: Connection terminated unexpectedly', null],
      ['db: the database did not answer within 60 s', null],
    ] as const) {
      expect(isPassingReadFailure(new DatabaseError(message, code, true)), message).toBe(true);
    }
  });

  it('a request on a database worker that was closed is passing', () => {
    const bridge = databaseAt('postgres://nobody@127.0.0.1:1/closed');
    bridge.close();
    let thrown: unknown;
    try {
      bridge.run([{ text: 'SELECT 1' }]);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(DatabaseError);
    expect(isPassingReadFailure(thrown)).toBe(true);
  });

  it('a database out of reach, read for real, is passing', () => {
    let thrown: unknown;
    try {
      new PgLog('postgres://nobody@127.0.0.1:1/none', 'a/session').read();
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(DatabaseError);
    expect(isPassingReadFailure(thrown)).toBe(true);
  });

  it('a statement the database refused for what it is, or whose message quotes what it read, is a fault', () => {
    expect(isPassingReadFailure(new DatabaseError('db: relation "gapflow.streams" does not exist', '42P01'))).toBe(false);
    expect(isPassingReadFailure(new DatabaseError('db: password authentication failed for user "me"', '28P01'))).toBe(false);
    expect(isPassingReadFailure(new DatabaseError('db: invalid input syntax for type bigint: "Connection terminated unexpectedly"', '22P02'))).toBe(false);
    // No SQLSTATE, but an answer stands behind it (the driver could not load): words alone never make a failure passing.
    expect(isPassingReadFailure(new DatabaseError('db: Connection terminated unexpectedly', null))).toBe(false);
    expect(isPassingReadFailure(new LogError('db: the database did not answer within 60 s'))).toBe(false);
  });

  it('a bad line, a stream that is gone, and a log read for real with a bad line are faults, whatever the path says', () => {
    expect(isPassingReadFailure(new LogError('db session a seq 4: not JSON', 4))).toBe(false);
    expect(isPassingReadFailure(new LogError('no session a in db (`gapflow init --store URL --session a` creates one)'))).toBe(false);
    expect(isPassingReadFailure(new LogError('/w/x: this store was closed/.gapflow/events.jsonl line 3: not JSON'))).toBe(false);
    const dir = join(tempDir(), '.gapflow');
    createFileSession(dir, {}, fixedStamps()).openGap('A', 'LOW');
    appendFileSync(join(dir, 'events.jsonl'), '{"not": "an event"}\n{"nor": "this"}\n');
    let thrown: unknown;
    try {
      new FileLog(dir).read();
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(LogError);
    expect(isPassingReadFailure(thrown)).toBe(false);
  });

  it('a read the file system refused or failed is passing; any other error is a fault', () => {
    const system = (code: string) => Object.assign(new Error(`${code}: open 'events.jsonl'`), { code });
    for (const code of ['EACCES', 'EPERM', 'EIO', 'EMFILE', 'ENFILE', 'ESTALE']) expect(isPassingReadFailure(system(code)), code).toBe(true);
    expect(isPassingReadFailure(system('ENOTDIR'))).toBe(false);
    expect(isPassingReadFailure(new TypeError('x is undefined'))).toBe(false);
    expect(isPassingReadFailure('a string')).toBe(false);
  });
});

describe('the retry schedule', () => {
  it('waits 0.25 s, then twice as long each time, never more than 4 s', () => {
    expect([0, 1, 2, 3, 4, 5, 20, 1000].map(retryDelayMs)).toEqual([250, 500, 1000, 2000, 4000, 4000, 4000, 4000]);
  });
});

const CUT = new DatabaseError('db: Connection terminated unexpectedly', null, true);

/** A session's store whose next `failing` reads throw `failure`, counting every read. */
class FlakyLog extends MemoryLog {
  failure: unknown = CUT;
  failing = 0;
  reads = 0;

  override read(from = 0): GapflowEvent[] {
    this.reads += 1;
    if (this.failing > 0) {
      this.failing -= 1;
      throw this.failure;
    }
    return super.read(from);
  }
}

/** A source of one session `a` (two LOW gaps open) in `store`; `changed()` says it grew, as a watched source would. */
function oneSession(store: FlakyLog): { source: FleetSource; changed: () => void; session: Session } {
  const session = Session.create(store, {}, fixedStamps());
  session.openGap('A', 'LOW');
  session.openGap('B', 'LOW');
  let tell: ((name: string | null) => void) | null = null;
  const source: FleetSource = {
    location: 'memory',
    sessions: () => [{ name: 'a', store }],
    watch: (changed) => {
      tell = changed;
      return () => (tell = null);
    },
    close() {},
  };
  return { source, changed: () => tell?.('a'), session };
}

const stops: (() => void)[] = [];
afterEach(() => {
  for (const stop of stops.splice(0)) stop();
});

function watched(source: FleetSource): { fleet: Fleet; changes: FleetChange[] } {
  const fleet = new Fleet(source, { settleMs: 10 });
  stops.push(() => fleet.stop());
  const changes: FleetChange[] = [];
  fleet.subscribe((change) => changes.push(change));
  fleet.watch();
  return { fleet, changes };
}

describe('a watched fleet whose reads fail for a passing cause', () => {
  it('shows the last good row stale, tells its listeners, and the row read again once a retry gets through, with nothing from the source', {
    timeout: 30_000,
  }, async () => {
    const store = new FlakyLog();
    const { source, changed, session } = oneSession(store);
    const { fleet, changes } = watched(source);
    session.openGap('C', 'HIGH');
    store.failing = Infinity;
    changed();
    await until('the stale row', () => fleet.rows()[0]!.stale, 5_000);
    expect(fleet.rows()[0]).toMatchObject({ open: 2, weightedOpen: 2, error: null, staleReason: 'db: Connection terminated unexpectedly' });
    expect(changes.at(-1)!.rows[0]).toMatchObject({ name: 'a', stale: true, open: 2 });
    // A session's detail is read whole when asked for (the fleet holds heads): while reads fail, the row as last read, and no status.
    expect(fleet.detail('a')).toMatchObject({ row: { stale: true, open: 2 }, chart: [], status: null });

    store.failing = 0;
    await until('the row read again', () => !fleet.rows()[0]!.stale, 10_000);
    expect(fleet.rows()[0]).toMatchObject({ open: 3, weightedOpen: 6, staleSince: null });
    expect(changes.at(-1)!.rows[0]).toMatchObject({ name: 'a', stale: false, open: 3 });
  });

  it('reads a session whole for its detail once, until the session changes', { timeout: 30_000 }, async () => {
    const store = new FlakyLog();
    const { source, changed, session } = oneSession(store);
    const { fleet } = watched(source);
    const before = store.reads;
    const first = fleet.detail('a')!;
    expect(store.reads).toBe(before + 1);
    expect(fleet.detail('a')).toEqual(first);
    expect(store.reads).toBe(before + 1);
    session.openGap('C', 'HIGH', { title: 'a third finding' });
    changed();
    await until('the row read again', () => fleet.rows()[0]!.open === 3, 5_000);
    const reads = store.reads;
    const after = fleet.detail('a')!;
    expect(store.reads).toBe(reads + 1);
    expect(first.status).not.toContain('a third finding');
    expect(after).toMatchObject({ row: { open: 3 }, status: expect.stringContaining('a third finding') });
  });

  it('a session whose first read failed is UNREADABLE with why, and listed once a retry reads it', { timeout: 30_000 }, async () => {
    const store = new FlakyLog();
    const { source } = oneSession(store);
    store.failing = Infinity;
    const fleet = new Fleet(source, { settleMs: 10 });
    stops.push(() => fleet.stop());
    expect(fleet.rows()[0]).toMatchObject({ state: null, stale: false, error: 'db: Connection terminated unexpectedly' });
    fleet.watch();
    store.failing = 0;
    await until('the row read', () => fleet.rows()[0]!.error === null, 5_000);
    expect(fleet.rows()[0]).toMatchObject({ state: 'CONVERGING', open: 2, stale: false });
  });

  it('tries again less and less often, at most three times in the first 1.9 s, once a read at a time, and never after stop', { timeout: 30_000 }, async () => {
    const store = new FlakyLog();
    const { source, changed } = oneSession(store);
    const { fleet, changes } = watched(source);
    store.failing = Infinity;
    const before = store.reads;
    const started = Date.now();
    changed();
    await until('the first failed read', () => store.reads > before, 5_000);
    await new Promise((resolve) => setTimeout(resolve, 1_900 - (Date.now() - started)));
    const retries = store.reads - before - 1;
    // 0.25 s, 0.75 s and 1.75 s after the failure; fewer on a machine too busy to keep time.
    expect(retries).toBeGreaterThanOrEqual(1);
    expect(retries).toBeLessThanOrEqual(3);
    // Failing again for the same reason changes nothing shown: listeners heard the row go stale once.
    expect(changes.filter((change) => change.rows.some((row) => row.stale))).toHaveLength(1);
    fleet.stop();
    const stopped = store.reads;
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    expect(store.reads).toBe(stopped);
  });

  it('does not retry a fault of the log: it shows UNREADABLE until the source says the session changed', { timeout: 30_000 }, async () => {
    const store = new FlakyLog();
    const { source, changed } = oneSession(store);
    const { fleet } = watched(source);
    store.failure = new LogError('memory line 3: not JSON', 3);
    store.failing = Infinity;
    changed();
    await until('the fault', () => fleet.rows()[0]!.error !== null, 5_000);
    const reads = store.reads;
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(store.reads).toBe(reads);
    expect(fleet.rows()[0]).toMatchObject({ state: null, stale: false, error: 'memory line 3: not JSON' });
    store.failing = 0;
    changed();
    await until('the session read again', () => fleet.rows()[0]!.error === null, 5_000);
    expect(fleet.rows()[0]).toMatchObject({ state: 'CONVERGING', open: 2 });
  });
});

describe('a watched fleet whose listing of sessions fails for a passing cause', () => {
  it('keeps every session as read, and lists them again until a listing gets through: a session that came meanwhile is added', {
    timeout: 30_000,
  }, async () => {
    const first = new FlakyLog();
    Session.create(first, {}, fixedStamps()).openGap('A', 'LOW');
    const second = new FlakyLog();
    Session.create(second, {}, fixedStamps()).openGap('B', 'HIGH');
    let entries = [{ name: 'a', store: first }];
    let listingFails = false;
    let listings = 0;
    let tell: ((name: string | null) => void) | null = null;
    const source: FleetSource = {
      location: 'memory',
      sessions: () => {
        listings += 1;
        if (listingFails) throw CUT;
        return entries;
      },
      watch: (changed) => {
        tell = changed;
        return () => (tell = null);
      },
      close() {},
    };
    const { fleet, changes } = watched(source);
    listingFails = true;
    tell!(null);
    await until('a failed listing', () => listings >= 3, 5_000);
    expect(fleet.rows().map((row) => [row.name, row.open, row.error])).toEqual([['a', 1, null]]);
    expect(changes).toEqual([]);
    entries = [...entries, { name: 'b', store: second }];
    listingFails = false;
    await until('the listing again', () => fleet.rows().length === 2, 10_000);
    expect(fleet.rows().map((row) => [row.name, row.open, row.error])).toEqual([
      ['a', 1, null],
      ['b', 1, null],
    ]);
    expect(changes.at(-1)).toMatchObject({ rows: [{ name: 'b', weightedOpen: 4 }], removed: [] });
  });
});

describe('a fleet read once (gapflow fleet)', () => {
  it('settles: a read that failed for a passing cause is tried again on the same schedule, and the session listed', () => {
    const store = new FlakyLog();
    const { source } = oneSession(store);
    store.failing = 2;
    const fleet = new Fleet(source);
    const started = Date.now();
    fleet.settle();
    expect(Date.now() - started).toBeGreaterThanOrEqual(250 + 500 - 20);
    expect(store.reads).toBe(3);
    expect(fleet.rows()[0]).toMatchObject({ state: 'CONVERGING', open: 2, error: null, stale: false });
  });

  it('gives up within its time when reads go on failing: the session is UNREADABLE with why', () => {
    const store = new FlakyLog();
    const { source } = oneSession(store);
    store.failing = Infinity;
    const fleet = new Fleet(source);
    const started = Date.now();
    fleet.settle(2_000);
    expect(Date.now() - started).toBeLessThan(2_000 + 500);
    // 0.25, 0.75 and 1.75 s: the next, at 3.75 s, would pass the 2 s.
    expect(store.reads).toBe(1 + 3);
    expect(fleet.rows()[0]).toMatchObject({ state: null, error: 'db: Connection terminated unexpectedly' });
  });
});
