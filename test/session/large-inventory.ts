import { ALLOWED_MOVES, hookStep, loopStep, STATE_CLASS, standingStopRequest, topListedGaps, type ClosedGap, type SessionView } from '../../src/core/index.js';
import { expect } from 'vitest';
import type { EventStore } from '../../src/log/index.js';
import { hookVerdict, nextLine } from '../../src/render/index.js';
import { Session, type BatchRequest } from '../../src/session/index.js';
import type { GapState, Severity } from '../../events/index.js';
import { stampOf, type RequestPick } from './head-calls.js';

/*
 * What the tests of writes decided on a head that leaves gaps out share,
 * whatever the store (a folder, a database): the session with a large
 * inventory they start from, the random requests they send, and what the
 * loop is answered from a view.
 */

export const SEVERITIES: Severity[] = ['LOW', 'CRITICAL', 'MEDIUM', 'HIGH'];

/**
 * A request read against the whole view: mostly new gaps and allowed moves
 * of the first gaps of the list (as an agent works), some of any gap, and
 * some of a gap opened earlier in the same batch (`batch`: its state as the
 * batch's moves so far leave it, so a gap opened, resolved and reopened in
 * one batch comes up).
 */
export function request(view: SessionView, r: RequestPick, fresh: string, batch: Map<string, GapState>): BatchRequest {
  const ids = [...view.gaps.keys()];
  const top = topListedGaps(view).gaps.map((gap) => gap.id);
  const local = [...batch.keys()];
  const any = (n: number) => ids[n % ids.length]!;
  const near = (n: number) => (local.length > 0 && r.b % 3 !== 0 ? local[n % local.length]! : r.flag && top.length > 0 ? top[n % top.length]! : any(n));
  if (r.kind >= 94) return { body: { type: 'round.closed', data: { round: Math.max(1, view.rounds.length) } } };
  if (r.kind >= 88) return { body: { type: 'round.started', data: { round: view.rounds.length + 1 } } };
  if (r.kind < 40) {
    const spawnedBy = r.b % 4 === 0 ? { spawnedBy: any(r.b) } : {};
    return { body: { type: 'gap.opened', data: { id: r.kind < 34 ? fresh : any(r.a), severity: r.severity, title: `gap ${fresh}`, ...spawnedBy } } };
  }
  if (r.kind < 84) {
    const id = near(r.a);
    const state = batch.get(id) ?? view.gaps.get(id)?.state ?? 'OPEN';
    const allowed = ALLOWED_MOVES[state];
    // A gap of the batch is mostly fixed and broken again: ping-pong, in one call.
    const cycle = batch.has(id) && r.c % 3 !== 0 ? ({ OPEN: 'RESOLVED', RESOLVED: 'OPEN' } as Partial<Record<GapState, GapState>>)[state] : undefined;
    const to: GapState = cycle ?? (r.kind < 78 ? (allowed[r.c % allowed.length] ?? r.state) : r.state);
    const blockedBy = to === 'BLOCKED' ? { blockedBy: any(r.b) } : {};
    const of = to === 'DUPLICATE' ? { of: any(r.b + 1) } : {};
    return { body: { type: 'gap.moved', data: { id, to, ...blockedBy, ...of } } };
  }
  return { body: { type: 'gap.severity_changed', data: { id: near(r.a), to: r.severity } } };
}

/** A call's requests, each read against the view before the call and the gaps the call opened before it. */
export function calledBatch(view: SessionView, picks: readonly RequestPick[], call: number): BatchRequest[] {
  const opened = new Map<string, GapState>();
  return picks.map((pick, k) => {
    const made = request(view, pick, `N-${call}-${k}`, opened);
    if (made.body.type === 'gap.opened' && !view.gaps.has(made.body.data.id)) opened.set(made.body.data.id, 'OPEN');
    if (made.body.type === 'gap.moved' && opened.has(made.body.data.id)) opened.set(made.body.data.id, made.body.data.to);
    return made;
  });
}

/** What `next --json` and a stop hook answer from a view. */
export function answers(view: SessionView) {
  const step = loopStep(view, standingStopRequest(view));
  const call = { agentSession: 'agent-1', event: 'Stop' as const, stopHookActive: false };
  const decided = hookStep(view, call, { blocks: 0, maxBlocks: 5 });
  return { step, line: nextLine(step), listed: topListedGaps(view), hook: hookVerdict(decided.view, call, decided.context, decided.decision) };
}

/**
 * A session with `count` gaps at the baseline (severities by turns) and
 * round 1 open, in `log`; with `mixed`, a ping-pong threshold of 1, every
 * seventh gap deferred and every eleventh resolved and reopened.
 */
export function inventory(log: EventStore, count: number, mixed = false): void {
  const session = Session.create(log, mixed ? { pingPong: 1 } : {}, stampOf(999));
  session.recordAll(
    Array.from({ length: count }, (_, n) => ({ body: { type: 'gap.opened', data: { id: `G-${n}`, severity: SEVERITIES[n % 4]!, title: `finding ${n}` } } })),
    null,
  );
  if (mixed) {
    const moves = Array.from({ length: count }, (_, n): [string, GapState][] =>
      n % 7 === 3
        ? [[`G-${n}`, 'USER_DEFERRED']]
        : n % 11 === 5
          ? [
              [`G-${n}`, 'RESOLVED'],
              [`G-${n}`, 'OPEN'],
            ]
          : [],
    ).flat();
    session.recordAll(
      moves.map(([id, to]) => ({ body: { type: 'gap.moved', data: { id, to } } })),
      null,
    );
  }
  session.startRound();
  session.saveCheckpoints();
}

/** That a head and its index know every gap of the whole view, each once: the head's own as they are, the rest by lookup, the counts adding up. */
export function expectHeadAndIndex(head: SessionView, whole: SessionView, lookUp: (id: string) => ClosedGap | null): void {
  for (const gap of whole.gaps.values()) {
    const kept = head.gaps.get(gap.id);
    if (kept !== undefined) expect(kept).toEqual(gap);
    else expect(lookUp(gap.id)).toEqual({ id: gap.id, severity: gap.severity, state: gap.state });
  }
  const unfinished = [...whole.gaps.values()].filter((gap) => STATE_CLASS[gap.state] !== 'closed');
  expect(head.gaps.size + head.gapsLeftOut.open + head.gapsLeftOut.parked).toBe(unfinished.length);
}
