import { type BodyOf, type Command, type CommandOf, type Decided, type EventBody, EVENT_VERSION, type SettledEvent, DecisionKind } from '../../events/index.js';
import { policySettingsProblem, unknownPolicy } from './policy-settings.js';
import { decideVerification, refuseUnverified, withoutUnverifiedClose } from './gate.js';
import { Refusal, type Remedy } from './refusal.js';
import { ALLOWED_MOVES, claimedStillReported, STATE_CLASS } from './rules.js';
import type { Gap, SessionView } from './view.js';
import { policyNamed } from '../policies/index.js';
import { foresee } from './evolve.js';
import { judgeRoundClose, decisionEvent, judgeDecision } from './judge.js';
import { missingMetrics, tracksGaps, roundLimit, isOpen, roundCount, severeUnfinished } from './read-model.js';
import { machineAccepts } from './step.js';

/**
 * The Decider's `decide`: turns a request into the events that record it,
 * outcomes included, or refuses it with a Refusal naming why and what would
 * let it through. It is the one place a rule refuses; one small function per
 * kind of request. Nothing is written here: the caller stamps and appends.
 * It takes a typed command and trusts it, as a Decider does: the edge parses
 * what a caller sent (`parseBody`) where the text enters, a policy's part
 * by that policy's own schema (the policies' `readCommand`), so no schema
 * runs here; an objection the schema raised is refused in its turn.
 */
export function decide(view: SessionView, body: Command): Decided[] {
  const refuse = refuser(body);
  if (body.type === 'session.started') return decideStart(view, body, refuse);
  if (!view.settings) refuse('the log must begin with session.started');
  if (view.machine.state === 'COMPLETE') refuse(`the session is COMPLETE (${view.machine.outcome}); nothing more can be recorded`);
  switch (body.type) {
    case 'round.started':
      return decideRoundStart(view, body);
    case 'round.closed':
      return verified(view, decideRoundClose(view, body), refuse);
    case 'metrics.recorded':
      return verified(view, withoutUnverifiedClose(view, decideMetrics(view, body)), refuse);
    case 'gap.opened':
    case 'gap.moved':
    case 'gap.severity_changed':
    case 'gap.split':
      return decideGapEvent(view, body);
    case 'gap.renamed':
      return decideRename(view, body);
    case 'decision.made':
      return verified(view, decideDecision(view, body), refuse);
    case 'session.bound':
      return decideBinding(view, body, refuse);
    case 'verification.ran':
      return decideVerification(view, body, refuse);
    case 'findings.synced':
      return verified(view, decideSync(view, body), refuse);
  }
}

/** `decided`, when the verification gate lets it complete what it completes (gate.ts). */
function verified(view: SessionView, decided: Decided[], refuse: Refuse): Decided[] {
  refuseUnverified(view, decided, refuse);
  return decided;
}

/** The settings are stored as the edge read them: each policy's in the spelling its schema has. */
function decideStart(view: SessionView, body: CommandOf<'session.started'>, refuse: Refuse): Decided[] {
  if (view.settings) refuse('the session has already started');
  const problem = policySettingsProblem(body.data, body.objections);
  if (problem) refuse(...problem);
  return [{ type: body.type, data: body.data }];
}

/** A later binding replaces an earlier one (a new agent session takes the loop over); the same one twice is a mistake. */
function decideBinding(view: SessionView, body: BodyOf<'session.bound'>, refuse: Refuse): Decided[] {
  if (view.agentSession === body.data.agentSession) refuse(`the session is already bound to agent session ${body.data.agentSession}`);
  refusePaused(view, refuse);
  return [body];
}

// Gap events: opened, moved, re-rated, split, renamed.

type GapBody = BodyOf<'gap.opened'> | BodyOf<'gap.moved'> | BodyOf<'gap.severity_changed'> | BodyOf<'gap.split'>;

/**
 * A gap event: refused while PAUSED; between rounds it first starts the next
 * round (R8), refused where no round can start; then judged by its own rule.
 */
function decideGapEvent(view: SessionView, body: GapBody): Decided[] {
  const refuse = refuser(body);
  const startsRound = roundCount(view) > 0 && !view.roundOpen;
  if (startsRound) refuseRoundStart(view, refuse);
  refusePaused(view, refuse);
  if (body.type === 'gap.opened') openGap(view, body, refuse);
  else if (body.type === 'gap.moved') moveGap(view, body, refuse);
  else if (body.type === 'gap.split') splitGap(view, body, refuse);
  else changeSeverity(view, body, refuse);
  return startsRound ? [{ type: 'round.started', data: { round: roundCount(view) + 1 } }, body] : [body];
}

/**
 * R22: a rename counts nothing, so it starts no round and may be made
 * between rounds in any state but COMPLETE (a decision pending or a pause
 * included): it only changes what a gap is called.
 */
function decideRename(view: SessionView, body: BodyOf<'gap.renamed'>): Decided[] {
  const refuse = refuser(body);
  const { id, newId } = body.data;
  const gap = knownGap(view, id, null, refuse);
  if (newId === id) refuse(`gap ${id} already has that id`);
  refuseTaken(view, newId, refuse);
  return [{ type: body.type, data: { id: gap.id, newId } }];
}

/** The id a rename retired `id` for, following later renames to the gap's id now; undefined when `id` was never renamed away. */
function renamedTo(view: Pick<SessionView, 'renames'>, id: string): string | undefined {
  let current: string | undefined;
  for (const rename of view.renames) if (rename.from === (current ?? id)) current = rename.to;
  return current;
}

/** The gap `id` names (`what`: the role it is named in, null for the gap the request is about); refused when there is none, saying what it was renamed to if it was. */
function knownGap(view: SessionView, id: string, what: string | null, refuse: Refuse): Gap {
  const gap = view.gaps.get(id);
  if (gap) return gap;
  const name = what === null ? `gap ${id}` : `${what} gap ${id}`;
  const now = renamedTo(view, id);
  if (now !== undefined) refuse(`${name} was renamed to ${now}; name it by its id now`);
  return refuse(what === null ? `unknown gap ${id}` : `${name} is unknown`);
}

/** R22: an id is never reused: not a gap's id now, nor one a rename retired. */
function refuseTaken(view: SessionView, id: string, refuse: Refuse): void {
  const existing = view.gaps.get(id);
  if (existing) refuse(`gap ${id} already exists (${existing.severity}, ${existing.state})`);
  const now = renamedTo(view, id);
  if (now !== undefined) refuse(`id ${id} was used before (that gap is ${now} now); ids are never reused`);
}

function openGap(view: SessionView, body: BodyOf<'gap.opened'>, refuse: Refuse): void {
  refuseTaken(view, body.data.id, refuse);
  if (body.data.spawnedBy !== undefined) knownGap(view, body.data.spawnedBy, 'spawned-by', refuse);
}

/** R10: only the lifecycle's moves and its shortcuts; blocked-by names another known gap, R20: a duplicate names the gap it duplicates. */
function moveGap(view: SessionView, body: BodyOf<'gap.moved'>, refuse: Refuse): void {
  const gap = knownGap(view, body.data.id, null, refuse);
  const allowed = ALLOWED_MOVES[gap.state];
  if (!allowed.includes(body.data.to)) {
    const already = gap.state === body.data.to ? ' already' : '';
    if (gap.state === 'SPLIT') refuse(`gap ${gap.id} is SPLIT; it lives on in its parts (${(gap.splitInto ?? []).join(', ')}), which move instead`);
    if (body.data.to === 'SPLIT') refuse(`gap ${gap.id} cannot be moved to SPLIT: split it into its parts with gap split`);
    refuse(`gap ${gap.id} is${already} ${gap.state}; moves allowed from ${gap.state}: ${allowed.join(', ')}`);
  }
  if (body.data.blockedBy !== undefined) {
    if (body.data.to !== 'BLOCKED') refuse('blocked-by goes only with a move to BLOCKED');
    if (body.data.blockedBy === gap.id) refuse(`gap ${gap.id} cannot wait on itself`);
    knownGap(view, body.data.blockedBy, 'blocked-by', refuse);
  }
  if (body.data.to === 'DUPLICATE' && body.data.of === undefined) refuse(`a move to DUPLICATE names the gap ${gap.id} duplicates (of)`);
  if (body.data.of !== undefined) {
    if (body.data.to !== 'DUPLICATE') refuse('of (the gap duplicated) goes only with a move to DUPLICATE');
    if (body.data.of === gap.id) refuse(`gap ${gap.id} cannot duplicate itself`);
    const original = knownGap(view, body.data.of, 'duplicated', refuse);
    // A gap withdrawn or split lives on elsewhere: a duplicate names that gap, so no real gap leaves the count unresolved.
    if (original.state === 'DUPLICATE') refuse(`gap ${original.id} is itself a duplicate (of ${original.duplicateOf ?? 'another gap'}): name that gap`);
    if (original.state === 'SPLIT')
      refuse(`gap ${original.id} was split (into ${original.splitInto?.join(', ') ?? 'its parts'}): name the part ${gap.id} duplicates`);
  }
}

/** R23: a gap may be opened untriaged, but a severity once known is never unknown again. R7: the gap is not closed. */
function changeSeverity(view: SessionView, body: BodyOf<'gap.severity_changed'>, refuse: Refuse): void {
  const gap = knownGap(view, body.data.id, null, refuse);
  if (gap.severity === body.data.to) refuse(`gap ${gap.id} is already ${gap.severity}`);
  if (STATE_CLASS[gap.state] === 'closed') refuse(`gap ${gap.id} is ${gap.state}; reopen it before changing its severity`);
  if (body.data.to === 'UNTRIAGED') refuse(`gap ${gap.id} is ${gap.severity}; a gap is untriaged only until its severity is known`);
}

/** R21: an open gap splits into at least two parts, each with an id never used before. */
function splitGap(view: SessionView, body: BodyOf<'gap.split'>, refuse: Refuse): void {
  const gap = knownGap(view, body.data.id, null, refuse);
  if (STATE_CLASS[gap.state] === 'closed') refuse(`gap ${gap.id} is ${gap.state}; reopen it before splitting it`);
  if (STATE_CLASS[gap.state] === 'parked') refuse(`gap ${gap.id} is ${gap.state}; move it back to OPEN before splitting it`);
  const seen = new Set<string>();
  for (const part of body.data.into) {
    if (part.id === gap.id) refuse(`a part of gap ${gap.id} needs an id of its own`);
    if (seen.has(part.id)) refuse(`part ${part.id} is named twice`);
    seen.add(part.id);
    refuseTaken(view, part.id, refuse);
  }
}

// Findings from tools: a source's snapshot reconciled with the gaps it opened.

type SyncBody = BodyOf<'findings.synced'>;
type Move = Extract<Decided, { type: 'gap.moved' }>;

/**
 * A source's whole snapshot, reconciled with the gaps that source opened
 * (docs/sync.md): a finding not seen before opens a gap; a gap whose finding
 * is gone is resolved; a finding that comes back after it was resolved
 * reopens its gap (a claim when the gap was closed by hand); a gap the user
 * set aside (WONT_FIX, USER_DEFERRED, DUPLICATE) or split keeps its state.
 * The same snapshot twice records nothing. Between rounds it starts the
 * next round, as a gap event does (before round 1 it is the baseline); with
 * `close`, its round (started for it if none is open) closes after it.
 * Recorded as the snapshot's figures, then its gap events, in one write.
 */
function decideSync(view: SessionView, body: SyncBody): Decided[] {
  const refuse = refuser(body);
  const { source, format, findings, close = false } = body.data;
  refusePaused(view, refuse);
  const reported = new Set<string>();
  const opened: Decided[] = [];
  const moves: Move[] = [];
  let claimed = 0;
  for (const finding of findings) {
    const gap = view.gaps.get(finding.id) ?? view.gaps.get(renamedTo(view, finding.id) ?? '');
    if (reported.has(gap?.id ?? finding.id)) refuse(`finding ${finding.id} is reported twice; each finding of a snapshot has its own id`);
    reported.add(gap?.id ?? finding.id);
    if (gap === undefined) {
      refuseTaken(view, finding.id, refuse);
      opened.push({ type: 'gap.opened', data: { id: finding.id, severity: finding.severity, title: finding.title, blocking: true, source } });
      continue;
    }
    if (gap.source !== source)
      refuse(
        `gap ${gap.id} ${gap.source === undefined ? 'was opened by hand' : `belongs to source ${gap.source}`}; a snapshot moves only its own source's gaps`,
      );
    if (gap.state !== 'RESOLVED' && gap.state !== 'ACCEPTED') continue;
    const claim = claimedStillReported(gap, source, 'OPEN');
    if (claim) claimed += 1;
    const reason = claim ? `claimed ${gap.state}, but ${source} still reports it` : `reported again by ${source}`;
    moves.push({ type: 'gap.moved', data: { id: gap.id, to: 'OPEN', reason, by: source } });
  }
  const reopened = moves.length;
  for (const gap of view.gaps.values()) {
    if (gap.source !== source || reported.has(gap.id) || STATE_CLASS[gap.state] !== 'open') continue;
    moves.push({ type: 'gap.moved', data: { id: gap.id, to: 'RESOLVED', reason: `gone from ${source}'s snapshot`, by: source } });
  }
  if (opened.length + moves.length === 0 && !close) return [];
  // With close the record is written even when nothing changed: the write is the snapshot's, and a retry finds it by its id.
  const figures = { reported: reported.size, opened: opened.length, resolved: moves.length - reopened, reopened, claimed };
  const facts: Decided[] = [{ type: 'findings.synced', data: { source, format, ...figures } }, ...opened, ...moves];
  const next: Decided = { type: 'round.started', data: { round: roundCount(view) + 1 } };
  const beforeRound1 = roundCount(view) === 0 && !view.roundOpen;
  // Before round 1 a snapshot is the baseline. A source's first snapshot with close is its baseline too, and
  // starts round 1, which its next close closes: a loop that only ever syncs with close counts its first
  // findings as the baseline, not as new.
  if (beforeRound1 && !close) return facts;
  const startsRound = !view.roundOpen;
  if (startsRound) refuseRoundStart(view, refuse);
  if (beforeRound1 && !view.sources.some((record) => record.source === source)) return [...facts, next];
  const decided = startsRound ? [next, ...facts] : facts;
  if (!close) return decided;
  const after = foresee(
    view,
    decided.map((fact, i) => stamped(fact, view.lastSeq + 1 + i)),
  );
  return [...decided, ...decideRoundClose(after, { type: 'round.closed', data: {} })];
}

/** R8: the next round starts explicitly, only where one can; a request that leaves its number out is given the next one. */
function decideRoundStart(view: SessionView, body: BodyOf<'round.started'>): Decided[] {
  const refuse = refuser(body);
  refuseRoundStart(view, refuse);
  const expected = roundCount(view) + 1;
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
function decideRoundClose(view: SessionView, body: BodyOf<'round.closed'>): Decided[] {
  const refuse = refuser(body);
  if (!view.roundOpen) refuse('no round is open; start one first', 'start_round');
  refusePaused(view, refuse);
  const round = body.data.round ?? roundCount(view);
  if (round !== roundCount(view)) refuse(`the open round is ${roundCount(view)}, not ${round}`);
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
 * policy's schema read it at the edge (defaults filled in).
 */
function decideMetrics(view: SessionView, body: CommandOf<'metrics.recorded'>): Decided[] {
  const refuse = refuser(body);
  const decided: Decided[] = [];
  let round = roundCount(view);
  if (!view.roundOpen && body.data.round === undefined) {
    refuseRoundStart(view, refuse);
    round += 1;
    decided.push({ type: 'round.started', data: { round } });
  }
  const policy = validateMetrics(view, body, round, decided.length > 0, refuse);
  decided.push({ type: body.type, data: { ...body.data, round: body.data.round ?? round } });
  if (tracksGaps(view) || missingMetrics(view, round).some((name) => name !== policy.name)) return decided;
  // The round closes with these metrics in it: judged on the view as they leave it.
  const recorded = foresee(
    view,
    decided.map((fact, i) => stamped(fact, view.lastSeq + 1 + i)),
  );
  return [...decided, { type: 'round.closed', data: { round, outcome: judgeRoundClose(recorded)! } }];
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

/** Judges one policy's metrics for `round` (`starting`: the request starts that round), the schema's objection last; returns the policy. */
function validateMetrics(view: SessionView, body: CommandOf<'metrics.recorded'>, round: number, starting: boolean, refuse: Refuse) {
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
  if (body.objection !== null) refuse(body.objection);
  return policy;
}

type DecisionBody = BodyOf<'decision.made'>;
type Kind = DecisionBody['data']['kind'];

/** A decision as people say it: `narrow_scope` is "narrow scope". */
const wordFor = (kind: Kind): string => kind.replaceAll('_', ' ');

/**
 * A user decision (R11): completed with what the view knows (the CRITICAL
 * gaps to focus on, the severe gaps an approval accepts), judged, and
 * recorded with the machine's steps.
 */
function decideDecision(view: SessionView, body: DecisionBody): Decided[] {
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
    refuse(`round ${roundCount(view)} is open; decisions are made between rounds (close it first)`, 'close_round');
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

/** What a refusal names: `gap.opened GAP-1`, `decision.made pause`, `metrics.recorded atoms`. */
export function label(body: EventBody): string {
  if ('id' in body.data) return `${body.type} ${body.data.id}`;
  if ('policy' in body.data) return `${body.type} ${body.data.policy}`;
  if ('source' in body.data) return `${body.type} ${body.data.source}`;
  return 'kind' in body.data ? `${body.type} ${body.data.kind}` : body.type;
}

export type Refuse = (why: string, remedy?: Remedy) => never;

/** A refusal of `body`, named by it. */
function refuser(body: EventBody): Refuse {
  return (why, remedy) => {
    throw new Refusal(`${label(body)}: ${why}`, remedy);
  };
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
      return view.roundOpen ? [`round ${roundCount(view)} is already open; close it first`, 'close_round'] : null;
  }
}

function refuseRoundStart(view: SessionView, refuse: Refuse): void {
  const why = whyNoRoundCanStart(view);
  if (why) refuse(...why);
}

/** A paused session takes no gap event, metrics, round close or binding: resume first. */
function refusePaused(view: SessionView, refuse: Refuse): void {
  if (view.machine.state === 'PAUSED') refuse('the session is PAUSED; resume it first', 'resume');
}
