import type { DecisionData, DecisionKind, GapState, RoundKind, SessionSettings, Severity, SyncFormat } from '../../events/index.js';
import type { ConvergenceConfig, ConvergenceState, MachineState } from '../../machines/index.js';
import type { CombinedVerdict, CompleteWhen, NamedVerdict } from '../policies/index.js';
import type { Forecast } from './read-model.js';

export interface Gap {
  id: string;
  severity: Severity;
  title: string;
  state: GapState;
  spawnedBy: string | null;
  blocking: boolean;
  /** 0 for a baseline gap, recorded before round 1. */
  openedInRound: number;
  /** Why the gap is where it is, from its last move (shown for BLOCKED gaps). */
  reason: string | null;
  blockedBy: string | null;
  /** R20: for a DUPLICATE gap, the gap it duplicates. */
  duplicateOf?: string;
  /** R21: for a SPLIT gap, its parts; for a part, the gap it was split from. */
  splitInto?: string[];
  splitFrom?: string;
  /**
   * Ping-pong: how often the gap was counted resolved, and how often it came
   * back open from a state it was resolved into (a reopen from DUPLICATE or
   * SPLIT is not one). Absent while 0. A rename keeps them (the gap is the
   * same); a split's parts start with the parent's (splitting a gap that
   * keeps coming back does not make it new).
   */
  resolves?: number;
  reopens?: number;
  /** The findings source whose snapshot opened it; absent for a gap opened by hand (it belongs to no source). */
  source?: string;
  /** The source whose snapshot closed it (gone from it); absent while open, or when it was closed by hand. */
  closedBy?: string;
  /** Closed by hand as fixed, then reopened because its source still reported it: a claim the tool disputes, until the gap closes again. */
  claimed?: boolean;
}

export interface SeverityFigures {
  resolved: number;
  new: number;
  weightedResolved: number;
  weightedNew: number;
}

/** A gap counted as resolved this round, at the weight it had then (R6). */
export interface ResolvedEntry {
  id: string;
  severity: Severity;
  weight: number;
  to: GapState;
}

/** A gap counted as new this round: opened, or reopened from a closed state (R6). */
export interface NewEntry {
  id: string;
  severity: Severity;
  weight: number;
  title: string;
  spawnedBy: string | null;
  reopened: boolean;
}

/** A gap withdrawn this round as a duplicate of another (R20): neither resolved nor new. */
export interface WithdrawnEntry {
  id: string;
  severity: Severity;
  weight: number;
  of: string;
  /** Whether the gap was deferred (parked) before it was withdrawn: a reopen in the same round takes the withdrawal back to that. */
  parked?: boolean;
}

/** A gap split this round (R21): its parts, and the weight they add (positive) or take away (negative). */
export interface SplitEntry {
  id: string;
  into: string[];
  delta: number;
}

export interface SeverityChangeEntry {
  id: string;
  from: Severity;
  to: Severity;
  /** Added to weighted new (escalation, positive) or weighted resolved (de-escalation, negative). */
  delta: number;
}

export interface RoundFigures {
  round: number;
  /** R25: what the round was for (`work` unless its start said otherwise). */
  kind: RoundKind;
  openStart: number;
  weightedOpenStart: number;
  /** null while the round is open. */
  openEnd: number | null;
  weightedOpenEnd: number | null;
  resolved: number;
  new: number;
  weightedResolved: number;
  weightedNew: number;
  /** R20: gaps withdrawn as duplicates (Open End = Open Start - resolved + new - withdrawn, deferrals aside). */
  withdrawn: number;
  weightedWithdrawn: number;
  unweightedNet: number;
  weightedNet: number;
  bySeverity: Record<Severity, SeverityFigures>;
  resolvedGaps: ResolvedEntry[];
  newGaps: NewEntry[];
  withdrawnGaps: WithdrawnEntry[];
  splits: SplitEntry[];
  severityChanges: SeverityChangeEntry[];
  /** Gaps opened, reopened or escalated as CRITICAL this round (R5), or back from deferral as CRITICAL (R29); not a deferred gap escalated. */
  criticalIntroduced: string[];
  /**
   * Only while the round is open, and only when R29 made a difference: the
   * CRITICAL introductions as the rule before R29 counted them (a deferred
   * gap's escalation was one, its return was not). A close recorded without
   * its outcome, in a log from before outcomes, is judged with this (R19).
   */
  criticalBeforeR29?: string[];
  /**
   * Only while the round is open: the withdrawals a reopen in the same round
   * took back (R20), with the gap as it was reopened. A close recorded by the
   * build before that rule counted each as withdrawn and as new; the fold
   * puts them back then, so the lists agree with the figures recorded (R19).
   */
  withdrawalsTakenBack?: { entry: WithdrawnEntry; gap: Gap }[];
  /** R26: gaps moved this round while a focus was set that did not name them, in the order first moved. */
  outsideFocus: string[];
  /** Gaps someone closed by hand (RESOLVED, ACCEPTED) that a source's snapshot still reported, so it reopened them; absent while none. */
  claimed?: string[];
  /** The state the round led to; null while it is open. */
  state: ConvergenceState | null;
  /** The flat count after the round; null while open and for a round that ended in DIVERGENCE_WARNING (R4). */
  flatCount: number | null;
  /** Each enabled policy's verdict at the round's close (empty while open). */
  verdicts: NamedVerdict[];
  /** The verdict that drove the machine (every policy's, combined, round limit applied); null while open. */
  combined: CombinedVerdict | null;
}

/** One policy's metrics for one round, as its schema parsed them. */
export interface MetricsRecord {
  round: number;
  metrics: unknown;
}

/** The session's policies (R15): which run, how they combine, their settings and what they recorded. */
export interface PolicyView {
  /** In the session's order; the registry's default when it named none. */
  enabled: string[];
  completeWhen: CompleteWhen;
  /** Each enabled metric policy's resolved settings. */
  settings: Map<string, unknown>;
  /** Each enabled metric policy's metrics, oldest first, one per round. */
  records: Map<string, MetricsRecord[]>;
}

export interface HistoryEntry {
  /** The round that closed, or, for a decision, the last round closed before it. */
  round: number;
  from: ConvergenceState;
  to: ConvergenceState;
  reason: string;
  /** What caused the step. */
  cause: 'round' | 'decision';
  /** For a decision: it was made while round `round + 1` was open (pause and resume may be). */
  duringRound: boolean;
}

export interface DecisionRecord {
  afterRound: number;
  /** It was made while round `afterRound + 1` was open (pause, resume and an extension of the limit may be). */
  duringRound: boolean;
  kind: DecisionKind;
  gaps: string[];
  rationale: string | null;
  acknowledgment: NonNullable<DecisionData['acknowledgment']> | null;
  /** `extend_rounds`: the rounds it added; null for every other kind. */
  rounds: number | null;
  /** What it did, in words (decisions.md's Effect column, R27). */
  effect: string;
}

/** R22: a gap given a new id; the old one is never used again. */
export interface RenameRecord {
  from: string;
  to: string;
  afterRound: number;
}

export interface Baseline {
  afterRound: number;
  openCount: number;
  weightedOpen: number;
}

/** One recorded run of the verification gate, with where in the log it was and whether it passed (exit code 0, in time). */
export interface VerificationRecord {
  seq: number;
  /** Rounds closed when it ran. */
  afterRound: number;
  gates: 'round_close' | 'approve';
  command: string;
  exitCode: number | null;
  durationMs: number;
  timedOut: boolean;
  output: string;
  passed: boolean;
}

/** A findings source's last snapshot (`findings.synced`): when, how many findings it reported, and what reconciling it did. */
export interface SourceRecord {
  source: string;
  format: SyncFormat;
  seq: number;
  at: string;
  /** The round it belongs to; 0 for a snapshot of the baseline, recorded before round 1. */
  round: number;
  reported: number;
  opened: number;
  resolved: number;
  reopened: number;
  /** Gaps closed by hand that it still reported (reopened), by id. */
  claimed: string[];
}

/**
 * Where a head's part of a list of gaps ends (the list of gaps not closed,
 * or of open ones, most severe first, then as recorded): every gap of the
 * list more severe than `severity` is kept, and of `severity`'s, the ones
 * named in `before`, recorded before the first one left out (whatever
 * their state now). The head lists that part exactly while it holds
 * LISTED_GAPS gaps of the list at least (`headIsExact`).
 */
export interface ListFrontier {
  severity: Severity;
  before: string[];
}

/** What a head leaves out of the gaps not closed: how many, open and parked, and where its part of each list ends (null: it leaves none of that list out). */
export interface GapsLeftOut {
  open: number;
  parked: number;
  unfinished: ListFrontier | null;
  openList: ListFrontier | null;
}

/** Everything the log says, folded: the single read model all output is rendered from. */
export interface SessionView {
  /** null until session.started is folded. */
  settings: SessionSettings | null;
  config: ConvergenceConfig;
  /** Gaps recorded before round 1, frozen when it starts; null before. */
  baselineGapCount: number | null;
  gaps: Map<string, Gap>;
  /** R22: every rename, oldest first; an id renamed away is retired for good. */
  renames: RenameRecord[];
  /** R9's open count and weighted open count, kept as the gaps change so no round re-sums the inventory. */
  open: { count: number; weighted: number };
  /** The rounds this view keeps, oldest first: every round of the whole view; a head's last few (see `roundsBefore`). */
  rounds: RoundFigures[];
  /**
   * How many rounds came before `rounds[0]` and are left out of this view:
   * 0 for the whole view; for a head, the rounds it does not keep (all
   * closed, save in a hand-made log). A round's number is not its index:
   * ask `roundCount`, `closedRoundCount` and `lastClosedRound`, not
   * `rounds.length`. Not stored in a whole view's checkpoint (0 there); a
   * head's checkpoint carries it beside the view.
   */
  roundsBefore: number;
  /**
   * The gaps not closed this view leaves out: none in the whole view; for a
   * head cut from a large inventory, all but the first ones in the list's
   * order and the ones the loop names (see `headOf` in view-codec.ts). Not
   * stored in a whole view's checkpoint.
   */
  gapsLeftOut: GapsLeftOut;
  /**
   * The weighted open count at the end of the last closed rounds (at most
   * FORECAST_ROUNDS, oldest first; the last is the last closed round's): the
   * forecast's series, kept apart from the rounds because the head keeps
   * only the last two rounds whole. Bounded, so a head stays a few kilobytes
   * however long the session ran.
   */
  weightedOpenEnds: number[];
  roundOpen: boolean;
  machine: MachineState;
  history: HistoryEntry[];
  decisions: DecisionRecord[];
  /** The gaps the user chose to prioritize (R11's CRITICAL ones, or any, R26); each stays until it closes. */
  focus: string[];
  /** R24: the rounds every `extend_rounds` decision added to the round limit, kept over round 1's resolution of the thresholds. */
  roundsExtended: number;
  /** Set by "accept complexity" (R11). */
  baseline: Baseline | null;
  /** The agent session whose stop hook drives this session (`session.bound`); null while unbound. */
  agentSession: string | null;
  policies: PolicyView;
  /** The open count at the close of the last few rounds (ALTERNATING_ROUNDS at most), oldest first: an open count going back and forth is read from it. */
  openEnds: { round: number; openEnd: number }[];
  /** The verification gate's last run (`verification.ran`); null before the first. */
  verification: VerificationRecord | null;
  /** Each findings source's last snapshot, in the order the sources first synced. */
  sources: SourceRecord[];
  /** The last event's seq, which is also the number of events folded (seq runs 1, 2, 3…). */
  lastSeq: number;
  /** When the last event was recorded (its `at`); null before any. */
  lastAt: string | null;
  /**
   * How many round closes moved the session to DIVERGENCE_WARNING (a
   * decision that leads back there is the same warning still standing, not
   * a new one): kept as the rounds close, so a head that keeps only the
   * last rounds' history still counts every warning.
   */
  warningsRaised: number;
}

/** What a session's row in a fleet shows of it, whatever the clock: read off its whole view or its head alike. */
export interface SessionSummary {
  state: ConvergenceState;
  /** How a COMPLETE session ended (CONVERGED, APPROVED, …); null otherwise. */
  outcome: string | null;
  /** Rounds closed, as `state --json` counts them. */
  round: number;
  roundOpen: boolean;
  open: number;
  weightedOpen: number;
  /** Why the session took its last step (the last state history entry); null before any. */
  lastReason: string | null;
  /** The forecast `state --json` gives (null once COMPLETE, or when no policy reads gaps). */
  forecast: Forecast | null;
  /** Round closes that raised a DIVERGENCE_WARNING (`warningsRaised`). */
  warnings: number;
  /** Events in the log. */
  eventCount: number;
  /** When the last event was recorded (its `at`); null before any. */
  lastEventAt: string | null;
}
