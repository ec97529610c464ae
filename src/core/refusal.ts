/**
 * A user's mistake: an event that makes no sense in the session's current
 * view, or input that is not an event at all. Its message is one line that
 * names the event, gap or line and says what is wrong; nothing was written.
 */
export class Refusal extends Error {
  override readonly name = 'Refusal';
}
