import { EventBody } from './schemas.js';

/**
 * One line of a batch given to `gapflow append`: an event body and, if the
 * caller wants to name its event, an `id`. Its schemas are built with the
 * bodies' (schemas.ts), one type at a time.
 */
export { EventRequest } from './schemas.js';

/** The fields the object at `path` in a request of `type` may hold, for a "did you mean"; undefined when that is not known. */
export function requestFields(type: unknown, path: readonly PropertyKey[]): readonly string[] | undefined {
  if (path.length === 0) return ['type', 'data'];
  if (path.length !== 1 || path[0] !== 'data') return undefined;
  const option = EventBody.option(type);
  return option === undefined ? undefined : Object.keys(option.shape.data.shape);
}
