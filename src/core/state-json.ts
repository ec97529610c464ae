import { alternatingOpenCount, pingPongGaps } from './ping-pong.js';
import { viewForecast } from './session-forecast.js';
import { closedRounds } from './inventory.js';
import { STATE_CLASS } from './rules.js';
import { policyStates } from './policies.js';
import { nextStep, type NextAction } from './next.js';
import type { SessionView } from './view.js';

/**
 * The `gapflow state --json` contract: plain data a script in any language
 * can read. The CLI stores what it prints, keyed by STATE_JSON_SHAPE
 * (src/session/state-format.ts): a change here within a version bumps it.
 */
export function toStateJson(view: SessionView) {
  const closed = closedRounds(view);
  const decision: { action: NextAction; reason: string } = nextStep(view);
  return {
    state: view.machine.state,
    outcome: view.machine.outcome,
    round: closed.length,
    roundOpen: view.roundOpen,
    flatCount: view.machine.flatCount,
    openGapCount: view.open.count,
    weightedOpen: view.open.weighted,
    config: { ...view.config },
    preset: view.settings?.preset ?? null,
    baselineGapCount: view.baselineGapCount,
    decision,
    forecast: viewForecast(view),
    focus: [...view.focus],
    baseline: view.baseline ? { ...view.baseline } : null,
    pausedFrom: view.machine.pausedFrom,
    agentSession: view.agentSession,
    // R22, R23: shown once a session has any (every key below that is conditional keeps older sessions' output as it was).
    ...(view.renames.length > 0 ? { renames: view.renames.map(({ from, to, afterRound }) => ({ from, to, afterRound })) } : {}),
    ...untriaged(view),
    // Shown once they say something: a gap in a fix-break cycle, an open count going back and forth, a verification check.
    ...(pingPongGaps(view).length > 0 ? { pingPong: pingPongGaps(view) } : {}),
    ...(alternatingOpenCount(view) ? { openCountAlternating: alternatingOpenCount(view) } : {}),
    ...(view.settings?.verify ? { verification: { ...view.settings.verify, lastRun: lastRun(view) } } : {}),
    rounds: closed.map((r) => ({
      round: r.round,
      // R25, R26: only where they say something, so a session of work rounds without a focus reads as it always did.
      ...(r.kind === 'work' ? {} : { kind: r.kind }),
      openStart: r.openStart,
      resolved: r.resolved,
      new: r.new,
      openEnd: r.openEnd,
      unweightedNet: r.unweightedNet,
      weightedNet: r.weightedNet,
      weightedResolved: r.weightedResolved,
      weightedNew: r.weightedNew,
      ...(r.withdrawn > 0
        ? { withdrawn: r.withdrawn, weightedWithdrawn: r.weightedWithdrawn, withdrawnGaps: r.withdrawnGaps.map(({ id, of }) => ({ id, of })) }
        : {}),
      ...(r.splits.length > 0 ? { splits: r.splits.map(({ id, into, delta }) => ({ id, into: [...into], weightDelta: delta })) } : {}),
      state: r.state,
      flatCount: r.flatCount,
      ...(r.outsideFocus.length === 0 ? {} : { outsideFocus: [...r.outsideFocus] }),
      verdicts: r.verdicts.map(({ policy, verdict, reason }) => ({ policy, verdict, reason })),
      ...(r.combined ? { verdict: { verdict: r.combined.verdict, reason: r.combined.reason, policies: [...r.combined.policies] } } : {}),
    })),
    history: view.history.map(({ round, from, to, reason }) => ({ round, from, to, reason })),
    gaps: [...view.gaps.values()].map((g) => ({
      id: g.id,
      severity: g.severity,
      state: g.state,
      title: g.title,
      spawnedBy: g.spawnedBy,
      blocking: g.blocking,
      openedInRound: g.openedInRound,
      ...(g.blockedBy ? { blockedBy: g.blockedBy } : {}),
      ...(g.duplicateOf ? { duplicateOf: g.duplicateOf } : {}),
      ...(g.splitInto ? { splitInto: [...g.splitInto] } : {}),
      ...(g.splitFrom ? { splitFrom: g.splitFrom } : {}),
    })),
    completeWhen: view.policies.completeWhen,
    policies: policyStates(view),
    eventCount: view.lastSeq,
  };
}

/** R23: how many gaps not closed are untriaged, when any is. */
function untriaged(view: SessionView): { untriagedGapCount?: number } {
  let count = 0;
  for (const gap of view.gaps.values()) if (gap.severity === 'UNTRIAGED' && STATE_CLASS[gap.state] !== 'closed') count += 1;
  return count > 0 ? { untriagedGapCount: count } : {};
}

export type StateJson = ReturnType<typeof toStateJson>;

/** The verification gate's last run, as `state --json` shows it. */
function lastRun(view: SessionView) {
  const run = view.verification;
  if (run === null) return null;
  const { seq: _seq, ...shown } = run;
  return shown;
}
