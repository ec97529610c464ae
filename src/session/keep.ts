import { encodeClosedIndex, encodeHead, encodeView, HEAD_ROUNDS, type SessionView } from '../core/index.js';
import type { Checkpoints } from '../log/index.js';
import { closedIndexFormat, headFormat, viewFormat } from './formats.js';

/**
 * Keeps a session's checkpoints up from its whole view: the head (what
 * `next` and a stop hook read, and a gap write decides on) with the closed
 * gaps' index it names, after every open and write; the whole view when the
 * store says one is due (or `now`). An open keeps them after its caller's
 * turn (on the event loop's next turn), so a read pays for reading only; a
 * write before then keeps them itself. A caller that never yields leaves
 * them unwritten, which loses nothing: the next open replays instead.
 */
export class Keeper {
  readonly #checkpoints: Checkpoints;
  /** What an open left to keep once the caller's turn ends. */
  #pending: { timer: ReturnType<typeof setImmediate>; now: boolean; view: () => SessionView } | null = null;

  constructor(checkpoints: Checkpoints) {
    this.#checkpoints = checkpoints;
  }

  /** Keeps the checkpoints of `view` now (with whatever an open left waiting). */
  keep(view: SessionView, now = false): void {
    if (this.#pending !== null) {
      clearImmediate(this.#pending.timer);
      now ||= this.#pending.now;
      this.#pending = null;
    }
    const checkpoints = this.#checkpoints;
    checkpoints.saveHead(headFormat(), view.lastSeq, () => {
      // Written first: a head names only an index that is on disk whole.
      const closed = checkpoints.saveClosedIndex(closedIndexFormat(), view.lastSeq, encodeClosedIndex(view));
      return encodeHead(view, HEAD_ROUNDS, closed);
    });
    if (now || checkpoints.due()) checkpoints.save(viewFormat(), view.lastSeq, () => encodeView(view));
  }

  /** Keeps them on the event loop's next turn, from the view as it then stands. */
  soon(view: () => SessionView, now: boolean): void {
    const timer = setImmediate(() => {
      this.#pending = null;
      this.keep(view(), now);
    });
    this.#pending = { timer, now, view };
  }

  /** Keeps now what an open left waiting (nothing when none is). */
  flush(): void {
    if (this.#pending !== null) this.keep(this.#pending.view());
  }
}
