import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ALLOWED_MOVES, closedIndexLookUp, decodeHead, decodeMarkedHead, encodeClosedIndex, roundCount, type SessionView } from '../../src/core/index.js';
import { CLOSED_FILE, HEAD_FILE, openCheckpointParts } from '../../src/log/index.js';
import { closedIndexFormat } from '../../src/session/index.js';
import { Session, type BatchRequest } from '../../src/session/index.js';
import { roundClosedLines, roundStartedLine } from '../../src/render/index.js';
import { play, scriptArb, settingsArb } from './model.js';
import { onTheHead, outcome, requestArb, stampOf, store, type RequestPick } from './head-calls.js';

/*
 * A gap or round write decided on the head (a few kilobytes and the closed gaps'
 * index) must do what the same write does on the whole view: the same
 * events, byte for byte in the log, the same refusals, and a head and index
 * that a reader and the next write find as the whole view would leave them.
 * Random sessions, cut at random points, then a few random gap requests
 * (valid or not: reused ids, unknown gaps, closed gaps named, moves the
 * lifecycle refuses, rounds started or closed, in turn or not), alone or in
 * a batch as `append` sends them, each call its own, on two copies of the log.
 */

const TIMEOUT = 240_000;

/** A request read against the view: a new gap, a reused id, a move or a severity change of any gap (closed ones included), a round's start or close (now and then a wrong number). */
function gapRequest(view: SessionView, r: RequestPick, fresh: string): BatchRequest {
  const ids = [...view.gaps.keys(), 'NOPE-1'];
  const any = (n: number) => ids[n % ids.length]!;
  if (r.kind >= 88) return { body: { type: 'round.closed', data: { round: Math.max(1, view.rounds.length) } } };
  if (r.kind >= 76) return { body: { type: 'round.started', data: { round: view.rounds.length + 1 - (r.flag ? 0 : r.a % 2) } } };
  if (r.kind < 30) {
    const spawnedBy = r.flag ? { spawnedBy: any(r.b) } : {};
    return { body: { type: 'gap.opened', data: { id: r.kind < 24 ? fresh : any(r.a), severity: r.severity, title: `gap ${fresh}`, ...spawnedBy } } };
  }
  if (r.kind < 66) {
    // Half the moves are ones the lifecycle allows (a closing among them, now and then), the others anything.
    const id = any(r.a);
    const allowed = ALLOWED_MOVES[view.gaps.get(id)?.state ?? 'OPEN'];
    const to = r.flag ? allowed[r.b % allowed.length]! : r.state;
    const blockedBy = to === 'BLOCKED' && r.b % 2 === 0 ? { blockedBy: any(r.b) } : {};
    // A duplicate names the gap it duplicates, closed ones and unknown ones included (R20); now and then it names none.
    const of = to === 'DUPLICATE' && r.b % 3 !== 0 ? { of: any(r.b + 1) } : {};
    return { body: { type: 'gap.moved', data: { id, to, ...blockedBy, ...of } } };
  }
  return { body: { type: 'gap.severity_changed', data: { id: any(r.a), to: r.severity } } };
}

/** What `gap`, `round` and `append` print from the view a write leaves. */
function printed(view: SessionView) {
  return { round: view.roundOpen ? roundStartedLine(view) : roundClosedLines(view), machine: view.machine, open: view.open, rounds: roundCount(view) };
}

const lines = (text: string) =>
  text
    .split('\n')
    .filter((line) => line !== '')
    .sort();
const body = (dir: string, file: string) => readFileSync(join(dir, file), 'utf8').slice(readFileSync(join(dir, file), 'utf8').indexOf('\n') + 1);
/** The closed gaps an index body lists (its lines after the table line), sorted. */
const listed = (index: string | Buffer) => lines(index.toString().slice(index.toString().indexOf('\n') + 1));

describe('a gap or round write decided on the head', () => {
  it(
    'records, refuses and leaves the head and index as the same write on the whole view does',
    () => {
      const tally = { onHead: 0, batches: 0, refused: 0, fellBack: 0, closedIndexGrew: 0, roundsClosed: 0 };
      fc.assert(
        fc.property(
          settingsArb,
          scriptArb(120),
          fc.double({ min: 0.2, max: 1, noNaN: true }),
          fc.array(fc.array(requestArb, { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 4 }),
          (settings, script, where, calls) => {
            const { session } = play({ ...settings, maxRounds: 30 }, script);
            const all = session.log.read();
            const events = all.slice(0, Math.max(1, Math.round(where * all.length)));
            // Folders made and removed by each run, so a failing property's shrinking leaves none behind.
            const [onHead, whole] = [mkdtempSync(join(tmpdir(), 'gapflow-head-write-')), mkdtempSync(join(tmpdir(), 'gapflow-head-write-'))];
            try {
              for (const dir of [onHead, whole]) {
                store(dir).create(events);
                // Opening writes the head and the closed gaps' index, as any read or write does.
                Session.open(store(dir)).saveCheckpoints();
              }
              calls.forEach((picks, call) => {
                const view = Session.open(store(whole), { checkpoints: false }).view;
                // A call is one request or a batch (as `append` sends), each request read against the view before the call.
                const batch = picks.map((pick, k) => gapRequest(view, pick, `N-${call}-${k}`));
                const indexBefore = listed(body(onHead, CLOSED_FILE));
                const head = onTheHead(onHead, call);
                const quick = outcome(() => head.session.recordAll(batch, null));
                const wholeSession = Session.open(store(whole), stampOf(call));
                const full = outcome(() => wholeSession.recordAll(batch, null));
                // The same events and refusals, on the head or not.
                expect(quick).toEqual(full);
                if (head.wholeReads() > 0) tally.fellBack += 1;
                else {
                  if ('refused' in quick!) tally.refused += 1;
                  else tally.onHead += 1;
                  if (!('refused' in quick!) && batch.length > 1) tally.batches += 1;
                  if (!('refused' in quick!) && batch.some((request) => request.body.type === 'round.closed')) tally.roundsClosed += 1;
                  // What the commands print after the write, read off the head it left.
                  expect(printed(head.session.current)).toEqual(printed(wholeSession.view));
                }
                expect(readFileSync(join(onHead, 'events.jsonl'), 'utf8')).toBe(readFileSync(join(whole, 'events.jsonl'), 'utf8'));
                // The head and index each copy left read the same, and the head names the index beside it.
                const marked = decodeMarkedHead(body(onHead, HEAD_FILE));
                expect(marked?.view).toEqual(decodeHead(body(whole, HEAD_FILE)));
                const index = readFileSync(join(onHead, CLOSED_FILE), 'utf8');
                const header = JSON.parse(index.slice(0, index.indexOf('\n'))) as { seq: number; sum: string };
                expect(marked?.closed).toEqual({ seq: header.seq, sum: header.sum });
                const wholeView = Session.open(store(whole), { checkpoints: false }).view;
                expect(listed(body(onHead, CLOSED_FILE))).toEqual(listed(encodeClosedIndex(wholeView)));
                if (listed(body(onHead, CLOSED_FILE)).length > indexBefore.length) tally.closedIndexGrew += 1;
                // Each gap it lists is found in its bucket, as a lookup reads it (an extended bucket or table that went wrong would not be).
                const lookUp = closedIndexLookUp(openCheckpointParts(onHead, closedIndexFormat(), CLOSED_FILE)!)!;
                for (const line of listed(body(onHead, CLOSED_FILE))) {
                  const id = line.split(' ')[0]!;
                  const gap = wholeView.gaps.get(id)!;
                  expect(lookUp(id)).toEqual({ id, severity: gap.severity, state: gap.state });
                }
              });
            } finally {
              for (const dir of [onHead, whole]) rmSync(dir, { recursive: true, force: true });
            }
          },
        ),
        { numRuns: 300 },
      );
      console.log(
        `head writes: ${tally.onHead} recorded on the head (${tally.batches} of them batches), ${tally.refused} refused there, ${tally.fellBack} left to the whole view; the closed index grew ${tally.closedIndexGrew} times; ${tally.roundsClosed} rounds closed on the head`,
      );
      // The property is about writes on the head: most calls must have been decided there, refusals and closings included.
      expect(tally.onHead).toBeGreaterThan(120);
      expect(tally.batches).toBeGreaterThan(20);
      expect(tally.refused).toBeGreaterThan(200);
      expect(tally.closedIndexGrew).toBeGreaterThan(12);
      expect(tally.fellBack).toBeGreaterThan(5);
      expect(tally.roundsClosed).toBeGreaterThan(10);
    },
    TIMEOUT,
  );

  it('a duplicate of a gap withdrawn or split is left to the whole view, whose refusal names where that gap went', () => {
    const dirs = [mkdtempSync(join(tmpdir(), 'gapflow-head-write-')), mkdtempSync(join(tmpdir(), 'gapflow-head-write-'))];
    try {
      for (const dir of dirs) {
        const session = Session.create(store(dir));
        for (const id of ['A', 'B', 'C', 'D']) session.openGap(id, 'HIGH');
        session.moveGap('B', 'DUPLICATE', { of: 'A' });
        session.recordAll(
          [
            {
              body: {
                type: 'gap.split',
                data: {
                  id: 'D',
                  into: [
                    { id: 'D1', severity: 'HIGH' },
                    { id: 'D2', severity: 'LOW' },
                  ],
                },
              },
            },
          ],
          null,
        );
        session.saveCheckpoints();
      }
      const [onHead, whole] = dirs as [string, string];
      for (const [of, named] of [
        ['B', /gap B is itself a duplicate \(of A\)/],
        ['D', /gap D was split \(into D1, D2\)/],
      ] as const) {
        const batch: BatchRequest[] = [{ body: { type: 'gap.moved', data: { id: 'C', to: 'DUPLICATE', of } } }];
        // Both gaps are closed, so the head holds neither: only the index knows them, and not where they went.
        const head = onTheHead(onHead, 0);
        expect(outcome(() => head.session.recordAll(batch, null))).toEqual({ refused: expect.stringMatching(named) });
        expect(head.wholeReads()).toBe(1);
        expect(outcome(() => Session.open(store(whole)).recordAll(batch, null))).toEqual({ refused: expect.stringMatching(named) });
      }
    } finally {
      for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    }
  });
});
