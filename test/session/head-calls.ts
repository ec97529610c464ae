import fc from 'fast-check';
import { Refusal } from '../../src/core/index.js';
import { FileLog, type PgLog } from '../../src/log/index.js';
import { Session } from '../../src/session/index.js';
import type { GapState, Severity } from '../../events/index.js';
import { GAP_STATES, SEVERITY_LIST } from './model.js';

/*
 * What the tests of writes decided on the head share: the store they open
 * (heads and indexes at any log length), the calls they make on a copy
 * opened from its head, the stamps that make two copies write the same
 * bytes, and the random picks their requests are read from.
 */

/** Heads and indexes on logs of any length, so short random sessions exercise them. */
export const store = (dir: string) => new FileLog(dir, { minCheckpointBytes: 0 });

/** The same stamps for both copies: call `call`'s n-th event gets id `e<call>-<n>`. */
export const stampOf = (call: number) => {
  let n = 0;
  return { clock: () => new Date(Date.UTC(2026, 0, 1, 0, 0, call)), newId: () => `e${call}-${n++}` };
};

/**
 * A session opened from its head, and how often it read its whole view (a
 * read of the view checkpoint, or of every line, goes through `resume`):
 * none when a write was decided on the head.
 */
export function onTheHead(dir: string, call: number): { session: Session; wholeReads: () => number } {
  return onTheHeadOf(store(dir), call);
}

/** `onTheHead` for the session in `log` (a store with checkpoints: a folder's, a database's). */
export function onTheHeadOf(log: FileLog | PgLog, call: number): { session: Session; wholeReads: () => number } {
  const resume = log.checkpoints.resume.bind(log.checkpoints);
  let reads = 0;
  log.checkpoints.resume = (...args) => {
    reads += 1;
    return resume(...args);
  };
  return { session: Session.open(log, { ...stampOf(call), head: true }), wholeReads: () => reads };
}

export type Outcome = { refused: string } | { groups: unknown } | null;

/** What a write came to: what it recorded, or the refusal's words. */
export function outcome(run: () => { groups: unknown } | null): Outcome {
  try {
    return run();
  } catch (error) {
    if (error instanceof Refusal) return { refused: error.message };
    throw error;
  }
}

/** The random picks a request is read from (against the view before the call). */
export interface RequestPick {
  kind: number;
  a: number;
  b: number;
  c: number;
  severity: Severity;
  state: GapState;
  flag: boolean;
}

export const requestArb: fc.Arbitrary<RequestPick> = fc.record({
  kind: fc.nat(99),
  a: fc.nat(),
  b: fc.nat(),
  c: fc.nat(),
  severity: fc.constantFrom(...SEVERITY_LIST),
  state: fc.constantFrom(...GAP_STATES),
  flag: fc.boolean(),
});
