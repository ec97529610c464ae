import type { BodyInputOf, DecisionKind, GapState, RoundKind, Severity } from '../../events/index.js';
import type { SessionView } from '../core/index.js';

export type OpenGapOptions = Omit<BodyInputOf<'gap.opened'>['data'], 'id' | 'severity'>;
export type MoveGapOptions = Omit<BodyInputOf<'gap.moved'>['data'], 'id' | 'to'>;

export type DecisionOptions = Pick<BodyInputOf<'decision.made'>['data'], 'gaps' | 'rationale' | 'rounds'> & {
  /** Approve over open CRITICAL gaps: the user accepts that risk (recorded as the `critical_risk` acknowledgment). */
  acceptCritical?: boolean | undefined;
};

export function openGapBody(id: string, severity: Severity, options: OpenGapOptions): BodyInputOf<'gap.opened'> {
  return { type: 'gap.opened', data: { id, severity, ...options } };
}

export function moveGapBody(id: string, to: GapState, options: MoveGapOptions): BodyInputOf<'gap.moved'> {
  return { type: 'gap.moved', data: { id, to, ...options } };
}

export type SplitPart = BodyInputOf<'gap.split'>['data']['into'][number];

export function splitGapBody(id: string, into: SplitPart[], options: { reason?: string | undefined }): BodyInputOf<'gap.split'> {
  return { type: 'gap.split', data: { id, into, ...(options.reason === undefined ? {} : { reason: options.reason }) } };
}

export function renameGapBody(id: string, newId: string): BodyInputOf<'gap.renamed'> {
  return { type: 'gap.renamed', data: { id, newId } };
}

export function changeSeverityBody(id: string, to: Severity): BodyInputOf<'gap.severity_changed'> {
  return { type: 'gap.severity_changed', data: { id, to } };
}

/** The next round's start; `kind` (R25) left out or `work` starts a work round. */
export function startRoundBody(view: Pick<SessionView, 'rounds'>, kind?: RoundKind): BodyInputOf<'round.started'> {
  const round = view.rounds.length + 1;
  return { type: 'round.started', data: kind === undefined ? { round } : { round, kind } };
}

export function closeRoundBody(view: Pick<SessionView, 'rounds'>): BodyInputOf<'round.closed'> {
  // With no round ever started there is no round to name; `decide` refuses it for that reason.
  return { type: 'round.closed', data: { round: Math.max(1, view.rounds.length) } };
}

export function recordMetricsBody(policy: string, metrics: Record<string, unknown>): BodyInputOf<'metrics.recorded'> {
  return { type: 'metrics.recorded', data: { policy, metrics } };
}

export function decisionBody(kind: DecisionKind, options: DecisionOptions): BodyInputOf<'decision.made'> {
  const { gaps, acceptCritical, rationale, rounds } = options;
  const acknowledgment = acceptCritical ? ('critical_risk' as const) : undefined;
  return { type: 'decision.made', data: { kind, gaps, acknowledgment, rationale, rounds } };
}
