import { DecisionKind, type BodyOf, type Decided } from '../../events/index.js';
import { isOpen, severeUnfinished } from './inventory.js';
import { decisionEvent, judgeDecision } from './judge.js';
import { refuser, type Refuse } from './refusal.js';
import { machineAccepts } from './step.js';
import { roundLimit } from './policies.js';
import type { SessionView } from './view.js';

type DecisionBody = BodyOf<'decision.made'>;
type Kind = DecisionBody['data']['kind'];

/** A decision as people say it: `narrow_scope` is "narrow scope". */
const wordFor = (kind: Kind): string => kind.replaceAll('_', ' ');

/**
 * A user decision (R11): completed with what the view knows (the CRITICAL
 * gaps to focus on, the severe gaps an approval accepts), judged, and
 * recorded with the machine's steps.
 */
export function decideDecision(view: SessionView, body: DecisionBody): Decided[] {
  const completed = complete(view, body);
  refuseImpossibleDecision(view, completed, refuser(completed));
  return [{ type: 'decision.made', data: { ...completed.data, outcome: judgeDecision(view, completed.data) } }];
}

function complete(view: SessionView, body: DecisionBody): DecisionBody {
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

function refuseImpossibleDecision(view: SessionView, body: DecisionBody, refuse: Refuse): void {
  const { kind, gaps = [] } = body.data;
  const word = wordFor(kind);
  // Pause (and so resume) may interrupt a round; every other decision is made between rounds (R8),
  // so a round's work is always counted before the session moves on or ends.
  // An extension of the round limit may come while the last round is open: it changes no figure of it.
  if (view.roundOpen && kind !== 'pause' && kind !== 'resume' && kind !== 'extend_rounds') {
    refuse(`round ${view.rounds.length} is open; decisions are made between rounds (close it first)`, 'close_round');
  }
  if (body.data.acknowledgment !== undefined && kind !== 'approve') refuse('an acknowledgment goes only with approve');
  if (!machineAccepts(view.machine, view.config, decisionEvent(view, kind))) {
    const possible = DecisionKind.options.filter((k) => machineAccepts(view.machine, view.config, decisionEvent(view, k))).map(wordFor);
    refuse(`${word} is not possible in ${view.machine.state}; possible now: ${possible.join(', ') || 'none'}`);
  }
  if (kind === 'extend_rounds') refuseBadExtension(view, body, refuse);
  else if (body.data.rounds !== undefined) refuse('a number of rounds goes only with extend rounds');
  const needsGaps = kind === 'narrow_scope' || kind === 'prioritize_critical' || kind === 'prioritize';
  if (!needsGaps && kind !== 'approve' && gaps.length > 0) refuse(`${word} takes no gaps`);
  if (new Set(gaps).size !== gaps.length) refuse('a gap is named twice');
  for (const id of gaps) {
    const gap = view.gaps.get(id) ?? refuse(`unknown gap ${id}`);
    if (kind === 'narrow_scope' && !isOpen(gap)) refuse(`gap ${id} is ${gap.state}; only open gaps can be deferred`);
    if (kind === 'prioritize_critical' && (gap.severity !== 'CRITICAL' || !isOpen(gap))) {
      refuse(`gap ${id} is ${gap.severity}, ${gap.state}; only open CRITICAL gaps can be prioritized`);
    }
    if (kind === 'prioritize' && !isOpen(gap)) refuse(`gap ${id} is ${gap.state}; only open gaps can be the focus`);
  }
  if (kind === 'prioritize' && gaps.length === 0) refuse('name the gaps to focus on', 'name_gaps');
  if (kind === 'narrow_scope' && gaps.length === 0) refuse('name the gaps to defer', 'name_gaps');
  if (kind === 'prioritize_critical' && gaps.length === 0) refuse('no CRITICAL gap is open');
  if (kind === 'approve') refuseUnacknowledgedApproval(view, body, refuse);
}

/** R24: an extension names how many rounds it adds, to a session whose rounds have a limit. */
function refuseBadExtension(view: SessionView, body: DecisionBody, refuse: Refuse): void {
  if (body.data.rounds === undefined) refuse('extend rounds needs the number of rounds to add');
  if (roundLimit(view) === null) refuse("this session has no round limit of its own (each policy's own maximum applies); there is none to extend");
}

/**
 * R11: approving over CRITICAL gaps needs the risk acknowledged, over HIGH
 * gaps a rationale. A deferred gap is not closed, so it counts here. The
 * event records the gaps it accepted; a caller cannot name others.
 */
function refuseUnacknowledgedApproval(view: SessionView, body: DecisionBody, refuse: Refuse): void {
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
