import { EVENT_VERSION, formatIssue, respelled, type BodyOf, type Decided, type SettledEvent } from '../../events/index.js';
import { policyNamed } from '../policies/index.js';
import { foresee } from './evolve.js';
import { unknownPolicy } from './policy-settings.js';
import { judgeRoundClose } from './judge.js';
import { missingMetrics, tracksGaps } from './policies.js';
import { refusePaused, refuser, refuseRoundStart, whyNoRoundCanStart, type Refuse, type Remedy } from './refusal.js';
import type { SessionView } from './view.js';

/** R8: the next round starts explicitly, only where one can; a request that leaves its number out is given the next one. */
export function decideRoundStart(view: SessionView, body: BodyOf<'round.started'>): Decided[] {
  const refuse = refuser(body);
  refuseRoundStart(view, refuse);
  const expected = view.rounds.length + 1;
  const round = body.data.round ?? expected;
  if (round !== expected) refuse(`the next round is ${expected}, not ${round}`);
  // R25: a work round is the default, so the log names a kind only for the others.
  const kind = body.data.kind;
  return [{ type: 'round.started', data: kind === undefined || kind === 'work' ? { round } : { round, kind } }];
}

/**
 * Closing the open round (the one a request names, or that one when it
 * names none), once every enabled policy has recorded for it; the machine
 * judges it here (R19).
 */
export function decideRoundClose(view: SessionView, body: BodyOf<'round.closed'>): Decided[] {
  const refuse = refuser(body);
  if (!view.roundOpen) refuse('no round is open; start one first', 'start_round');
  refusePaused(view, refuse);
  const round = body.data.round ?? view.rounds.length;
  if (round !== view.rounds.length) refuse(`the open round is ${view.rounds.length}, not ${round}`);
  const missing = missingMetrics(view, round);
  if (missing.length > 0) {
    refuse(`round ${round} has no ${missing.join(' or ')} metrics yet; every enabled policy records before the round closes`, 'record_metrics');
  }
  return [{ type: 'round.closed', data: { round, outcome: judgeRoundClose(view)! } }];
}

/**
 * Metrics belong to a round: with none open, they start the next one (as a
 * gap event does under R8). In a session without the gap policy, the round
 * closes itself once every enabled policy has recorded for it, so one
 * `record` per iteration is the whole loop. The payload is stored as the
 * policy's schema reads it (defaults filled in).
 */
export function decideMetrics(view: SessionView, asked: BodyOf<'metrics.recorded'>): Decided[] {
  const body = withPolicyWords(asked);
  const refuse = refuser(body);
  const decided: Decided[] = [];
  let round = view.rounds.length;
  if (!view.roundOpen && body.data.round === undefined) {
    refuseRoundStart(view, refuse);
    round += 1;
    decided.push({ type: 'round.started', data: { round } });
  }
  const policy = validateMetrics(view, body, round, decided.length > 0, refuse);
  const metrics = policy.metrics.parse(body.data.metrics) as Record<string, unknown>;
  decided.push({ type: body.type, data: { ...body.data, round: body.data.round ?? round, metrics } });
  if (tracksGaps(view) || missingMetrics(view, round).some((name) => name !== policy.name)) return decided;
  // The round closes with these metrics in it: judged on the view as they leave it.
  const recorded = foresee(
    view,
    decided.map((fact, i) => stamped(fact, view.lastSeq + 1 + i)),
  );
  return [...decided, { type: 'round.closed', data: { round, outcome: judgeRoundClose(recorded)! } }];
}

/** The metrics with their policy's own words (from its schema's lists) in the spelling the schema has. */
function withPolicyWords(body: BodyOf<'metrics.recorded'>): BodyOf<'metrics.recorded'> {
  const policy = policyNamed(body.data.policy);
  if (!policy) return body;
  return { ...body, data: { ...body.data, metrics: respelled(policy.metrics, body.data.metrics) as Record<string, unknown> } };
}

/** A decided fact in an envelope, for a view that is judged and thrown away. */
function stamped(fact: Decided, seq: number): SettledEvent {
  return { v: EVENT_VERSION, seq, id: `pending-${seq}`, at: '1970-01-01T00:00:00.000Z', ...fact } as SettledEvent;
}

/** Why `name` names no policy that records metrics, and what to do instead; null when it names one. */
export function whyNoMetricPolicy(name: string): [why: string, remedy?: Remedy] | null {
  const policy = policyNamed(name);
  if (!policy) return [unknownPolicy(name)];
  return policy.readsGapEvents ? [`the ${name} policy records gap events, not metrics`, 'record_gap_events'] : null;
}

/** Judges one policy's metrics for `round` (`starting`: the request starts that round); returns the policy. */
function validateMetrics(view: SessionView, body: BodyOf<'metrics.recorded'>, round: number, starting: boolean, refuse: Refuse) {
  const { policy: name } = body.data;
  const notMetric = whyNoMetricPolicy(name);
  if (notMetric) refuse(...notMetric);
  const policy = policyNamed(name)!;
  if (!view.policies.enabled.includes(name)) {
    refuse(
      `policy ${name} is not enabled in this session (enabled: ${view.policies.enabled.join(', ')}); policies are chosen at init`,
      'choose_policies_at_init',
    );
  }
  refusePaused(view, refuse);
  if (!view.roundOpen && !starting) {
    const [why, remedy] = whyNoRoundCanStart(view) ?? ['no round is open; metrics between rounds must follow round.started'];
    refuse(why, remedy);
  }
  if (body.data.round !== undefined && body.data.round !== round) refuse(`the open round is ${round}, not ${body.data.round}`);
  if ((view.policies.records.get(name) ?? []).some((r) => r.round === round)) {
    refuse(`${name} metrics for round ${round} are already recorded; one record per policy per round`);
  }
  const parsed = policy.metrics.safeParse(body.data.metrics, { reportInput: true });
  if (!parsed.success) {
    const where = parsed.error.issues[0]?.path.length ? 'metrics.' : 'metrics: ';
    refuse(`${where}${formatIssue(parsed.error)}`);
  }
  return policy;
}
