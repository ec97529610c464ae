import * as z from 'zod';
import {
  DecisionMade,
  MetricsRecorded,
  GapMoved,
  GapOpened,
  GapRenamed,
  GapSeverityChanged,
  GapSplit,
  RoundClosed,
  RoundStarted,
  SessionBound,
  SessionStarted,
  VerificationRan,
} from './schemas.js';
import { EventBody } from './schemas.js';
import { EventId } from './vocabulary.js';

const withId = { id: EventId.optional() };

/**
 * One line of a batch given to `gapflow append`: an event body and, if the
 * caller wants to name its event, an `id`. The writer adds `v`, `seq` and `at`.
 */
export const EventRequest = z.discriminatedUnion('type', [
  SessionStarted.extend(withId),
  RoundStarted.extend(withId),
  RoundClosed.extend(withId),
  GapOpened.extend(withId),
  GapMoved.extend(withId),
  GapSeverityChanged.extend(withId),
  GapSplit.extend(withId),
  GapRenamed.extend(withId),
  DecisionMade.extend(withId),
  SessionBound.extend(withId),
  MetricsRecorded.extend(withId),
  VerificationRan.extend(withId),
]);
export type EventRequest = z.infer<typeof EventRequest>;

/** The fields the object at `path` in a request of `type` may hold, for a "did you mean"; undefined when that is not known. */
export function requestFields(type: unknown, path: readonly PropertyKey[]): readonly string[] | undefined {
  if (path.length === 0) return ['type', 'data'];
  if (path.length !== 1 || path[0] !== 'data') return undefined;
  const option = EventBody.options.find((o) => o.shape.type.value === type);
  return option === undefined ? undefined : Object.keys(option.shape.data.shape);
}
