import { EventId, readIssue, type Decided, type EventBodyInput, type GapflowEvent } from '../../events/index.js';
import type { EventStore } from '../log/index.js';
import { parseBody, Refusal } from '../core/index.js';

/** One request of a batch (`Session.recordAll`): what to record, and optionally its event's id. */
export interface BatchRequest {
  body: EventBodyInput;
  id?: string | undefined;
}

/** Names a batch's request in a refusal, by where it came from; null: the refusal stays as it is. */
export type RequestNamer = ((index: number) => string) | null;

/** How one write may be made safe to retry and safe against a log that moved on. */
export interface WriteOptions {
  /** Append only if the log's last seq is this (0: no log yet); else refuse. */
  expectSeq?: number | undefined;
  /**
   * The id of the event the request records. If an event with this id is
   * already in the log, nothing is appended and that event is returned: a
   * retry after a lost answer records nothing twice.
   */
  eventId?: string | undefined;
}

/** Validates write options at the edge: one line naming the option. */
export function validateWriteOptions(write: WriteOptions): WriteOptions {
  const { expectSeq, eventId } = write;
  if (expectSeq !== undefined && (!Number.isSafeInteger(expectSeq) || expectSeq < 0)) {
    throw new Refusal(`the expected seq must be a whole number from 0, not ${String(expectSeq).slice(0, 40)}`);
  }
  if (eventId !== undefined) {
    const parsed = EventId.safeParse(eventId, { reportInput: true });
    if (!parsed.success) {
      const { message, bad } = readIssue(parsed.error);
      throw new Refusal(`event id: ${message}`, undefined, { ...bad, field: 'event id' });
    }
  }
  return { expectSeq, eventId };
}

/** Every request's id is a valid event id, used once in the batch (`where` names a request in a refusal). */
export function validateBatchIds(requests: readonly BatchRequest[], where: RequestNamer): void {
  const first = new Map<string, number>();
  requests.forEach((request, index) => {
    if (request.id === undefined) return;
    try {
      validateWriteOptions({ eventId: request.id });
      const earlier = first.get(request.id);
      if (earlier !== undefined) throw new Refusal(`event id ${request.id} is already used by ${where?.(earlier) ?? 'another request'}`);
      first.set(request.id, index);
    } catch (error) {
      throw named(error, where, index);
    }
  });
}

/** A request's refusal, named by where the request came from (`stdin line 3`); null: as it is. */
export function named(error: unknown, where: RequestNamer, index: number): unknown {
  return error instanceof Refusal && where ? error.at(where(index)) : error;
}

/** The message of a write whose expected seq the log has moved past (or not reached). */
export function movedOn(expectSeq: number, lastSeq: number): string {
  const now = lastSeq === 0 ? 'there is no log yet (seq 0)' : `it ends at seq ${lastSeq}: it has moved on; read the state again before deciding`;
  return `expected the log to end at seq ${expectSeq}, but ${now}`;
}

/**
 * Whether a batch sent before goes on where it stopped, whatever its
 * expected seq said: every line carries an id, the ones already in the log
 * come first, and either all are there (nothing will be appended) or the log,
 * at `version`, still ends with the last of them (give or take the automatic
 * round close and start that came with it): the write tore after them and
 * nothing else was appended since. Otherwise the expected seq holds.
 */
export function resumes(requests: readonly BatchRequest[], version: number, store: Pick<EventStore, 'byId' | 'read'>): boolean {
  if (requests.length === 0 || requests.some((r) => r.id === undefined)) return false;
  const found = requests.map((r) => store.byId(r.id!));
  const firstNew = found.indexOf(undefined);
  if (firstNew === 0) return false;
  if (firstNew === -1) return true;
  if (found.slice(firstNew).some((event) => event !== undefined)) return false;
  const last = found[firstNew - 1]!;
  const after = version - last.seq;
  return after === 0 || (after <= 2 && store.read(last.seq).every((event) => event.type === 'round.closed' || event.type === 'round.started'));
}

/** Which of the events `decide` made for one request is the request's own: not an automatic round start or close around it. */
export function ownIndex(bodies: readonly Pick<Decided, 'type'>[]): number {
  const own = bodies.findIndex((b, i) => !(i === 0 && b.type === 'round.started' && bodies.length > 1) && !(i > 0 && b.type === 'round.closed'));
  return own === -1 ? bodies.length - 1 : own;
}

/** A retried request finds its event by id; an id reused for another kind of request is a caller's mistake, refused. */
export function sameRequest(original: GapflowEvent, input: EventBodyInput): GapflowEvent {
  const body = parseBody(input);
  const [asked, stored] = [describeRequest(body), describeRequest(original)];
  if (asked !== stored) {
    throw new Refusal(
      `event id ${original.id} is already in the log as seq ${original.seq} (${stored}), not ${asked}: a retry must repeat its request; a new request needs a new id`,
    );
  }
  return original;
}

/**
 * What a request is about, as far as a retry must repeat it: its type and
 * what it names (the gap, decision, policy or agent). Not the round: a
 * retried `round start` asks for the round after the one it opened.
 */
function describeRequest(body: { type: string; data: unknown }): string {
  const d = body.data as Record<string, unknown>;
  const names = ['id', 'kind', 'policy', 'agentSession'].filter((k) => typeof d[k] === 'string').map((k) => String(d[k]));
  return [body.type, ...names].join(' ').slice(0, 200);
}
