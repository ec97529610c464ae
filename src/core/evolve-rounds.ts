import { FORECAST_ROUNDS } from './forecast.js';
import { ALTERNATING_ROUNDS } from './ping-pong.js';
import type { EventOf, SettledOf } from '../../events/index.js';
import { policyNamed } from '../policies/index.js';
import { setState, settleTakenBack } from './evolve-gaps.js';
import { decisionEffect, describeDecision, describeRoundStep, settledExtensionEffect } from './explain.js';
import { closedRoundCount, unfinishedGaps } from './inventory.js';
import { resolveConfig, roundLimitProvisional } from './policy-settings.js';
import { openingFigures } from './view-codec.js';
import type { SessionView } from './view.js';

/*
 * Folding rounds, metrics and decisions: what the machine decided is applied
 * as recorded (R19). Called on a working copy of the view (evolve.ts).
 */

export function startRound(view: SessionView, event: EventOf<'round.started'>): void {
  if (event.data.round === 1 && view.settings) {
    view.baselineGapCount = unfinishedGaps(view.gaps.values()).length;
    const provisional = roundLimitProvisional(view);
    const config = resolveConfig(view.settings, view.baselineGapCount);
    // An extension decided before round 1 raises the limit round 1 resolves (an `auto` preset's included).
    view.config = { ...config, maxRounds: config.maxRounds + view.roundsExtended };
    if (provisional) settleExtensions(view, config.maxRounds);
  }
  const round = openingFigures(event.data.round, view.open.count, view.open.weighted);
  round.kind = event.data.kind ?? 'work';
  view.rounds.push(round);
  view.roundOpen = true;
}

/**
 * R24: the extensions made before round 1 under preset auto added their
 * rounds to a limit not yet known; now it is, each says the limit it left.
 * (A line that recorded auto's provisional limit reads the same way: the
 * session has run under the settled limit plus its rounds all along.)
 */
function settleExtensions(view: SessionView, settled: number): void {
  let limit = settled;
  for (const decision of view.decisions) {
    if (decision.kind !== 'extend_rounds') continue;
    limit += decision.rounds ?? 0;
    decision.effect = settledExtensionEffect(decision.rounds ?? 0, limit, settled);
  }
}

/**
 * Keeps one policy's metrics as its schema reads them (defaults filled in),
 * so verdicts never see raw input; metrics today's schema cannot read (an
 * old line) are left out, and `verify` names them.
 */
export function recordMetrics(view: SessionView, event: EventOf<'metrics.recorded'>): void {
  const policy = policyNamed(event.data.policy);
  const records = view.policies.records.get(event.data.policy);
  const parsed = policy?.metrics.safeParse(event.data.metrics);
  if (!records || !parsed?.success) return;
  records.push({ round: event.data.round ?? view.rounds.length, metrics: parsed.data });
}

/** Applies what the machine decided when the round closed: the recorded figures, verdicts and steps. */
export function closeRound(view: SessionView, event: SettledOf<'round.closed'>): void {
  const round = view.rounds.at(-1);
  // Only the open round can close; a close naming another round (a hand-edited log) is not applied.
  if (!round || !view.roundOpen || round.round !== event.data.round) return;
  const { figures, verdicts, combined, machine, steps } = event.data.outcome;
  // Before the recorded figures are applied: whatever the lists are settled to, the figures are the recorded ones.
  settleTakenBack(round, figures.withdrawn ?? 0);
  // Field by field rather than one spread: a spread of the figures was most of a close's cost in a replay.
  round.openEnd = figures.openEnd;
  round.weightedOpenEnd = figures.weightedOpenEnd;
  round.resolved = figures.resolved;
  round.new = figures.new;
  round.weightedResolved = figures.weightedResolved;
  round.weightedNew = figures.weightedNew;
  round.criticalIntroduced = [...figures.criticalIntroduced];
  // R20: a close records its withdrawn figures only when there are some (every line before version 5 has none).
  round.withdrawn = figures.withdrawn ?? 0;
  round.weightedWithdrawn = figures.weightedWithdrawn ?? 0;
  round.unweightedNet = figures.resolved - figures.new;
  round.weightedNet = figures.weightedResolved - figures.weightedNew;
  round.verdicts = verdicts;
  round.combined = combined;
  round.state = machine.state;
  // R4: no flat count for a round that ended in a warning; none either for the one that ended the session.
  round.flatCount = machine.state !== 'DIVERGENCE_WARNING' && machine.state !== 'COMPLETE' ? machine.flatCount : null;
  // The recorded outcome settled the round's CRITICAL introductions; the older rule's list served only to judge it.
  delete round.criticalBeforeR29;
  view.weightedOpenEnds = [...view.weightedOpenEnds, figures.weightedOpenEnd].slice(-FORECAST_ROUNDS);
  view.roundOpen = false;
  view.openEnds = [...view.openEnds, { round: round.round, openEnd: figures.openEnd }].slice(-ALTERNATING_ROUNDS);
  const from = view.machine.state;
  view.machine = { ...machine };
  for (const step of steps.length > 0 ? steps : [{ from, to: from }]) {
    const reason = describeRoundStep(step, round, view.config, machine, combined, view.policies);
    view.history.push({ round: round.round, from: step.from, to: step.to, reason, cause: 'round', duringRound: false });
  }
}

export function applyDecision(view: SessionView, event: SettledOf<'decision.made'>): void {
  const { kind, outcome } = event.data;
  const gaps = event.data.gaps ?? [];
  const afterRound = closedRoundCount(view);
  if (kind === 'narrow_scope') {
    for (const id of gaps) {
      const gap = view.gaps.get(id);
      if (!gap) continue;
      setState(view, gap, 'USER_DEFERRED');
      gap.reason = 'deferred when the user narrowed scope';
      gap.blockedBy = null;
    }
  } else if (kind === 'accept_complexity') {
    view.baseline = { afterRound, openCount: view.open.count, weightedOpen: view.open.weighted };
  } else if (kind === 'prioritize_critical' || kind === 'prioritize') {
    view.focus = [...gaps];
  } else if (kind === 'extend_rounds') {
    const rounds = event.data.rounds ?? 0;
    view.roundsExtended += rounds;
    view.config = { ...view.config, maxRounds: outcome.maxRounds ?? view.config.maxRounds + rounds };
  }
  const figures = {
    openCount: view.open.count,
    weightedOpen: view.open.weighted,
    maxRounds: view.config.maxRounds,
    limitProvisional: kind === 'extend_rounds' && roundLimitProvisional(view),
  };
  view.decisions.push({
    afterRound,
    duringRound: view.roundOpen,
    kind,
    gaps: [...gaps],
    rationale: event.data.rationale ?? null,
    acknowledgment: event.data.acknowledgment ?? null,
    rounds: event.data.rounds ?? null,
    effect: decisionEffect(event.data, outcome, figures),
  });
  view.machine = { ...outcome.machine };
  const reason = describeDecision(event.data, outcome, figures);
  for (const step of outcome.steps) {
    view.history.push({ round: afterRound, from: step.from, to: step.to, reason, cause: 'decision', duringRound: view.roundOpen });
  }
}
