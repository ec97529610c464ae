import { parseRequest, type BadValue, type EventBody } from '../../events/index.js';
import type { SessionView } from './view.js';

export type { BadValue };

/** What would make a refused request possible, for an edge to phrase in its own terms (a CLI flag, a method). */
export type Remedy =
  | 'resume'
  | 'decide'
  | 'start_round'
  | 'close_round'
  | 'acknowledge_risk'
  | 'give_rationale'
  | 'name_gaps'
  | 'record_metrics'
  /** The gap policy takes gap events (open, move, severity), not metrics. */
  | 'record_gap_events'
  /** A session's policies are fixed when it starts: another set needs a new session. */
  | 'choose_policies_at_init'
  /** A setting only the gap policy reads, in a session that does not run it. */
  | 'enable_gap_policy'
  /**
   * The session's verification gate must pass before it completes: the edge
   * runs its command and records the run (`verification.ran`) just before
   * the request (the CLI does this itself).
   */
  | 'run_verification'
  /**
   * The session's check command was not set on this machine by this user,
   * nor approved by them: it is not run until they approve it (the CLI's
   * `gapflow trust`).
   */
  | 'approve_check';

/**
 * A user's mistake: an event that makes no sense in the session's current
 * view, or input that is not an event at all. Its message is one line that
 * names the event, gap or line and says what is wrong; nothing was written.
 * When the mistake is a value (a word that is not a severity, a number out
 * of range), `badValue` says which, what it was and what it may be.
 */
export class Refusal extends Error {
  override readonly name = 'Refusal';

  constructor(
    message: string,
    readonly remedy?: Remedy,
    readonly badValue?: BadValue,
  ) {
    super(message);
  }

  /** The same refusal, its message named by where the request came from (`stdin line 3: …`). */
  at(where: string): Refusal {
    return new Refusal(`${where}: ${this.message}`, this.remedy, this.badValue);
  }
}

/**
 * What a caller sent, as the typed body `decide` takes: parsed where the
 * text enters (events' `parseRequest`: any spelling of a word, hidden
 * characters, the schema), a malformed one refused naming the field, the
 * value given, what the field takes and the nearest valid word.
 */
export function parseBody(input: unknown): EventBody {
  const parsed = parseRequest(input);
  if (parsed.message === undefined) return parsed.body;
  throw new Refusal(parsed.message, undefined, parsed.bad);
}

/** What a refusal names: `gap.opened GAP-1`, `decision.made pause`, `metrics.recorded atoms`. */
export function label(body: EventBody): string {
  if ('id' in body.data) return `${body.type} ${body.data.id}`;
  if ('policy' in body.data) return `${body.type} ${body.data.policy}`;
  return 'kind' in body.data ? `${body.type} ${body.data.kind}` : body.type;
}

export type Refuse = (why: string, remedy?: Remedy) => never;

/** A refusal of `body`, named by it. */
export function refuser(body: EventBody): Refuse {
  return (why, remedy) => {
    throw new Refusal(`${label(body)}: ${why}`, remedy);
  };
}

type Why = [why: string, remedy?: Remedy];

/** Why no round can start now, and what would let one, or null when one can. */
export function whyNoRoundCanStart(view: SessionView): Why | null {
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

export function refuseRoundStart(view: SessionView, refuse: Refuse): void {
  const why = whyNoRoundCanStart(view);
  if (why) refuse(...why);
}

/** A paused session takes no gap event, metrics, round close or binding: resume first. */
export function refusePaused(view: SessionView, refuse: Refuse): void {
  if (view.machine.state === 'PAUSED') refuse('the session is PAUSED; resume it first', 'resume');
}
