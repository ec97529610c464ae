/*
 * What a relay keeps for a viewer who opens the page late. Held in memory
 * for as long as the relay runs, so bounded both ways: a long session's
 * many small messages and a few huge ones each stop at a bound, and the
 * oldest go first.
 */

/** At most this many messages are kept for a late viewer. */
export const BACKLOG_MESSAGES = 10_000;

/** At most this many bytes (UTF-8, as sent) are kept for a late viewer. */
export const BACKLOG_BYTES = 32 * 1024 * 1024;

export interface Held {
  count: number;
  bytes: number;
}

/**
 * Messages in the order they came, within `maxMessages` and `maxBytes`.
 * A pinned message (the machine's definition, which a viewer needs before
 * any snapshot makes sense) outlives the others: the oldest unpinned ones
 * go first, and a pinned one only when nothing else is left to drop.
 */
export class Backlog {
  private readonly pinned: string[] = [];
  private readonly recent: string[] = [];
  private bytes = 0;

  constructor(
    private readonly maxMessages = BACKLOG_MESSAGES,
    private readonly maxBytes = BACKLOG_BYTES,
  ) {}

  add(message: string, pin = false): void {
    (pin ? this.pinned : this.recent).push(message);
    this.bytes += Buffer.byteLength(message);
    while (this.pinned.length + this.recent.length > this.maxMessages || this.bytes > this.maxBytes) {
      const dropped = this.recent.length > 0 ? this.recent.shift()! : this.pinned.shift()!;
      this.bytes -= Buffer.byteLength(dropped);
    }
  }

  /** What a late viewer is sent: the pinned messages, then the rest, each in the order it came. */
  messages(): string[] {
    return [...this.pinned, ...this.recent];
  }

  held(): Held {
    return { count: this.pinned.length + this.recent.length, bytes: this.bytes };
  }
}
