import { nextStep, type NextAction } from './next.js';
import type { SessionView } from './view.js';

/** The `gapflow state --json` contract: plain data a script in any language can read. */
export function toStateJson(view: SessionView) {
  const closedRounds = view.rounds.filter((r) => r.openEnd !== null);
  const decision: { action: NextAction; reason: string } = nextStep(view);
  return {
    state: view.machine.state,
    outcome: view.machine.outcome,
    round: closedRounds.length,
    roundOpen: view.roundOpen,
    flatCount: view.machine.flatCount,
    openGapCount: view.open.count,
    weightedOpen: view.open.weighted,
    config: { ...view.config },
    preset: view.preset,
    baselineGapCount: view.baselineGapCount,
    decision,
    focus: [...view.focus],
    baseline: view.baseline ? { ...view.baseline } : null,
    pausedFrom: view.machine.pausedFrom,
    rounds: closedRounds.map((r) => ({
      round: r.round,
      openStart: r.openStart,
      resolved: r.resolved,
      new: r.new,
      openEnd: r.openEnd,
      unweightedNet: r.unweightedNet,
      weightedNet: r.weightedNet,
      weightedResolved: r.weightedResolved,
      weightedNew: r.weightedNew,
      state: r.state,
      flatCount: r.flatCount,
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
    })),
    eventCount: view.eventCount,
  };
}

export type StateJson = ReturnType<typeof toStateJson>;
