import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { answersLoop, closedBucketOf, closedIndexLookUp, decodeMarkedHead, HEAD_WHOLE_GAPS, leavesGapsOut } from '../../src/core/index.js';
import { PgLog, Session } from '../../src/index.js';
import { closedIndexFormat, openLoopView, readHead } from '../../src/session/index.js';
import { postgresServer, sqlClient } from '../postgres.js';
import { onTheHeadOf, outcome, requestArb, stampOf } from '../session/head-calls.js';
import { answers, calledBatch, expectHeadAndIndex, inventory } from '../session/large-inventory.js';

/*
 * Issue 34 on PostgreSQL: a database session keeps a head row and its
 * closed gaps' index (a row that names it, and a row per bucket), as a
 * folder keeps checkpoint.head.json and checkpoint.closed.json, so `next`,
 * a stop hook and a gap write read a few rows whatever the inventory's size.
 * Each is a cache keyed by the event it covers: a row that no longer matches
 * is passed over (the whole view decides, as a replay would) and written again.
 */

const TIMEOUT = 240_000;
const databaseUrl = postgresServer();
const client = sqlClient(databaseUrl);

let sessions = 0;
/** A new session's name. */
const fresh = (prefix: string) => `${prefix}-${++sessions}`;
const store = (name: string) => new PgLog(databaseUrl(), name);

/** The head row's body and format, as stored (whether or not it is current). */
async function headRow(name: string): Promise<{ body: string; format: string; seq: number } | null> {
  const { rows } = await client().query<{ body: string; format: string; seq: string }>(
    `SELECT body, format, seq FROM gapflow.checkpoints WHERE stream = $1 AND kind = 'head'`,
    [name],
  );
  return rows[0] === undefined ? null : { ...rows[0], seq: Number(rows[0].seq) };
}

/** The index the current head of `name` goes with, as a lookup (null when the head is not current or names none). */
async function indexLookUp(name: string) {
  const format = (await headRow(name))?.format;
  const found = format === undefined ? null : store(name).checkpoints.headForWrite(format, closedIndexFormat());
  return found?.index == null ? null : closedIndexLookUp(found.index.parts);
}

/** Each bucket row's version (its xmin): which rows a write rewrote. */
async function bucketVersions(name: string): Promise<Map<number, string>> {
  const { rows } = await client().query<{ bucket: number; version: string }>(
    `SELECT bucket, xmin::text AS version FROM gapflow.closed_buckets WHERE stream = $1`,
    [name],
  );
  return new Map(rows.map((row) => [row.bucket, row.version]));
}

describe('the head row', () => {
  it('is kept at the last event by an open, read while the stream ends there, and passed over once another writer appends', { timeout: 60_000 }, async () => {
    // Given a session with a few gaps, opened once (which keeps its head).
    const name = fresh('head');
    const session = Session.create(store(name), {}, stampOf(0));
    session.openGap('A', 'HIGH');
    session.openGap('B', 'LOW');
    session.startRound();
    Session.open(store(name)).saveCheckpoints();
    // Then the head row covers the last event, and answers the loop as the whole view does.
    const whole = Session.open(store(name), { checkpoints: false }).view;
    const head = readHead(store(name));
    expect(head?.lastSeq).toBe(whole.lastSeq);
    expect(answers(head!)).toEqual(answers(whole));
    // When another writer, on a connection of its own and keeping no checkpoints, appends.
    Session.open(new PgLog(databaseUrl(), name, { ownConnection: true }), { checkpoints: false }).openGap('C', 'LOW');
    // Then the row is still there but is not read as the head; the next open writes it again at the new last event.
    expect((await headRow(name))?.seq).toBe(whole.lastSeq);
    expect(readHead(store(name))).toBeNull();
    Session.open(store(name)).saveCheckpoints();
    expect(readHead(store(name))?.lastSeq).toBe(whole.lastSeq + 1);
    expect(readHead(store(name))?.gaps.has('C')).toBe(true);
  });

  it('is passed over when its body is not a head, and written again by the next write', { timeout: 60_000 }, async () => {
    // Given a session whose head row, at the last event, holds something else.
    const name = fresh('tampered-head');
    const session = Session.create(store(name), {}, stampOf(0));
    session.openGap('A', 'HIGH');
    Session.open(store(name)).saveCheckpoints();
    await client().query(`UPDATE gapflow.checkpoints SET body = '{"not":"a head"}' WHERE stream = $1 AND kind = 'head'`, [name]);
    // Then no head is read from it, and a write on the head gives way to the whole view, which writes the head again.
    expect(readHead(store(name))).toBeNull();
    const { session: writer, wholeReads } = onTheHeadOf(store(name), 1);
    writer.recordAll([{ body: { type: 'gap.opened', data: { id: 'B', severity: 'LOW', title: '' } } }], null);
    expect(wholeReads()).toBeGreaterThan(0);
    expect(readHead(store(name))?.gaps.has('B')).toBe(true);
  });
});

describe('a write decided on the head of a database session past HEAD_WHOLE_GAPS', () => {
  it(
    'records and refuses as on the whole view, and leaves a head that answers the loop as the whole view does, its index listing the rest',
    async () => {
      // The property of test/session/head-write-large.test.ts, on two database sessions instead of two folders.
      const tally = { calls: 0, onHead: 0, answered: 0, fellBack: 0, indexed: 0 };
      await fc.assert(
        fc.asyncProperty(
          fc.integer({ min: HEAD_WHOLE_GAPS + 1, max: HEAD_WHOLE_GAPS + 120 }),
          fc.boolean(),
          fc.array(fc.array(requestArb, { minLength: 1, maxLength: 6 }), { minLength: 1, maxLength: 5 }),
          async (count, mixed, calls) => {
            const [onHead, whole] = [fresh('on-head'), fresh('whole')];
            for (const name of [onHead, whole]) inventory(store(name), count, mixed);
            for (const [call, picks] of calls.entries()) {
              tally.calls += 1;
              const view = Session.open(store(whole), { checkpoints: false }).view;
              const batch = calledBatch(view, picks, call);
              const { session: headSession, wholeReads } = onTheHeadOf(store(onHead), call);
              const wasLeavingOut = leavesGapsOut(headSession.current);
              // When: the same batch on each copy. Then: the same events and refusals.
              const quick = outcome(() => headSession.recordAll(batch, null));
              const full = outcome(() => Session.open(store(whole), stampOf(call)).recordAll(batch, null));
              expect(quick).toEqual(full);
              expect(store(onHead).lines.text()).toBe(store(whole).lines.text());
              if (wholeReads() === 0 && wasLeavingOut) tally.onHead += 1;
              if (wholeReads() > 0) tally.fellBack += 1;
              // The head the head copy left, when current: it answers the loop as the whole view does, and with its index knows every gap.
              const wholeView = Session.open(store(whole), { checkpoints: false }).view;
              const head = readHead(store(onHead));
              if (head === null) continue;
              expect(head.lastSeq).toBe(wholeView.lastSeq);
              if (answersLoop(head)) {
                tally.answered += 1;
                expect(answers(head)).toEqual(answers(wholeView));
              }
              const marked = decodeMarkedHead((await headRow(onHead))!.body)!;
              const lookUp = await indexLookUp(onHead);
              if (marked.closed === null || lookUp === null) continue;
              tally.indexed += 1;
              expectHeadAndIndex(head, wholeView, lookUp);
            }
          },
        ),
        { numRuns: 16 },
      );
      console.log(
        `large inventory on PostgreSQL: ${tally.calls} calls, ${tally.onHead} decided on a head that leaves gaps out, ${tally.fellBack} on the whole view; ${tally.answered} heads answered the loop, ${tally.indexed} were checked with their index`,
      );
      expect(tally.onHead).toBeGreaterThan(tally.calls / 3);
      expect(tally.answered).toBeGreaterThan(tally.calls / 3);
      expect(tally.indexed).toBeGreaterThan(tally.calls / 3);
    },
    TIMEOUT,
  );

  it('is what `next` reads of it: the loop view is the head, which leaves gaps out and answers as the whole view does', { timeout: 60_000 }, () => {
    // Given a session past HEAD_WHOLE_GAPS, its head kept.
    const name = fresh('loop-view');
    inventory(store(name), HEAD_WHOLE_GAPS + 30);
    // When the loop's view is opened (as `gapflow next --store URL --session NAME` opens it).
    const view = openLoopView(store(name));
    // Then it is the head (a whole view leaves no gap out), answering as the whole view.
    expect(leavesGapsOut(view)).toBe(true);
    expect(answers(view)).toEqual(answers(Session.open(store(name), { checkpoints: false }).view));
  });

  it('a gap opened past the head rewrites the one bucket it lands in, not the index', { timeout: 60_000 }, async () => {
    // Given HEAD_WHOLE_GAPS + 100 LOW gaps: the head keeps the first 200, the index lists the rest.
    const name = fresh('one-bucket');
    inventory(store(name), HEAD_WHOLE_GAPS + 100);
    const before = await bucketVersions(name);
    expect(before.size).toBeGreaterThan(200);
    // When a gap is opened on the head, past its part of the list.
    const { session, wholeReads } = onTheHeadOf(store(name), 1);
    session.recordAll([{ body: { type: 'gap.opened', data: { id: 'X-1', severity: 'LOW', title: 'late' } } }], null);
    expect(wholeReads()).toBe(0);
    // Then one bucket row was written, X-1's, and the new head names the index that lists it.
    const after = await bucketVersions(name);
    const rewritten = [...after].filter(([bucket, version]) => before.get(bucket) !== version).map(([bucket]) => bucket);
    expect(rewritten).toEqual([closedBucketOf('X-1')]);
    expect(decodeMarkedHead((await headRow(name))!.body)?.view.gaps.has('X-1')).toBe(false);
    expect((await indexLookUp(name))?.('X-1')).toEqual({ id: 'X-1', severity: 'LOW', state: 'OPEN' });
  });
});

describe('an index row that does not match', () => {
  /** The two copies of a session past HEAD_WHOLE_GAPS, and a gap the head leaves out. */
  function copies(): { onHead: string; whole: string; leftOut: string } {
    const [onHead, whole] = [fresh('damaged'), fresh('whole')];
    for (const name of [onHead, whole]) inventory(store(name), HEAD_WHOLE_GAPS + 50);
    const head = readHead(store(onHead))!;
    const leftOut = [...Session.open(store(whole), { checkpoints: false }).view.gaps.keys()].find((id) => !head.gaps.has(id))!;
    return { onHead, whole, leftOut };
  }

  /** The same batch on each copy: what each came to, and whether the head copy read its whole view. */
  function sameBatch(onHead: string, whole: string, id: string) {
    const batch = [{ body: { type: 'gap.opened' as const, data: { id: 'Y-1', severity: 'LOW' as const, title: 'spawned', spawnedBy: id } } }];
    const { session, wholeReads } = onTheHeadOf(store(onHead), 1);
    const quick = outcome(() => session.recordAll(batch, null));
    const full = outcome(() => Session.open(store(whole), stampOf(1)).recordAll(batch, null));
    return { quick, full, wholeReads: wholeReads() };
  }

  it('a damaged bucket is passed over: the write is decided on the whole view, and the index is written again whole', { timeout: 60_000 }, async () => {
    // Given the bucket that lists a gap the head leaves out, its bytes changed under the table that describes them.
    const { onHead, whole, leftOut } = copies();
    const bucket = closedBucketOf(leftOut);
    await client().query(`UPDATE gapflow.closed_buckets SET bytes = overlay(bytes PLACING '\\x5a'::bytea FROM 1) WHERE stream = $1 AND bucket = $2`, [
      onHead,
      bucket,
    ]);
    // When a gap spawned by that gap is opened: the lookup reads that bucket.
    const { quick, full, wholeReads } = sameBatch(onHead, whole, leftOut);
    // Then it is decided on the whole view, as on the copy that has no head, and the index names the gap again.
    expect(wholeReads).toBeGreaterThan(0);
    expect(quick).toEqual(full);
    expect(store(onHead).lines.text()).toBe(store(whole).lines.text());
    expect((await indexLookUp(onHead))?.(leftOut)).toMatchObject({ id: leftOut });
  });

  it('an index that names another event than the head does is not used', { timeout: 60_000 }, async () => {
    // Given an index row moved to another event (as a writer that kept an index and no head would leave it).
    const { onHead, whole, leftOut } = copies();
    await client().query(`UPDATE gapflow.closed_indexes SET seq = seq - 1 WHERE stream = $1`, [onHead]);
    // When the same batch is sent. Then it is decided on the whole view, with the same outcome.
    const { quick, full, wholeReads } = sameBatch(onHead, whole, leftOut);
    expect(wholeReads).toBeGreaterThan(0);
    expect(quick).toEqual(full);
    expect(store(onHead).lines.text()).toBe(store(whole).lines.text());
  });

  it('with rows that match, the same batch is decided on the head', { timeout: 60_000 }, () => {
    // The control for the two above: the lookup they spoil is what decides it otherwise.
    const { onHead, whole, leftOut } = copies();
    const { quick, full, wholeReads } = sameBatch(onHead, whole, leftOut);
    expect(wholeReads).toBe(0);
    expect(quick).toEqual(full);
    expect(store(onHead).lines.text()).toBe(store(whole).lines.text());
  });
});
