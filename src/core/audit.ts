import { isDeepStrictEqual } from 'node:util';
import type { DecisionOutcome, EventBody, GapflowEvent, RoundOutcome, SettledEvent } from '../../events/index.js';
import { readCommand } from '../policies/index.js';
import { decide } from './decide.js';
import { fold, settle } from './evolve.js';
import { Refusal } from './refusal.js';
import type { SessionView } from './view.js';

/** Where today's rules and the recorded history part ways: never damage, never a reason to refuse the log. */
export interface Finding {
  /** The log line (its seq). */
  line: number;
  type: GapflowEvent['type'];
  /** `refused`: today's rules would refuse the event; `decided_differently`: they would record another outcome. */
  kind: 'refused' | 'decided_differently';
  message: string;
}

/**
 * Reads a history under today's rules (R19: an audit, never a gate):
 * each event is asked of `decide` on the view just before it, as if it were
 * requested now; a refusal, or a round close or decision whose recorded
 * outcome today's machine would not reach, is a finding. The view is the
 * recorded history's, as replay builds it.
 */
export function auditHistory(events: readonly GapflowEvent[]): { view: SessionView; findings: Finding[] } {
  const findings: Finding[] = [];
  const view = fold(events, (before, event) => {
    const settled = settle(before, event);
    const finding = auditEvent(before, event, settled);
    if (finding) findings.push({ line: event.seq, type: event.type, ...finding });
    return settled;
  });
  return { view, findings };
}

function auditEvent(view: SessionView, event: GapflowEvent, settled: SettledEvent | null): Pick<Finding, 'kind' | 'message'> | null {
  // A snapshot's record is what reconciling it did, not the request (the findings are not kept): the gap events it made follow it, each asked again.
  if (event.type === 'findings.synced') return null;
  const { outcome: _recorded, ...data } = event.data as Record<string, unknown>;
  let decided;
  try {
    // A stored line asked again as a request: its policy's part read by that policy's schema, as at the edge.
    decided = decide(view, readCommand({ type: event.type, data } as EventBody));
  } catch (error) {
    if (error instanceof Refusal) return { kind: 'refused', message: `today's rules refuse it: ${error.message}` };
    throw error;
  }
  if (settled?.type !== 'round.closed' && settled?.type !== 'decision.made') return null;
  const today = decided.find((fact) => fact.type === settled.type);
  const outcome = today && 'outcome' in today.data ? today.data.outcome : null;
  // Compared as they would be stored: JSON has no -0 (a score delta of -0.001 rounds to it) and keeps no undefined.
  if (outcome === null || isDeepStrictEqual(asStored(outcome), asStored(settled.data.outcome))) return null;
  return {
    kind: 'decided_differently',
    message: `recorded ${describe(settled.data.outcome)}; today's rules would reach ${describe(outcome)}`,
  };
}

/**
 * What an outcome decided, as stored: the verdicts' details and figures are
 * how each verdict is explained, and a later build may explain more
 * (version 6 names fix-break cycles in them), so they are left out; the
 * verdicts and their reasons, the round's figures and the machine's steps
 * are compared.
 */
function asStored(outcome: RoundOutcome | DecisionOutcome): unknown {
  const stored = JSON.parse(JSON.stringify(outcome)) as RoundOutcome | DecisionOutcome;
  if (!('verdicts' in stored)) return stored;
  const { detail: _detail, ...combined } = stored.combined;
  return { ...stored, combined, verdicts: stored.verdicts.map(({ policy, verdict, reason }) => ({ policy, verdict, reason })) };
}

/** An outcome in a few words: the path of states, the flat count, the session's outcome. */
function describe(outcome: RoundOutcome | DecisionOutcome): string {
  const path = outcome.steps.length > 0 ? [outcome.steps[0]!.from, ...outcome.steps.map((s) => s.to)].join(' -> ') : `${outcome.machine.state} (unchanged)`;
  const ended = outcome.machine.outcome ? ` ${outcome.machine.outcome}` : '';
  return `${path}${ended}, flat_count ${outcome.machine.flatCount}`;
}
