import { describe, expect, it } from 'vitest';
import { closePostgresStores, PgLog, Session } from '../../src/index.js';
import { databaseSource } from '../../src/fleet/index.js';
import type { GapflowEvent } from '../../events/index.js';
import { postgresServer } from '../postgres.js';
import { fixedStamps } from '../support.js';

/*
 * A store, a follower and a fleet source outlive the database worker they
 * started on. A worker is closed when a request never comes back (the 60 s
 * a bridge waits), or by closePostgresStores; what was made on it must make
 * a new one on its next request, not fail with "this store was closed"
 * until the process restarts (a dashboard stale for good).
 */

const databaseUrl = postgresServer();

/** Polls `done` until it holds or `ms` pass. */
async function until(done: () => boolean, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!done() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
  return done();
}

describe('after the database worker was closed', () => {
  it('a store reads and writes on a new one', () => {
    const session = Session.create(new PgLog(databaseUrl(), 'again'), {}, fixedStamps());
    session.openGap('A', 'HIGH');
    closePostgresStores();
    session.openGap('B', 'LOW');
    expect(new PgLog(databaseUrl(), 'again').read().map((event) => event.type)).toEqual(['session.started', 'gap.opened', 'gap.opened']);
  });

  it('a follower still hears what is appended', { timeout: 30_000 }, async () => {
    const store = new PgLog(databaseUrl(), 'followed');
    Session.create(store, {}, fixedStamps());
    const heard: GapflowEvent[] = [];
    const stop = store.follow(1, (events) => heard.push(...events), { intervalMs: 200 });
    try {
      closePostgresStores();
      Session.open(new PgLog(databaseUrl(), 'followed', { ownConnection: true })).openGap('LATE', 'MEDIUM');
      expect(await until(() => heard.some((event) => event.type === 'gap.opened'), 10_000)).toBe(true);
    } finally {
      stop();
    }
  });

  it("a fleet source lists the database's sessions on a new one", () => {
    Session.create(new PgLog(databaseUrl(), 'listed'), {}, fixedStamps());
    const source = databaseSource(databaseUrl());
    // The first list is the one read when the source was made: the next one reads again.
    source.sessions();
    closePostgresStores();
    expect(source.sessions().map((entry) => entry.name)).toContain('listed');
  });
});
