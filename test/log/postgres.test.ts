import { describe, expect, it } from 'vitest';
import { closePostgresStores, PgLog, Session } from '../../src/index.js';
import { toStateJson } from '../../src/core/index.js';
import { viewFormat } from '../../src/session/index.js';
import { stateFormat } from '../../src/session/state-format.js';
import { runCli } from '../cli/helpers.js';
import { postgresServer, sqlClient } from '../postgres.js';
import { fixedStamps } from '../support.js';

/*
 * The PostgreSQL store beyond the conformance suite. A database session keeps a checkpoint as a folder does: a snapshot of the
 * view keyed by the seq it covers and that line's checksum, so an open folds
 * only the lines after it. It is a cache: one tampered with, stale or of
 * another format is passed over, and the view is what replaying every line
 * gives.
 */

const databaseUrl = postgresServer();
const client = sqlClient(databaseUrl);

/** A store on session `name` that finds a checkpoint worth writing at any size. */
const store = (name: string) => new PgLog(databaseUrl(), name, { minCheckpointBytes: 1 });

/** A session of a few rounds in `name`, its checkpoint written. */
function played(name: string): Session {
  const session = Session.create(store(name), {}, fixedStamps());
  session.openGap('A', 'HIGH');
  session.openGap('B', 'LOW');
  session.startRound();
  session.moveGap('A', 'RESOLVED');
  session.closeRound();
  // Opened again: the open finds no checkpoint, and writes one.
  Session.open(store(name)).saveCheckpoints();
  return session;
}

/** What replaying every line gives, with no checkpoint read or written. */
const replayed = (name: string) => toStateJson(Session.open(store(name), { checkpoints: false }).view);

describe('checkpoints in PostgreSQL', () => {
  it('an open writes one at the last seq; the next resumes from it and folds only the lines after it', { timeout: 60_000 }, () => {
    const session = played('resume');
    const last = session.view.lastSeq;
    const resumed = store('resume').checkpoints.resume(viewFormat());
    expect(resumed.checkpoint?.seq).toBe(last);
    expect(resumed.events).toEqual([]);
    session.openGap('C', 'MEDIUM');
    session.openGap('D', 'MEDIUM');
    const later = store('resume').checkpoints.resume(viewFormat());
    expect(later.checkpoint?.seq).toBe(last);
    expect(later.events.map((event) => event.seq)).toEqual([last + 1, last + 2, last + 3]);
    expect(toStateJson(Session.open(store('resume')).view)).toEqual(replayed('resume'));
  });

  it('a tampered body is passed over: the view is the replayed one, and the checkpoint is written again', { timeout: 60_000 }, async () => {
    played('tampered');
    // The view's row (the session's head has a row of its own: postgres-head.test.ts).
    await client().query(`UPDATE gapflow.checkpoints SET body = '{"not":"a view"}' WHERE stream = $1 AND kind = 'view'`, ['tampered']);
    expect(toStateJson(Session.open(store('tampered')).view)).toEqual(replayed('tampered'));
    Session.open(store('tampered')).saveCheckpoints();
    const { rows } = await client().query<{ body: string }>(`SELECT body FROM gapflow.checkpoints WHERE stream = $1 AND kind = 'view'`, ['tampered']);
    expect(rows[0]!.body).not.toBe('{"not":"a view"}');
  });

  it('a stale one (its checksum no longer that of its line) or one of another format is not resumed from', { timeout: 60_000 }, async () => {
    played('stale');
    await client().query(`UPDATE gapflow.checkpoints SET sum = '0000000000000000' WHERE stream = $1`, ['stale']);
    const stale = store('stale').checkpoints.resume(viewFormat());
    expect(stale.checkpoint).toBeNull();
    expect(stale.events.map((event) => event.seq)).toEqual(Array.from({ length: stale.events.length }, (_, i) => i + 1));
    expect(toStateJson(Session.open(store('stale')).view)).toEqual(replayed('stale'));

    played('foreign');
    expect(store('foreign').checkpoints.resume(`${viewFormat()}-other`).checkpoint).toBeNull();
  });

  it('a database gapflow set up before checkpoints existed is brought up to date on first use', { timeout: 60_000 }, async () => {
    played('older');
    // As the first release left it: migration 1 alone.
    await client().query('DROP TABLE gapflow.closed_buckets, gapflow.closed_indexes');
    await client().query('DROP TABLE gapflow.checkpoints');
    await client().query('ALTER TABLE gapflow.streams DROP COLUMN bytes');
    await client().query('DELETE FROM gapflow.migrations WHERE version > 1');
    // New connections, as a newer gapflow's first call would make.
    closePostgresStores();
    expect(toStateJson(Session.open(store('older')).view)).toEqual(replayed('older'));
    const { rows } = await client().query<{ version: number }>('SELECT version FROM gapflow.migrations ORDER BY version');
    expect(rows.map((row) => row.version)).toEqual([1, 2, 3, 4]);
    // Migration 3 counted the lines already there.
    const size = await client().query<{ bytes: string }>('SELECT bytes FROM gapflow.streams WHERE name = $1', ['older']);
    expect(Number(size.rows[0]!.bytes)).toBe(Buffer.byteLength(store('older').lines.text()));
  });
});

describe('state --json of a database session', () => {
  it('a long one is kept as printed while the stream ends where it did, and made again once it grows', { timeout: 120_000 }, async () => {
    // Past 64 KiB of lines, where keeping the output pays (as for a folder's state.json).
    const session = Session.create(new PgLog(databaseUrl(), 'printed'), {}, fixedStamps());
    session.recordAll(
      Array.from({ length: 400 }, (_, i) => ({
        body: {
          type: 'gap.opened' as const,
          data: { id: `G-${i}`, severity: 'LOW' as const, title: 'a gap among many, with a title long enough to take some room' },
        },
      })),
    );
    const call = () => runCli(['state', '--json', '--store', databaseUrl(), '--session', 'printed'], { cwd: process.cwd() });
    const first = call();
    expect(first.code).toBe(0);
    expect((JSON.parse(first.stdout) as { weightedOpen: number }).weightedOpen).toBe(400 * 1);
    const { rows } = await client().query<{ seq: string }>(`SELECT seq FROM gapflow.checkpoints WHERE stream = $1 AND kind = 'state'`, ['printed']);
    expect(rows.map((row) => Number(row.seq))).toEqual([session.view.lastSeq]);
    expect(store('printed').checkpoints.state(stateFormat())).toBe(first.stdout);
    expect(call().stdout).toBe(first.stdout);

    session.openGap('LATE', 'CRITICAL');
    expect(store('printed').checkpoints.state(stateFormat())).toBeNull();
    expect((JSON.parse(call().stdout) as { weightedOpen: number }).weightedOpen).toBe(400 * 1 + 16);
  });
});

describe('limits', () => {
  it('a line past 1 MiB is refused as a folder refuses it, naming the event; nothing is written, and the session reads and exports as before', {
    timeout: 60_000,
  }, () => {
    // The largest event there is, a forge round: each field within its schema, the whole past a line's 1 MiB.
    const session = Session.create(store('limits'), { policies: ['forge'] }, fixedStamps());
    const before = store('limits').lines.text();
    const weaknesses = Array.from({ length: 110 }, () => 'w'.repeat(5_000));
    const round = { draft: 'd'.repeat(500_000), critiques: [{ participant: 'a', score: 50, weaknesses, suggestions: [] }], votes: [] };
    expect(() => session.recordMetrics('forge', round)).toThrow(
      /metrics\.recorded \(seq \d+\) would be a 1\.\d MiB line, over the 1 MiB limit; nothing was written/,
    );
    expect(store('limits').lines.text()).toBe(before);
    expect(store('limits').read()).toHaveLength(1);
  });

  it('the stream keeps its size, so a write that would take it past the log limit is refused without summing its lines', { timeout: 60_000 }, async () => {
    const session = Session.create(store('size'), {}, fixedStamps());
    session.openGap('A', 'LOW');
    const { rows } = await client().query<{ bytes: string }>('SELECT bytes FROM gapflow.streams WHERE name = $1', ['size']);
    expect(Number(rows[0]!.bytes)).toBe(Buffer.byteLength(store('size').lines.text()));
    // As if the session held nearly 256 MiB of lines already.
    await client().query('UPDATE gapflow.streams SET bytes = $2 WHERE name = $1', ['size', 256 * 1024 * 1024 - 10]);
    expect(() => session.openGap('B', 'LOW')).toThrow(/would grow past the 256 MiB limit; nothing was written/);
    expect(store('size').read()).toHaveLength(2);
  });
});
