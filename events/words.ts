/*
 * The vocabulary's words, as plain constants (events/index.ts is their door):
 * the enums of the schemas are built from them, and the core's tables, the
 * head's readers and the spelling of what callers type take them without
 * building a schema.
 */

/**
 * Gap severities, most severe first (the order every table uses), then
 * UNTRIAGED: a gap whose severity is not known yet (it weighs as MEDIUM
 * until it is triaged).
 */
export const SEVERITY_WORDS = ['CRITICAL', 'HIGH', 'MEDIUM', 'LOW', 'UNTRIAGED'] as const;

/**
 * The gap lifecycle of R10: open, parked and closed states, and the
 * two closed states that are no verdict on the gap itself: DUPLICATE (it was
 * the same as another gap) and SPLIT (it lives on in its parts).
 */
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
  'DUPLICATE',
  'SPLIT',
] as const;

/** Threshold presets (R13). */
export const PRESET_WORDS = ['simple', 'complex', 'large', 'auto'] as const;

/** The user decisions of R11, and the two R24 and R26 add: raising the round limit, a focus on any gaps. */
export const DECISION_KIND_WORDS = [
  'narrow_scope',
  'accept_complexity',
  'prioritize_critical',
  'pause',
  'resume',
  'force_complete',
  'abandon',
  'approve',
  'extend_rounds',
  'prioritize',
] as const;

/** What a round is for (R25): work on the gaps (the default), a review of them, or a consolidation of what was written. */
export const ROUND_KIND_WORDS = ['work', 'review', 'consolidation'] as const;

/** Whether every enabled policy or any one must have converged for a session to complete. */
export const COMPLETE_WHEN_WORDS = ['any', 'all'] as const;

/** What a run of the verification gate was for: the round close or the approval that would complete the session. */
export const GATES_WORDS = ['round_close', 'approve'] as const;

/** What an approval over open CRITICAL gaps acknowledges. */
export const ACKNOWLEDGMENT_WORDS = ['critical_risk'] as const;

/** The event types, as a log line and an `append` line name them. */
export const EVENT_TYPES = [
  'session.started',
  'round.started',
  'round.closed',
  'gap.opened',
  'gap.moved',
  'gap.severity_changed',
  'gap.split',
  'gap.renamed',
  'decision.made',
  'session.bound',
  'metrics.recorded',
  'verification.ran',
  'findings.synced',
] as const;

/** The formats a tool's findings come to `sync` in: SARIF 2.1.0, JUnit XML, and gapflow's own JSON list. */
export const SYNC_FORMAT_WORDS = ['sarif', 'junit', 'json'] as const;
