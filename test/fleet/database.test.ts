import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { dashboardServer, databaseSource, Fleet, type FleetRow } from '../../src/fleet/index.js';
import { PgLog, Session } from '../../src/index.js';
import { databaseAt, GLOBAL_START, readGlobal } from '../../src/log/index.js';
import { postgresServer } from '../postgres.js';
import { until } from '../cli/children.js';
import { runCli } from '../cli/helpers.js';
import { fixedStamps } from '../support.js';

/*
 * A fleet in PostgreSQL: every session in the database, and, watched, what
 * commits to any of them, read in the global order that never passes a
 * transaction still under way.
 */

const databaseUrl = postgresServer();

const stops: (() => void)[] = [];
afterEach(() => {
  for (const stop of stops.splice(0)) stop();
});

/** A session `name` in the database with `gaps` open LOW gaps. */
function sessionIn(name: string, gaps = 1): Session {
  const session = Session.create(new PgLog(databaseUrl(), name, { ownConnection: true }), {}, fixedStamps());
  for (let i = 1; i <= gaps; i++) session.openGap(`G-${i}`, 'LOW');
  return session;
}

describe('the database source', () => {
  it('lists every session in the database by name, and the fleet reads each one: state and open counts', { timeout: 60_000 }, () => {
    sessionIn('list/beta', 3);
    sessionIn('list/alpha', 2);
    const source = databaseSource(databaseUrl());
    expect(source.location).not.toContain('gapflow-test');
    const names = source.sessions().map((entry) => entry.name);
    expect(names.filter((name) => name.startsWith('list/'))).toEqual(['list/alpha', 'list/beta']);
    const rows = new Fleet(source).rows().filter((row) => row.name.startsWith('list/'));
    expect(rows.map((row) => [row.name, row.state, row.open, row.weightedOpen])).toEqual([
      ['list/alpha', 'CONVERGING', 2, 2 * 1],
      ['list/beta', 'CONVERGING', 3, 3 * 1],
    ]);
  });

  it('watched, it names a session another connection appends to, and hears of a new one', { timeout: 60_000 }, async () => {
    const writer = sessionIn('watch/one');
    const heard: (string | null)[] = [];
    // A slow poll: what is heard within the wait comes from the commit notices.
    const source = databaseSource(databaseUrl(), { pollMs: 60_000 });
    stops.push(source.watch((name) => heard.push(name)));
    writer.openGap('G-2', 'HIGH');
    await until('the append is heard', () => heard.includes('watch/one'), 15_000);
    sessionIn('watch/two');
    await until('the new session is heard', () => heard.includes(null), 15_000);
    expect(heard).not.toContain('watch/two');
  });

  it('watched with notices lost, the poll still finds every commit', { timeout: 60_000 }, async () => {
    const writer = sessionIn('poll/one');
    const heard: (string | null)[] = [];
    const source = databaseSource(databaseUrl(), { pollMs: 100 });
    stops.push(source.watch((name) => heard.push(name)));
    // Written with NOTIFY left out, as if the listening connection had dropped it.
    const client = new pg.Client({ connectionString: databaseUrl() });
    await client.connect();
    try {
      const line = new PgLog(databaseUrl(), 'poll/one').read().at(-1)!;
      await client.query(
        `INSERT INTO gapflow.events (stream, seq, id, type, at, line) SELECT stream, seq + 1, id || 'x', type, at, line FROM gapflow.events WHERE stream = $1 AND seq = $2`,
        ['poll/one', line.seq],
      );
    } finally {
      await client.end();
    }
    await until('the poll finds it', () => heard.includes('poll/one'), 15_000);
    expect(writer.view.lastSeq).toBeGreaterThan(0);
  });
});

describe('the global order', () => {
  it('never reads past a transaction still open, so an event inserted first and committed last is not skipped', { timeout: 60_000 }, async () => {
    sessionIn('order/slow');
    const fast = sessionIn('order/fast');
    const bridge = databaseAt(databaseUrl());
    let cursor = GLOBAL_START;
    for (let read = readGlobal(bridge, cursor); read.length > 0; read = readGlobal(bridge, cursor)) cursor = read.at(-1)!.at;

    // A writer takes a position in its transaction and holds it open...
    const slow = new pg.Client({ connectionString: databaseUrl() });
    await slow.connect();
    try {
      await slow.query('BEGIN');
      const last = new PgLog(databaseUrl(), 'order/slow').read().at(-1)!;
      await slow.query(
        `INSERT INTO gapflow.events (stream, seq, id, type, at, line) SELECT stream, seq + 1, 'slow-1', type, at, line FROM gapflow.events WHERE stream = $1 AND seq = $2`,
        ['order/slow', last.seq],
      );
      // ...while another commits after it, with a later position.
      fast.openGap('G-9', 'LOW');
      expect(readGlobal(bridge, cursor)).toEqual([]);
      await slow.query('COMMIT');
    } finally {
      await slow.end();
    }
    // Both now, the earlier transaction's event first: the reader skipped neither.
    const read = readGlobal(bridge, cursor);
    expect(read.map((event) => event.stream)).toEqual(['order/slow', 'order/fast']);
    expect(read[0]!.at.position).toBeLessThan(read[1]!.at.position);
  });
});

describe('a stream row whose name no session may have', () => {
  /** A name a row may hold but a session may not: an OSC 52 clipboard write, a C1 CSI, a right-to-left override. */
  const HOSTILE = 'bad\u001b]52;c;ZXZpbA==\u0007\u009b\u202ename';
  /** What a terminal must never be handed raw. */
  // eslint-disable-next-line no-control-regex -- control characters are what must not come out
  const RAW = /[\u001b\u0007\u009b\u202e]/;

  /** Inserts a stream row by hand, as another program (or an older gapflow) might have. */
  async function rawStream(name: string): Promise<void> {
    const client = new pg.Client({ connectionString: databaseUrl() });
    await client.connect();
    try {
      await client.query(`INSERT INTO gapflow.streams (name, version, last_sum) VALUES ($1, 0, '')`, [name]);
    } finally {
      await client.end();
    }
  }

  it('is listed as unreadable, with why, and every good session still lists, in the fleet serve keeps', { timeout: 60_000 }, async () => {
    sessionIn('rows/good', 2);
    await rawStream(HOSTILE);
    await rawStream('rows/with space');
    const rows = new Fleet(databaseSource(databaseUrl())).rows();
    const good = rows.find((row) => row.name === 'rows/good')!;
    expect([good.state, good.open, good.error]).toEqual(['CONVERGING', 2, null]);
    for (const name of [HOSTILE, 'rows/with space']) {
      const bad = rows.find((row) => row.name === name)!;
      expect(bad.state).toBeNull();
      expect(bad.error).toMatch(/^not a session this database can hold: session name .* may hold only letters, digits/);
    }
  });

  it('gapflow fleet prints the table with the bad row UNREADABLE and no raw ESC or C1 byte; --json the same rows', { timeout: 60_000 }, () => {
    const table = runCli(['fleet', databaseUrl()], { cwd: '/' });
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/^rows\/good +CONVERGING +0 +2 /m);
    expect(table.stdout).toMatch(/^bad\\u\{1b\}\]52;c;ZXZpbA==\\u\{7\}\\u\{9b\}\\u\{202e\}name +UNREADABLE$/m);
    expect(table.stdout).not.toMatch(RAW);
    const json = runCli(['fleet', databaseUrl(), '--json'], { cwd: '/' });
    expect(json.stdout).not.toMatch(RAW);
    const { sessions } = JSON.parse(json.stdout) as { sessions: FleetRow[] };
    expect(sessions.find((row) => row.name === HOSTILE)?.error).toContain('may hold only');
    expect(sessions.find((row) => row.name === 'rows/good')?.open).toBe(2);
  });

  it("serve's JSON lists it unreadable beside the good sessions", { timeout: 60_000 }, async () => {
    const fleet = new Fleet(databaseSource(databaseUrl()));
    const dashboard = await dashboardServer(fleet);
    try {
      await new Promise<void>((resolve) => dashboard.server.listen(0, '127.0.0.1', resolve));
      const { port } = dashboard.server.address() as { port: number };
      const body = (await (await fetch(`http://127.0.0.1:${port}/api/sessions`)).json()) as { sessions: FleetRow[] };
      expect(body.sessions.find((row) => row.name === 'rows/good')?.state).toBe('CONVERGING');
      expect(body.sessions.find((row) => row.name === HOSTILE)?.error).toContain('may hold only');
    } finally {
      await dashboard.close();
      fleet.stop();
    }
  });
});
