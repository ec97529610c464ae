/*
 * Deep freezing, for the views the core hands out: replay's, a
 * checkpoint's, the head's. Written here rather than taken from immer
 * (whose `freeze(value, true)` the fold used): immer's walk visits every key
 * through its generic `each`, and on a 100k-event view took 60 ms where
 * this loop takes 15; and the head's reader loads no immer at all.
 */

/** Stands in for a frozen Map's `set`, `delete` and `clear`, as immer's frozen Maps have it. */
function refuseWrite(): never {
  throw new Error('this Map belongs to a frozen view and cannot be changed');
}

/**
 * Freezes `value` and everything in it (objects, arrays, Maps and their
 * values); a part already frozen is taken as frozen through, as immer
 * takes it (views share their unchanged parts). A frozen Map's writers
 * throw, so a view's Map cannot be changed by mistake either.
 */
export function deepFreeze<T>(value: T): T {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return value;
  if (value instanceof Map) {
    for (const entry of value.values() as Iterable<unknown>) deepFreeze(entry);
    Object.assign(value, { set: refuseWrite, delete: refuseWrite, clear: refuseWrite });
  } else if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) deepFreeze(value[i]);
  } else {
    for (const key in value) deepFreeze((value as Record<string, unknown>)[key]);
  }
  return Object.freeze(value);
}

/**
 * Freezes a tree built just now (a fold's working copy, a decoded
 * checkpoint) as `deepFreeze` does, without asking each part whether it is
 * frozen already: nothing in a fresh tree is, and on a long log's view the
 * asking was a third of the freezing. A part that is frozen after all is
 * only frozen again (a no-op), save a Map, whose writers are replaced once.
 */
export function freezeNew<T>(value: T): T {
  if (typeof value === 'object' && value !== null) freezeTree(value);
  return value;
}

function freezeTree(value: object): void {
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      if (typeof item === 'object' && item !== null) freezeTree(item);
    }
  } else if (value instanceof Map) {
    if (Object.isFrozen(value)) return;
    for (const item of value.values() as Iterable<unknown>) if (typeof item === 'object' && item !== null) freezeTree(item);
    Object.assign(value, { set: refuseWrite, delete: refuseWrite, clear: refuseWrite });
  } else {
    for (const key in value) {
      const item = (value as Record<string, unknown>)[key];
      if (typeof item === 'object' && item !== null) freezeTree(item);
    }
  }
  Object.freeze(value);
}
