import type { BodyOf, Decided, EventBody } from '../../events/index.js';
import { decideDecision } from './decide-decisions.js';
import { decideMetrics, decideRoundClose, decideRoundStart } from './decide-rounds.js';
import { policySettingsProblem, respelledPolicySettings } from './policy-settings.js';
import { decideVerification, refuseUnverified, withoutUnverifiedClose } from './gate.js';
import { refusePaused, refuser, refuseRoundStart, type Refuse } from './refusal.js';
import { ALLOWED_MOVES, STATE_CLASS } from './rules.js';
import type { Gap, SessionView } from './view.js';

/**
 * The Decider's `decide`: turns a request into the events that record it,
 * outcomes included, or refuses it with a Refusal naming why and what would
 * let it through. It is the one place a rule refuses; one small function per
 * kind of request. Nothing is written here: the caller stamps and appends.
 * It takes a typed body and trusts it, as a Decider does: the edge parses
 * what a caller sent (`parseBody`) where the text enters.
 */
export function decide(view: SessionView, body: EventBody): Decided[] {
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
  }
}

/** `decided`, when the verification gate lets it complete what it completes (gate.ts). */
function verified(view: SessionView, decided: Decided[], refuse: Refuse): Decided[] {
  refuseUnverified(view, decided, refuse);
  return decided;
}

function decideStart(view: SessionView, body: BodyOf<'session.started'>, refuse: Refuse): Decided[] {
  if (view.settings) refuse('the session has already started');
  const started = { ...body, data: respelledPolicySettings(body.data) };
  const problem = policySettingsProblem(started.data);
  if (problem) refuse(...problem);
  return [started];
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
export function decideGapEvent(view: SessionView, body: GapBody): Decided[] {
  const refuse = refuser(body);
  const startsRound = view.rounds.length > 0 && !view.roundOpen;
  if (startsRound) refuseRoundStart(view, refuse);
  refusePaused(view, refuse);
  if (body.type === 'gap.opened') openGap(view, body, refuse);
  else if (body.type === 'gap.moved') moveGap(view, body, refuse);
  else if (body.type === 'gap.split') splitGap(view, body, refuse);
  else changeSeverity(view, body, refuse);
  return startsRound ? [{ type: 'round.started', data: { round: view.rounds.length + 1 } }, body] : [body];
}

/**
 * R22: a rename counts nothing, so it starts no round and may be made
 * between rounds in any state but COMPLETE (a decision pending or a pause
 * included): it only changes what a gap is called.
 */
export function decideRename(view: SessionView, body: BodyOf<'gap.renamed'>): Decided[] {
  const refuse = refuser(body);
  const { id, newId } = body.data;
  const gap = knownGap(view, id, null, refuse);
  if (newId === id) refuse(`gap ${id} already has that id`);
  refuseTaken(view, newId, refuse);
  return [{ type: body.type, data: { id: gap.id, newId } }];
}

/** The id a rename retired `id` for, following later renames to the gap's id now; undefined when `id` was never renamed away. */
export function renamedTo(view: Pick<SessionView, 'renames'>, id: string): string | undefined {
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
