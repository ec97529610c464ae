import type { EventBodyInput, GapflowEvent, SessionSettings, SettledEvent } from '../../events/index.js';
import { decide, evolveMany, initialView, parseBody, Refusal, settle, type SessionView } from '../core/index.js';
import { LogError, OutcomeUnknown, VersionConflict, type Batch, type EventStore } from '../log/index.js';
import {
  validateBatchIds,
  validateWriteOptions,
  movedOn,
  named,
  ownIndex,
  resumes,
  sameRequest,
  type BatchRequest,
  type RequestNamer,
  type WriteOptions,
} from './requests.js';
import { stampAll, type Stamp } from './stamp.js';

/** What one request did. */
export interface Recorded {
  /** The request's events: the ones appended for it, or, for a retry of an id already in the log, the event it recorded then. */
  events: GapflowEvent[];
  /** What this call appended: `events`, or none for a retry. */
  appended: GapflowEvent[];
  /** True when the request's event id was already in the log: nothing was appended. */
  duplicate: boolean;
}

/** What a batch did: each request's events (as `Recorded.events`), and the events this call appended. */
export interface BatchRecorded {
  groups: GapflowEvent[][];
  appended: GapflowEvent[];
}

/** A batch as decided: what it recorded, its new events settled, and the view they leave. */
export interface DecidedBatch {
  groups: GapflowEvent[][];
  appended: SettledEvent[];
  view: SessionView;
}

/** A session's start as written, with the view it leaves; or, for a retried start, the event the first one wrote. */
export type Started = { events: SettledEvent[]; appended: SettledEvent[]; duplicate: false; view: SessionView } | (Recorded & { duplicate: true });

/**
 * Writes a new session's first event into `store`. A store that already
 * holds the session this create started (its first event has
 * `write.eventId`) gives that event back instead; any other session there
 * refuses it.
 */
export function startLog(store: EventStore, settings: SessionSettings, stamp: Stamp, write: WriteOptions): Started {
  const { expectSeq, eventId } = validateWriteOptions(write);
  if (store.exists()) return retriedStart(store, eventId);
  if (expectSeq !== undefined && expectSeq !== 0) throw new Refusal(movedOn(expectSeq, 0));
  const view = initialView();
  const started = stampAll(stamp, view, decide(view, parseBody({ type: 'session.started', data: settings })), eventId);
  try {
    store.create(started.events);
  } catch (error) {
    if (error instanceof OutcomeUnknown) throw error.retriedAs(started.events[0]!.id);
    // Another init with the same id won the race: this one is its retry.
    if (error instanceof LogError && store.exists()) return retriedStart(store, eventId);
    throw error;
  }
  return { events: started.events, appended: started.events, duplicate: false, view: started.view };
}

function retriedStart(store: EventStore, eventId: string | undefined): Recorded & { duplicate: true } {
  const first = eventId === undefined ? undefined : store.byId(eventId);
  if (first?.seq === 1) return { events: [first], appended: [], duplicate: true };
  throw new LogError(`${store.location} already holds a session`);
}

/**
 * Runs `decide` holding the store, once the batch's write options and ids
 * are found sound; a log that no longer ends at `write.expectSeq` refuses it.
 */
export function transactBatch(
  store: EventStore,
  knownVersion: number,
  requests: readonly BatchRequest[],
  where: RequestNamer,
  write: Pick<WriteOptions, 'expectSeq'>,
  decideBatch: (fresh: readonly GapflowEvent[]) => Batch<DecidedBatch>,
): DecidedBatch {
  const { expectSeq } = validateWriteOptions(write);
  validateBatchIds(requests, where);
  // Judged holding the store: a retry that goes on where its batch tore is not held to its expected seq.
  const expected = expectSeq === undefined ? undefined : (version: number) => (resumes(requests, version, store) ? undefined : expectSeq);
  try {
    return store.transact(knownVersion, decideBatch, expected);
  } catch (error) {
    if (error instanceof VersionConflict) throw new Refusal(movedOn(error.expected, error.actual));
    // One request: its retry carries the id its own event was given (a batch's lines each need their own).
    if (error instanceof OutcomeUnknown && requests.length === 1) throw error.retriedAs(requests[0]!.id ?? ownEvent(error.events)?.id ?? null);
    throw error;
  }
}

/** Under the store's hold, once caught up: decides every request on one working copy of `view`. */
export function decideBatch(
  view: SessionView,
  requests: readonly BatchRequest[],
  where: RequestNamer,
  store: Pick<EventStore, 'byId'>,
  stamp: Stamp,
): Batch<DecidedBatch> {
  const groups: GapflowEvent[][] = [];
  const appended: SettledEvent[] = [];
  const { view: next } = evolveMany(view, (working, step) => {
    requests.forEach((request, index) => {
      try {
        const original = request.id === undefined ? undefined : store.byId(request.id);
        if (original) return void groups.push([sameRequest(original, request.body)]);
        const events = stamp(decide(working, parseBody(request.body)), request.id, working, step);
        groups.push(events);
        for (const event of events) appended.push(event);
      } catch (error) {
        throw named(error, where, index);
      }
    });
  });
  return { events: appended, result: { groups, appended, view: next } };
}

/** Folds in what other writers appended, as replay does: the events as they settled, and the view they leave. */
export function catchUp(view: SessionView, fresh: readonly GapflowEvent[]): { events: SettledEvent[]; view: SessionView } {
  const settled: SettledEvent[] = [];
  const { view: next } = evolveMany(view, (working, step) => {
    for (const event of fresh) {
      const fact = settle(working, event);
      if (fact === null) {
        working.lastSeq = event.seq;
        continue;
      }
      settled.push(fact);
      step(fact);
    }
  });
  return { events: settled, view: next };
}

/** Judges `input` against `view` and the ids in `store` as a write would, writing nothing. */
export function judgeRequest(view: SessionView, store: Pick<EventStore, 'byId'>, input: EventBodyInput, write: WriteOptions): 'new' | 'duplicate' {
  const { expectSeq, eventId } = validateWriteOptions(write);
  const original = eventId === undefined ? undefined : store.byId(eventId);
  if (original) {
    sameRequest(original, input);
    return 'duplicate';
  }
  if (expectSeq !== undefined && expectSeq !== view.lastSeq) throw new Refusal(movedOn(expectSeq, view.lastSeq));
  decide(view, parseBody(input));
  return 'new';
}

/** The event of a request's events that is its own (not an automatic round start or close around it). */
function ownEvent(events: readonly GapflowEvent[]): GapflowEvent | undefined {
  return events.length === 0 ? undefined : events[ownIndex(events)];
}
