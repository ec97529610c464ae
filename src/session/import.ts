import { EventTime, type BodyOf, type GapflowEvent } from '../../events/index.js';
import { Refusal, type SessionView } from '../core/index.js';
import { MemoryLog } from '../log/index.js';
import type { SessionOptions } from './options.js';
import type { BatchRequest, RequestNamer } from './writes.js';
import { Session } from './session.js';

/** One line of a recorded session: a request as `append` takes it, and when it happened. */
export interface TimedRequest extends BatchRequest {
  /** An ISO 8601 date-time with its offset; unchecked until `importedSession` reads it. */
  at?: unknown;
}

/** A recorded session decided afresh: its events, each stamped with the time its line gives, and the view they leave. */
export interface ImportedSession {
  events: readonly GapflowEvent[];
  view: SessionView;
}

/**
 * Brings a recorded session in with its dates (R30): the first request must
 * start the session; each is decided as `append` would decide it, and every
 * event it records (an automatic round.started with it) carries its line's
 * time. Refuses, naming the line, a time that is missing, not a date-time,
 * earlier than the line before, or later than `now`: a history's order is
 * its times' order, and nothing has happened yet that lies in the future.
 * Decided whole in memory: a refused line leaves nothing for the caller to
 * write.
 */
export function importedSession(
  requests: readonly TimedRequest[],
  where: RequestNamer = (i) => `line ${i + 1}`,
  options: Pick<SessionOptions, 'newId'> & { now?: Date } = {},
): ImportedSession {
  const name = (i: number) => (where === null ? `request ${i + 1}` : where(i));
  if (requests.length === 0) throw new Refusal('nothing to import: the file holds no event');
  const times = checkedTimes(requests, name, options.now ?? new Date());
  const [first] = requests;
  if (first!.body.type !== 'session.started')
    throw new Refusal(`${name(0)}: an imported session begins with session.started, not ${String(first!.body.type).slice(0, 40)}`);
  let current = times[0]!;
  const sessionOptions: SessionOptions = { clock: () => current, ...(options.newId ? { newId: options.newId } : {}) };
  const { events, view } = draftSession(requests, name, sessionOptions, (i) => {
    current = times[i]!;
  });
  return { events, view };
}

/** A new session decided in memory: its events, the view they leave, and each request's events (as `recordAll` groups them). */
export interface DraftSession {
  events: GapflowEvent[];
  view: SessionView;
  groups: GapflowEvent[][];
}

/**
 * A new session decided whole in memory, for a caller that writes it as one
 * new log (`append` of a batch that starts a session, `import`): the first
 * request starts it as `init` would, the rest are recorded as on any
 * session; nothing is written, so a refused request leaves nothing behind.
 * With `at`, each request is recorded on its own, `at(i)` called first (an
 * import sets its clock to the line's time); without, the rest are one batch.
 */
export function draftSession(
  requests: readonly BatchRequest[],
  where: (i: number) => string,
  options: SessionOptions = {},
  at?: (i: number) => void,
): DraftSession {
  const [first, ...rest] = requests;
  const draft = new MemoryLog();
  at?.(0);
  const started = Session.init(draft, (first!.body as BodyOf<'session.started'>).data, { ...options, checkpoints: false }, { eventId: first!.id });
  const { session } = started;
  const groups: GapflowEvent[][] = [[...started.events]];
  if (at === undefined) groups.push(...session.recordAll(rest, (i) => where(i + 1)).groups);
  else {
    rest.forEach((request, i) => {
      at(i + 1);
      groups.push(...session.recordAll([request], () => where(i + 1)).groups);
    });
  }
  return { events: draft.read(), view: session.view, groups };
}

/** Each request's time, read and held to the rules before anything is decided. */
function checkedTimes(requests: readonly TimedRequest[], name: (i: number) => string, now: Date): Date[] {
  const times: Date[] = [];
  requests.forEach(({ at }, i) => {
    if (at === undefined) throw new Refusal(`${name(i)}: no "at": each imported line says when it happened, e.g. "at":"2026-01-02T03:04:05Z"`);
    if (typeof at !== 'string' || !EventTime.safeParse(at).success) {
      throw new Refusal(`${name(i)}: at ${JSON.stringify(at).slice(0, 60)} is not a date-time with its offset, e.g. 2026-01-02T03:04:05Z`);
    }
    const time = new Date(at);
    const before = times.at(-1);
    if (before !== undefined && time < before) {
      throw new Refusal(`${name(i)}: at ${at} is earlier than the line before it (${before.toISOString()}); imported time must not go backwards`);
    }
    if (time > now) throw new Refusal(`${name(i)}: at ${at} lies in the future (it is now ${now.toISOString()})`);
    times.push(time);
  });
  return times;
}
