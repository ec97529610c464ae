/*
 * The events folder's second door: the vocabulary's words as plain
 * constants, with no schema library. The core's tables and the head's
 * readers (`next`, a stop hook) take them from here without loading zod;
 * vocabulary.ts builds its enums from them.
 */

/** Gap severities, most severe first (the order every table uses). */
export const SEVERITY_WORDS = ['CRITICAL', 'HIGH', 'MEDIUM', 'LOW'] as const;

/** The gap lifecycle of RULINGS R10: open, parked and closed states. */
export const GAP_STATE_WORDS = [
  'OPEN',
  'IN_PROGRESS',
  'BLOCKED',
  'PROPOSED',
  'NEEDS_REVISION',
  'USER_DEFERRED',
  'ACCEPTED',
  'RESOLVED',
  'WONT_FIX',
] as const;
