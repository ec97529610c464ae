import type { DecisionKind } from '../../events/index.js';
import { LISTED_GAPS } from './rules.js';
import { isOpen, lastClosedRound, unfinishedGaps, tracksGaps } from './read-model.js';
import { policyRulesNamed } from '../policies/index.js';
import type { Gap, RoundFigures, SessionView } from './view.js';

/*
 * The user's options when a decision is due (DIVERGENCE_WARNING), as data:
 * what each decision would name, which one is recommended and why (rule
 * R28), and the request that takes it. The decision prompt words them; `next
 * --json` hands them to a loop in any language, whose user picks one and
 * sends its request to `append` as it is. Loads no zod, statechart or immer:
 * `next` answers from the head checkpoint, which holds every gap not closed
 * and the last rounds whole, all these read.
 */

/** Why an option is the one recommended (R28), for the renderer to word with its figures. */
export type Recommendation =
  /** A CRITICAL gap was introduced in the round, or is still open. */
  | 'critical'
  /** Open MEDIUM or LOW gaps spawned this round or marked non-blocking, none waited on: deferring them narrows the scope. */
  | 'spawned_minor_gaps'
  /** A stall in which gaps were still resolved: the new ones are the real scope. */
  | 'stall_with_progress'
  /** A stall in which nothing was resolved: the work is stuck and needs the user. */
  | 'stall_without_progress'
  /** The round went below the divergence threshold with gaps that are neither spawned nor minor: the scope grew. */
  | 'scope_grew'
  /** Policies other than gaps judged the round: go on with a fresh flat count. */
  | 'policies_diverged'
  /** Policies other than gaps saw no progress for the stall threshold's rounds. */
  | 'policies_stalled'
  /** A guard (a budget) warned: what is left will not carry the work to its end, so the scope is narrowed to fit. */
  | 'guard_warned';

/** One decision the user may take now. */
export interface DecisionOption {
  kind: DecisionKind;
  /** The gaps the decision names or acts on: the ones to defer, to focus on, or left open by completing. */
  gaps: Gap[];
  /** Narrow scope only: its gaps are R28's fallback (open MEDIUM/LOW gaps none waits on), as none was spawned this round or marked non-blocking. */
  fallback?: true;
  /** Set on the one option recommended, saying why. */
  recommended: Recommendation | null;
  /** The request's fields the user must supply first (`data.gaps`: which gaps to defer); empty when `event` is whole. */
  requires: string[];
  /** The request that takes the option, as `append` and `Session.record` take it; null while `requires` is not empty. */
  event: { type: 'decision.made'; data: { kind: DecisionKind; gaps?: string[] } } | null;
}

/** The gaps a narrow-scope decision is suggested to defer (R28), and on what ground. */
export interface DeferralSuggestion {
  /** Open MEDIUM and LOW gaps, in the order recorded. */
  gaps: string[];
  /**
   * False when they were spawned this round or marked non-blocking (then
   * narrow scope is the recommendation); true when none was, and these are
   * the open MEDIUM and LOW gaps no other gap waits on, a place to start.
   */
  fallback: boolean;
}

/**
 * R28's narrow-scope suggestion: the open MEDIUM and LOW gaps the round
 * spawned or that are marked non-blocking; when there are none, the open
 * MEDIUM and LOW gaps no other gap is blocked by. A gap another gap waits
 * on (BLOCKED by it) is never suggested: deferring it would park that one
 * too. Reads only gaps not closed, which a head checkpoint holds.
 */
export function suggestedDeferrals(view: Pick<SessionView, 'gaps'>, round: RoundFigures): DeferralSuggestion {
  const waitedOn = new Set<string>();
  for (const g of view.gaps.values()) if (g.blockedBy !== null && isOpen(g)) waitedOn.add(g.blockedBy);
  const minor = [...view.gaps.values()].filter((g) => (g.severity === 'MEDIUM' || g.severity === 'LOW') && isOpen(g) && !waitedOn.has(g.id));
  const spawned = new Set(round.newGaps.filter((g) => g.spawnedBy !== null && !g.reopened).map((g) => g.id));
  const named = minor.filter((g) => spawned.has(g.id) || !g.blocking).map((g) => g.id);
  if (named.length > 0) return { gaps: named, fallback: false };
  return { gaps: minor.map((g) => g.id), fallback: true };
}

/** Whether the round that raised the warning got there through a stall (R4 records STALLED on the way). */
export function stalledIn(view: Pick<SessionView, 'history'>, round: RoundFigures): boolean {
  return view.history.some((h) => h.cause === 'round' && h.round === round.round && h.to === 'STALLED');
}

/** The gaps not closed (open and deferred), most severe first, in the order they were recorded. */
export function listedGaps(view: Pick<SessionView, 'gaps'>): Gap[] {
  return unfinishedGaps(view.gaps.values());
}

/**
 * The first LISTED_GAPS gaps not closed in the list's order (what `next
 * --json` lists), and how many more there are: a head keeps those first
 * ones and counts the rest, so the answer is the same from either.
 */
export function topListedGaps(view: Pick<SessionView, 'gaps' | 'gapsLeftOut'>): { gaps: Gap[]; notListed: number } {
  const all = listedGaps(view);
  const leftOut = view.gapsLeftOut.open + view.gapsLeftOut.parked;
  return { gaps: all.slice(0, LISTED_GAPS), notListed: Math.max(0, all.length - LISTED_GAPS) + leftOut };
}

function option(kind: DecisionKind, gaps: Gap[], named?: string[]): DecisionOption {
  const data = named === undefined ? { kind } : { kind, gaps: named };
  return { kind, gaps, recommended: null, requires: [], event: { type: 'decision.made', data } };
}

/**
 * The decisions open to the user now, in the order the decision prompt
 * lists them, one of them recommended; empty when no decision is due.
 */
export function decisionOptions(view: SessionView): DecisionOption[] {
  const round = lastClosedRound(view);
  if (view.machine.state !== 'DIVERGENCE_WARNING' || round === undefined || round.combined === null) return [];
  const unfinished = listedGaps(view);
  const stalled = stalledIn(view, round);
  if (!tracksGaps(view)) {
    const options = [option('accept_complexity', []), option('pause', []), option('force_complete', []), option('abandon', [])];
    return recommend(options, stalled ? ['pause', 'policies_stalled'] : ['accept_complexity', 'policies_diverged']);
  }
  const gap = (id: string) => view.gaps.get(id)!;
  const { gaps: defer, fallback } = suggestedDeferrals(view, round);
  const critical = unfinished.filter((g) => g.severity === 'CRITICAL' && isOpen(g));
  const narrow: DecisionOption =
    defer.length > 0
      ? { ...option('narrow_scope', defer.map(gap), defer), ...(fallback ? { fallback: true as const } : {}) }
      : { kind: 'narrow_scope', gaps: [], recommended: null, requires: ['data.gaps'], event: null };
  const options = [narrow, option('accept_complexity', [])];
  if (critical.length > 0)
    options.push(
      option(
        'prioritize_critical',
        critical,
        critical.map((g) => g.id),
      ),
    );
  options.push(option('pause', []), option('force_complete', unfinished), option('abandon', []));
  const guard =
    round.combined.verdict === 'diverging' &&
    round.combined.policies.length > 0 &&
    round.combined.policies.every((name) => policyRulesNamed(name)?.guard === true);
  return recommend(options, recommendation(round, { critical: critical.length > 0, guard, defer: !fallback, stalled }));
}

/**
 * R28: a CRITICAL introduced or still open → prioritize critical; else a
 * guard's warning (the budget runs out first) → narrow scope; else
 * MEDIUM or LOW gaps spawned this round or marked non-blocking → narrow
 * scope, naming them; else a
 * stall → accept complexity when the round still resolved gaps (new work
 * is replacing finished work), pause when it resolved none (the work is
 * stuck); else (the scope grew past the threshold) → accept complexity.
 */
function recommendation(round: RoundFigures, found: { critical: boolean; guard: boolean; defer: boolean; stalled: boolean }): [DecisionKind, Recommendation] {
  if (found.critical) return ['prioritize_critical', 'critical'];
  if (found.guard) return ['narrow_scope', 'guard_warned'];
  if (found.defer) return ['narrow_scope', 'spawned_minor_gaps'];
  if (found.stalled) return round.resolved > 0 ? ['accept_complexity', 'stall_with_progress'] : ['pause', 'stall_without_progress'];
  return ['accept_complexity', 'scope_grew'];
}

function recommend(options: DecisionOption[], [kind, why]: [DecisionKind, Recommendation]): DecisionOption[] {
  return options.map((o) => (o.kind === kind ? { ...o, recommended: why } : o));
}
