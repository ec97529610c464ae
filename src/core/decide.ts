import type { BodyOf, Decided, EventBody } from '../../events/index.js';
import { decideDecision } from './decide-decisions.js';
import { decideGapEvent, decideRename } from './decide-gaps.js';
import { decideMetrics, decideRoundClose, decideRoundStart } from './decide-rounds.js';
import { policySettingsProblem, respelledPolicySettings } from './policy-settings.js';
import { decideVerification, refuseUnverified, withoutUnverifiedClose } from './gate.js';
import { refusePaused, refuser, type Refuse } from './refusal.js';
import type { SessionView } from './view.js';

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
