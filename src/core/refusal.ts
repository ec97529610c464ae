import type { BadValue } from '../../events/index.js';

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
