import { EventBody, formatIssue, type BodyOf, type EventBodyInput } from '../../events/index.js';
import { GAPS, POLICY_NAMES, policyNamed } from '../policies/index.js';
import { decisionEvent, severeUnfinished } from './evolve.js';
import { isOpen } from './inventory.js';
import { gapsEnabled, missingMetrics, policySettingsProblem } from './policies.js';
import { ALLOWED_MOVES, STATE_CLASS } from './rules.js';
import { Refusal, type Remedy } from './refusal.js';
import { machineAccepts } from './step.js';
import type { SessionView } from './view.js';

/** Parses what a caller asks to record; a malformed body is refused with the field that is wrong. */
export function parseBody(input: unknown): EventBody {
  const parsed = EventBody.safeParse(input);
  if (parsed.success) return parsed.data;
  throw new Refusal(`${rawLabel(input)}: ${formatIssue(parsed.error)}`);
}

/** Names what was asked for as well as malformed input allows: `gap.opened GAP-1`, `event`. */
function rawLabel(input: unknown): string {
  if (typeof input !== 'object' || input === null || !('type' in input) || typeof input.type !== 'string') return 'event';
  const data = 'data' in input && typeof input.data === 'object' && input.data !== null ? input.data : {};
  const word = (key: string) => (key in data && typeof (data as Record<string, unknown>)[key] === 'string' ? ((data as Record<string, unknown>)[key] as string) : undefined);
  const name = word('id') ?? word('kind') ?? word('policy') ?? '';
  const safe = name.length <= 128 && /^[\x21-\x7e]+$/.test(name) ? ` ${name}` : '';
  return `${input.type.slice(0, 64)}${safe}`;
}

/**
 * Turns a request into the events that record it, or refuses it. A gap event
 * between rounds first starts the next round (RULINGS R8); decisions are
 * completed with what the view knows (the CRITICAL gaps to focus on, the
 * severe gaps an approval accepts). Each event is then checked in turn by the
 * caller against the view as it will be.
 */
export function decide(view: SessionView, input: EventBodyInput | EventBody): EventBody[] {
  const body = parseBody(input);
  if (body.type.startsWith('gap.') && view.rounds.length > 0 && !view.roundOpen) {
    refuseRoundStart(view, body);
    return [{ type: 'round.started', data: { round: view.rounds.length + 1 } }, body];
  }
  if (body.type === 'decision.made') return [completeDecision(view, body)];
  if (body.type === 'metrics.recorded') return decideMetrics(view, body);
  return [body];
}

/**
 * Metrics belong to a round: with none open, they start the next one (as a
 * gap event does under R8). In a session without the gap policy, the round
 * closes itself once every enabled policy has recorded for it, so one
 * `record` per iteration is the whole loop. The payload is stored as the
 * policy's schema reads it (defaults filled in).
 */
function decideMetrics(view: SessionView, body: BodyOf<'metrics.recorded'>): EventBody[] {
  const policy = policyNamed(body.data.policy);
  const parsed = policy?.metrics.safeParse(body.data.metrics);
  const metrics = parsed?.success ? (parsed.data as Record<string, unknown>) : body.data.metrics;
  const events: EventBody[] = [];
  let round = view.rounds.length;
  if (!view.roundOpen && view.settings && body.data.round === undefined) {
    refuseRoundStart(view, body);
    round += 1;
    events.push({ type: 'round.started', data: { round } });
  }
  const recorded: BodyOf<'metrics.recorded'> = { type: body.type, data: { ...body.data, round: body.data.round ?? round, metrics } };
  events.push(recorded);
  const missing = missingMetrics(view, recorded.data.round!).filter((name) => name !== recorded.data.policy);
  if (!gapsEnabled(view) && policy && missing.length === 0 && recorded.data.round === round) {
    events.push({ type: 'round.closed', data: { round } });
  }
  return events;
}

function completeDecision(view: SessionView, body: BodyOf<'decision.made'>): BodyOf<'decision.made'> {
  const { kind } = body.data;
  if (kind === 'prioritize_critical' && !body.data.gaps?.length) {
    const critical = [...view.gaps.values()].filter((g) => g.severity === 'CRITICAL' && isOpen(g)).map((g) => g.id);
    return { type: body.type, data: { ...body.data, gaps: critical } };
  }
  if (kind === 'approve' && body.data.gaps === undefined) {
    const severe = severeUnfinished(view);
    return severe.length > 0 ? { type: body.type, data: { ...body.data, gaps: severe } } : body;
  }
  return body;
}

function refuseAfterComplete(view: SessionView, body: EventBody): void {
  if (view.machine.state === 'COMPLETE') {
    throw new Refusal(`${label(body)}: the session is COMPLETE (${view.machine.outcome}); nothing more can be recorded`);
  }
}

type Why = [why: string, remedy?: Remedy];

/** Why no round can start now, and what would let one, or null when one can. */
function whyNoRoundCanStart(view: SessionView): Why | null {
  switch (view.machine.state) {
    case 'DIVERGENCE_WARNING':
      return ['no round can start in DIVERGENCE_WARNING: a decision is due first', 'decide'];
    case 'PAUSED':
      return ['no round can start while the session is PAUSED: resume it first', 'resume'];
    case 'COMPLETE':
      return [`the session is COMPLETE (${view.machine.outcome}); nothing more can be recorded`];
    default:
      return view.roundOpen ? [`round ${view.rounds.length} is already open; close it first`, 'close_round'] : null;
  }
}

function refuseRoundStart(view: SessionView, body: EventBody): void {
  const why = whyNoRoundCanStart(view);
  if (why) throw new Refusal(`${label(body)}: ${why[0]}`, why[1]);
}

function label(body: EventBody): string {
  if ('id' in body.data) return `${body.type} ${body.data.id}`;
  if ('policy' in body.data) return `${body.type} ${body.data.policy}`;
  return 'kind' in body.data ? `${body.type} ${body.data.kind}` : body.type;
}

type Refuse = (why: string, remedy?: Remedy) => never;

/** Refuses an event that makes no sense in this view (it is the rule both live appends and replay obey). */
export function check(view: SessionView, body: EventBody): void {
  const refuse: Refuse = (why, remedy) => {
    throw new Refusal(`${label(body)}: ${why}`, remedy);
  };
  if (body.type === 'session.started') {
    if (view.settings) refuse('the session has already started');
    const problem = policySettingsProblem(body.data);
    if (problem) refuse(problem);
    return;
  }
  if (!view.settings) refuse('the log must begin with session.started');
  refuseAfterComplete(view, body);
  switch (body.type) {
    case 'round.started': {
      refuseRoundStart(view, body);
      const expected = view.rounds.length + 1;
      if (body.data.round !== expected) refuse(`the next round is ${expected}, not ${body.data.round}`);
      return;
    }
    case 'round.closed': {
      if (!view.roundOpen) refuse('no round is open; start one first', 'start_round');
      if (view.machine.state === 'PAUSED') refuse('the session is PAUSED; resume it first', 'resume');
      if (body.data.round !== view.rounds.length) refuse(`the open round is ${view.rounds.length}, not ${body.data.round}`);
      const missing = missingMetrics(view, body.data.round);
      if (missing.length > 0) {
        refuse(`round ${body.data.round} has no ${missing.join(' or ')} metrics yet; every enabled policy records before the round closes`, 'record_metrics');
      }
      return;
    }
    case 'metrics.recorded':
      return checkMetrics(view, body, refuse);
    case 'gap.opened': {
      checkGapEventTime(view, body);
      const existing = view.gaps.get(body.data.id);
      if (existing) refuse(`gap ${body.data.id} already exists (${existing.severity}, ${existing.state})`);
      if (body.data.spawnedBy !== undefined && !view.gaps.has(body.data.spawnedBy)) {
        refuse(`spawned-by gap ${body.data.spawnedBy} is unknown`);
      }
      return;
    }
    case 'gap.moved': {
      checkGapEventTime(view, body);
      const gap = view.gaps.get(body.data.id) ?? refuse(`unknown gap ${body.data.id}`);
      const allowed = ALLOWED_MOVES[gap.state];
      if (!allowed.includes(body.data.to)) {
        const already = gap.state === body.data.to ? ' already' : '';
        refuse(`gap ${gap.id} is${already} ${gap.state}; moves allowed from ${gap.state}: ${allowed.join(', ')}`);
      }
      if (body.data.blockedBy !== undefined) {
        if (body.data.to !== 'BLOCKED') refuse('blocked-by goes only with a move to BLOCKED');
        if (body.data.blockedBy === gap.id) refuse(`gap ${gap.id} cannot wait on itself`);
        if (!view.gaps.has(body.data.blockedBy)) refuse(`blocked-by gap ${body.data.blockedBy} is unknown`);
      }
      return;
    }
    case 'gap.severity_changed': {
      checkGapEventTime(view, body);
      const gap = view.gaps.get(body.data.id) ?? refuse(`unknown gap ${body.data.id}`);
      if (gap.severity === body.data.to) refuse(`gap ${gap.id} is already ${gap.severity}`);
      if (STATE_CLASS[gap.state] === 'closed') refuse(`gap ${gap.id} is ${gap.state}; reopen it before changing its severity`);
      return;
    }
    case 'decision.made':
      return checkDecision(view, body, refuse);
    case 'session.bound':
      // A later binding replaces an earlier one (a new agent session takes the loop over); the same one twice is a mistake.
      if (view.agentSession === body.data.agentSession) refuse(`the session is already bound to agent session ${body.data.agentSession}`);
      if (view.machine.state === 'PAUSED') refuse('the session is PAUSED; resume it first', 'resume');
      return;
  }
}

function checkMetrics(view: SessionView, body: BodyOf<'metrics.recorded'>, refuse: Refuse): void {
  const { policy: name } = body.data;
  const policy = policyNamed(name);
  if (!policy) {
    if (name === GAPS) refuse('the gap policy records gap events (gapflow gap …), not metrics');
    refuse(`unknown policy "${name}" (known: ${POLICY_NAMES.join(', ')})`);
  }
  if (!view.policies.enabled.includes(name)) {
    refuse(`policy ${name} is not enabled in this session (enabled: ${view.policies.enabled.join(', ')}); policies are chosen at init (--policy)`);
  }
  if (view.machine.state === 'PAUSED') refuse('the session is PAUSED; resume it first', 'resume');
  if (!view.roundOpen) {
    const [why, remedy] = whyNoRoundCanStart(view) ?? ['no round is open; metrics between rounds must follow round.started'];
    refuse(why, remedy);
  }
  if (body.data.round !== undefined && body.data.round !== view.rounds.length) refuse(`the open round is ${view.rounds.length}, not ${body.data.round}`);
  if ((view.policies.records.get(name) ?? []).some((r) => r.round === view.rounds.length)) {
    refuse(`${name} metrics for round ${view.rounds.length} are already recorded; one record per policy per round`);
  }
  const parsed = policy.metrics.safeParse(body.data.metrics);
  if (!parsed.success) {
    const where = parsed.error.issues[0]?.path.length ? 'metrics.' : 'metrics: ';
    refuse(`${where}${formatIssue(parsed.error)}`);
  }
}

function checkGapEventTime(view: SessionView, body: EventBody): void {
  if (view.machine.state === 'PAUSED') {
    throw new Refusal(`${label(body)}: the session is PAUSED; resume it first`, 'resume');
  }
  if (view.rounds.length > 0 && !view.roundOpen) {
    const [why, remedy] = whyNoRoundCanStart(view) ?? ['no round is open; a gap event between rounds must follow round.started'];
    throw new Refusal(`${label(body)}: ${why}`, remedy);
  }
}

const KIND_WORD: Record<BodyOf<'decision.made'>['data']['kind'], string> = {
  narrow_scope: 'narrow scope',
  accept_complexity: 'accept complexity',
  prioritize_critical: 'prioritize critical',
  pause: 'pause',
  resume: 'resume',
  force_complete: 'force complete',
  abandon: 'abandon',
  approve: 'approve',
};

function checkDecision(view: SessionView, body: BodyOf<'decision.made'>, refuse: Refuse): void {
  const { kind, gaps = [] } = body.data;
  const word = KIND_WORD[kind];
  // Pause (and so resume) may interrupt a round; every other decision is made between rounds (R8),
  // so a round's work is always counted before the session moves on or ends.
  if (view.roundOpen && kind !== 'pause' && kind !== 'resume') {
    refuse(`round ${view.rounds.length} is open; decisions are made between rounds (close it first)`, 'close_round');
  }
  if (body.data.acknowledgment !== undefined && kind !== 'approve') refuse('an acknowledgment goes only with approve');
  if (!machineAccepts(view.machine, view.config, decisionEvent(view, kind))) {
    const possible = (Object.keys(KIND_WORD) as (keyof typeof KIND_WORD)[])
      .filter((k) => machineAccepts(view.machine, view.config, decisionEvent(view, k)))
      .map((k) => KIND_WORD[k]);
    refuse(`${word} is not possible in ${view.machine.state}; possible now: ${possible.join(', ') || 'none'}`);
  }
  const needsGaps = kind === 'narrow_scope' || kind === 'prioritize_critical';
  if (!needsGaps && kind !== 'approve' && gaps.length > 0) refuse(`${word} takes no gaps`);
  if (new Set(gaps).size !== gaps.length) refuse('a gap is named twice');
  for (const id of gaps) {
    const gap = view.gaps.get(id) ?? refuse(`unknown gap ${id}`);
    if (kind === 'narrow_scope' && !isOpen(gap)) refuse(`gap ${id} is ${gap.state}; only open gaps can be deferred`);
    if (kind === 'prioritize_critical' && (gap.severity !== 'CRITICAL' || !isOpen(gap))) {
      refuse(`gap ${id} is ${gap.severity}, ${gap.state}; only open CRITICAL gaps can be prioritized`);
    }
  }
  if (kind === 'narrow_scope' && gaps.length === 0) refuse('name the gaps to defer', 'name_gaps');
  if (kind === 'prioritize_critical' && gaps.length === 0) refuse('no CRITICAL gap is open');
  if (kind === 'approve') checkApproval(view, body, refuse);
}

/**
 * R11: approving over CRITICAL gaps needs the risk acknowledged, over HIGH
 * gaps a rationale. A deferred gap is not closed, so it counts here. The
 * event records the gaps it accepted; a caller cannot name others.
 */
function checkApproval(view: SessionView, body: BodyOf<'decision.made'>, refuse: Refuse): void {
  const severe = severeUnfinished(view);
  const critical = severe.filter((id) => view.gaps.get(id)?.severity === 'CRITICAL');
  const high = severe.filter((id) => view.gaps.get(id)?.severity === 'HIGH');
  if (critical.length > 0 && body.data.acknowledgment !== 'critical_risk') {
    refuse(`CRITICAL gaps are not closed (${critical.join(', ')}); approving needs an explicit acknowledgment of that risk`, 'acknowledge_risk');
  }
  if (high.length > 0 && !body.data.rationale?.trim()) {
    refuse(`HIGH gaps are not closed (${high.join(', ')}); approving needs a rationale`, 'give_rationale');
  }
  const recorded = body.data.gaps ?? [];
  if (recorded.length !== severe.length || recorded.some((id, i) => id !== severe[i])) {
    refuse(`approve records the CRITICAL and HIGH gaps it accepts itself (${severe.join(', ') || 'none'}); do not name gaps`);
  }
}

