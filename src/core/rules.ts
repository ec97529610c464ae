import { type GapState, type Preset, type SessionSettings, type Severity, SEVERITY_WORDS } from '../../events/index.js';
import type { ConvergenceConfig } from '../../machines/index.js';
import type { Gap, SessionView } from './view.js';

/*
 * The rules' tables and pure functions of them. Loads no schema (the words
 * come from events/words.ts): `next` and a stop hook read these from the
 * head alone. The thresholds a session's settings resolve to, which read
 * its policies' settings, are in policy-settings.ts.
 */

/** Severity weights (docs/rules.md#gaps-weights-and-the-open-count): CRITICAL weighs 16 (an earlier version of the gap rules had 8). R23: an untriaged gap weighs as MEDIUM until triaged. */
export const SEVERITY_WEIGHT: Readonly<Record<Severity, number>> = { CRITICAL: 16, HIGH: 4, MEDIUM: 2, LOW: 1, UNTRIAGED: 2 };
/** Most severe first: the order of every table. */
export const SEVERITIES: readonly Severity[] = SEVERITY_WORDS;

export type GapStateClass = 'open' | 'parked' | 'closed';

/** R10: which states count 1, 0.5 and 0 toward the open count. */
export const STATE_CLASS: Readonly<Record<GapState, GapStateClass>> = {
  OPEN: 'open',
  IN_PROGRESS: 'open',
  BLOCKED: 'open',
  PROPOSED: 'open',
  NEEDS_REVISION: 'open',
  USER_DEFERRED: 'parked',
  ACCEPTED: 'closed',
  RESOLVED: 'closed',
  WONT_FIX: 'closed',
  DUPLICATE: 'closed',
  SPLIT: 'closed',
};

/**
 * How many gaps not closed `next --json` lists (and of them, how many open
 * ones it names by severity), most severe first, in the order they were
 * recorded; it counts the rest. A head keeps at least these.
 */
export const LISTED_GAPS = 100;

/** R9: a parked gap counts half. */
export const CLASS_FACTOR: Readonly<Record<GapStateClass, number>> = { open: 1, parked: 0.5, closed: 0 };

/**
 * R10: the workflow's moves plus the shortcuts real mediators take
 * (any open state to RESOLVED or USER_DEFERRED; a closed state back to OPEN or
 * NEEDS_REVISION), and any state to WONT_FIX. R20: an open or parked gap may
 * be withdrawn as a DUPLICATE, and a duplicate reopened like any closed gap.
 * A SPLIT gap lives on in its parts: nothing moves it (and only a split
 * makes one).
 */
export const ALLOWED_MOVES: Readonly<Record<GapState, readonly GapState[]>> = {
  OPEN: ['IN_PROGRESS', 'RESOLVED', 'USER_DEFERRED', 'WONT_FIX', 'DUPLICATE'],
  IN_PROGRESS: ['PROPOSED', 'BLOCKED', 'RESOLVED', 'USER_DEFERRED', 'WONT_FIX', 'DUPLICATE'],
  BLOCKED: ['IN_PROGRESS', 'RESOLVED', 'USER_DEFERRED', 'WONT_FIX', 'DUPLICATE'],
  PROPOSED: ['ACCEPTED', 'NEEDS_REVISION', 'RESOLVED', 'USER_DEFERRED', 'WONT_FIX', 'DUPLICATE'],
  NEEDS_REVISION: ['PROPOSED', 'BLOCKED', 'RESOLVED', 'USER_DEFERRED', 'WONT_FIX', 'DUPLICATE'],
  USER_DEFERRED: ['OPEN', 'WONT_FIX', 'DUPLICATE'],
  ACCEPTED: ['RESOLVED', 'OPEN', 'NEEDS_REVISION', 'WONT_FIX'],
  RESOLVED: ['OPEN', 'NEEDS_REVISION', 'WONT_FIX'],
  WONT_FIX: ['OPEN', 'NEEDS_REVISION'],
  DUPLICATE: ['OPEN', 'NEEDS_REVISION', 'WONT_FIX'],
  SPLIT: [],
};

/** R6, R10 and R20: what a move counts as in the round's figures. */
export type MoveEffect = 'resolved' | 'withdrawn' | 'reopened' | 'none';

export function moveEffect(from: GapState, to: GapState): MoveEffect {
  const before = STATE_CLASS[from];
  const after = STATE_CLASS[to];
  // R20: finding that two gaps were one is not progress.
  if (to === 'DUPLICATE' && before !== 'closed') return 'withdrawn';
  if (after === 'closed' && before !== 'closed') return 'resolved';
  if (before === 'closed' && after !== 'closed') return 'reopened';
  return 'none';
}

/**
 * What a move recorded into `view` counted as in its round's figures; a
 * move outside a round (a baseline gap's) counts as nothing, as `evolve`
 * counts it.
 */
export function countedMove(view: Pick<SessionView, 'roundOpen'>, from: GapState, to: GapState): MoveEffect {
  return view.roundOpen ? moveEffect(from, to) : 'none';
}

/**
 * A claim a tool still disputes: a gap someone closed by hand as fixed
 * (RESOLVED, or a proposal ACCEPTED) that its source's next snapshot still
 * reports, so that snapshot (`by`) reopens it. A gap the source's own
 * snapshot closed and that comes back is a finding returning, not a claim.
 */
export function claimedStillReported(gap: Pick<Gap, 'state' | 'closedBy'>, by: string | undefined, to: GapState): boolean {
  return by !== undefined && STATE_CLASS[to] !== 'closed' && (gap.state === 'RESOLVED' || gap.state === 'ACCEPTED') && gap.closedBy === undefined;
}

/** R13: thresholds per preset. */
export const PRESETS: Readonly<Record<Exclude<Preset, 'auto'>, { stallThreshold: number; divergenceThreshold: number }>> = {
  simple: { stallThreshold: 2, divergenceThreshold: 8 },
  complex: { stallThreshold: 3, divergenceThreshold: 12 },
  large: { stallThreshold: 4, divergenceThreshold: 16 },
};

export const DEFAULT_CONFIG: Readonly<ConvergenceConfig> = {
  stallThreshold: 2,
  divergenceThreshold: 8,
  maxRounds: 10,
  criticalOverride: true,
};

/** R13: `auto` picks by baseline size: under 10 simple, 10 to 29 complex, 30 or more large. */
export function presetForBaseline(baselineGaps: number): Exclude<Preset, 'auto'> {
  if (baselineGaps < 10) return 'simple';
  if (baselineGaps < 30) return 'complex';
  return 'large';
}

/**
 * The round limit is not known yet: preset `auto` sets it from the baseline
 * when round 1 starts, unless the session gave max_rounds itself. Until then
 * an extension (R24) can only say how many rounds it adds to that limit.
 */
export function roundLimitProvisional(view: { settings: SessionSettings | null; rounds: readonly unknown[]; roundsBefore: number }): boolean {
  // read-model's roundCount, spelled out: read-model imports this module, and a gap open runs no function of it (test/cli/one-path.test.ts).
  return view.roundsBefore + view.rounds.length === 0 && view.settings?.preset === 'auto' && view.settings.maxRounds === undefined;
}
