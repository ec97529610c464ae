import {
  canonicalRequest,
  EventBody,
  hiddenTextProblem,
  readIssue,
  requestFields,
  wordsAt,
  type BodyOf,
  type Decided,
  type EventBodyInput,
} from '../../events/index.js';
import { decideDecision } from './decide-decisions.js';
import { decideGapEvent, decideRename } from './decide-gaps.js';
import { decideMetrics, decideRoundClose, decideRoundStart } from './decide-rounds.js';
import { policySettingsProblem, respelledPolicySettings } from './policy-settings.js';
import { decideVerification, refuseUnverified, withoutUnverifiedClose } from './gate.js';
import { Refusal } from './refusal.js';
import { refusePaused, refuser, type Refuse } from './refuse.js';
import type { SessionView } from './view.js';

/**
 * Parses what a caller asks to record, its words taken in any spelling
 * (`in-progress` is IN_PROGRESS) and recorded in the canonical one. A
 * malformed body is refused naming the field, the value given, what the
 * field takes and the nearest valid word.
 */
export function parseBody(input: unknown): EventBody {
  const canonical = canonicalRequest(input);
  refuseHiddenText(canonical);
  const parsed = EventBody.safeParse(canonical, { reportInput: true });
  if (parsed.success) return parsed.data;
  const type = typeof canonical === 'object' && canonical !== null ? (canonical as { type?: unknown }).type : undefined;
  const { message, bad } = readIssue(parsed.error, { words: (path) => wordsAt(type, path), fields: (path) => requestFields(type, path) });
  throw new Refusal(`${rawLabel(canonical)}: ${message}`, undefined, bad);
}

/**
 * A request whose text holds an invisible or direction-changing character
 * is refused naming the field and the code point (events/hidden.ts says
 * why). Checked on the raw request, before the schema, so that an id is
 * refused for the character too, not only for not being a word. The
 * output of a verification run is gapflow's own capture of what the check
 * printed, not a caller's text: it is shown spelt out instead.
 */
function refuseHiddenText(request: unknown): void {
  if (typeof request !== 'object' || request === null || !('data' in request)) return;
  const { type, data } = request as { type?: unknown; data: unknown };
  const checked = type === 'verification.ran' && typeof data === 'object' && data !== null ? { ...data, output: '' } : data;
  const problem = hiddenTextProblem(checked);
  if (problem !== null) throw new Refusal(`${rawLabel(request)}: ${problem}`);
}

/** Names what was asked for as well as malformed input allows: `gap.opened GAP-1`, `event`. */
function rawLabel(input: unknown): string {
  if (typeof input !== 'object' || input === null || !('type' in input) || typeof input.type !== 'string') return 'event';
  const data = 'data' in input && typeof input.data === 'object' && input.data !== null ? input.data : {};
  const word = (key: string) =>
    key in data && typeof (data as Record<string, unknown>)[key] === 'string' ? ((data as Record<string, unknown>)[key] as string) : undefined;
  const name = word('id') ?? word('kind') ?? word('policy') ?? '';
  const safe = name.length <= 128 && /^[\x21-\x7e]+$/.test(name) ? ` ${name}` : '';
  return `${input.type.slice(0, 64)}${safe}`;
}

/**
 * The Decider's `decide`: turns a request into the events that record it,
 * outcomes included, or refuses it with a Refusal naming why and what would
 * let it through. It is the one place a rule refuses; one small function per
 * kind of request. Nothing is written here: the caller stamps and appends.
 */
export function decide(view: SessionView, input: EventBodyInput | EventBody): Decided[] {
  const body = parseBody(input);
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
