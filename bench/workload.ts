/**
 * The session the bench measures: a long refinement loop that never ends.
 *
 * A few hundred gaps stay open; each round works some of them off and finds
 * new ones, so closed gaps pile up as they would in a real session. Rounds
 * alternate: an odd round resolves heavier gaps than it opens (weighted net
 * +2: progress), an even one opens heavier gaps than it resolves (weighted net
 * -2: flat, far above the divergence threshold), so the machine goes
 * CONVERGING, FLAT, CONVERGING… and never stalls (one flat round in a row),
 * never diverges and never completes (the open count never reaches 0, and
 * max_rounds is the schema's largest). Along the way gaps go IN_PROGRESS,
 * some are BLOCKED on another gap and resumed, some are closed WONT_FIX or
 * straight from OPEN, and every fifth round raises or lowers one gap's
 * severity (raised in a flat round, lowered in the next progress round, so
 * the pools stay balanced).
 *
 * Everything here is plain data: `Workload` hands out request bodies a round
 * at a time; the caller records them (bench/build-log.ts, through
 * `Session.recordAll`, the path `gapflow append` takes).
 */
import type { BatchRequest, GapState, SessionSettings, Severity } from '../src/index.js';

/** The schema's largest max_rounds (events/schemas.ts): a 1M-event log has about 40,000 rounds. */
export const SETTINGS: SessionSettings = { maxRounds: 100_000 };

type Body = BatchRequest['body'];

const TITLES = [
  'Retry on 503 from the upstream API is missing',
  'Config loader ignores the XDG path',
  'Race between flush and close in the writer',
  'Error message names the wrong flag',
  'Pagination drops the last page',
  'Docs: example uses the old option name',
  'Timeout is not applied to DNS lookups',
  'Unicode file names break the importer',
  'Cache key ignores the locale',
  'Migration leaves an orphaned index',
  'Progress bar overflows a narrow terminal',
  'Test relies on the machine time zone',
];

const REASONS = ['fixed, test added', 'covered by the refactor', 'not reproducible any more', 'done in the review round'];

interface OpenGap {
  id: string;
  state: GapState;
}

/** First-in first-out open gaps of one severity (an array with a moving head: shift() on 10^5 rounds would be quadratic). */
class Pool {
  #items: OpenGap[] = [];
  #head = 0;

  get size(): number {
    return this.#items.length - this.#head;
  }

  push(gap: OpenGap): void {
    this.#items.push(gap);
  }

  take(): OpenGap {
    if (this.size === 0) throw new Error('bench workload: a gap pool ran dry (the rounds are not balanced)');
    const gap = this.#items[this.#head]!;
    this.#items[this.#head++] = undefined as unknown as OpenGap; // let it be collected
    if (this.#head > 4096 && this.#head * 2 > this.#items.length) {
      this.#items = this.#items.slice(this.#head);
      this.#head = 0;
    }
    return gap;
  }

  /** The gap `depth` places from the front, left where it is (for blocking one that will not be resolved for a while). */
  peek(depth: number): OpenGap | undefined {
    return this.#items[this.#head + Math.min(depth, this.size - 1)];
  }
}

export class Workload {
  readonly #pools: Record<Severity, Pool> = { CRITICAL: new Pool(), HIGH: new Pool(), MEDIUM: new Pool(), LOW: new Pool(), UNTRIAGED: new Pool() };
  #nextGap = 0;
  #resolutions = 0;
  /** Rounds started so far. */
  round = 0;

  /**
   * The baseline inventory (gaps found before round 1, after
   * session.started): `size` gaps, 12 LOW, 4 MEDIUM and 1 HIGH in 17 (340:
   * 240, 80, 20). A round works 8 LOW gaps, so 34 is the least that keeps
   * the queue from running dry.
   */
  baseline(size = 340): Body[] {
    const medium = Math.round((size * 4) / 17);
    const high = Math.round(size / 17);
    const bodies: Body[] = [];
    for (let i = 0; i < size - medium - high; i++) bodies.push(this.#open('LOW'));
    for (let i = 0; i < medium; i++) bodies.push(this.#open('MEDIUM'));
    for (let i = 0; i < high; i++) bodies.push(this.#open('HIGH'));
    return bodies;
  }

  /** One whole round, round.started to round.closed. */
  nextRound(): Body[] {
    const round = ++this.round;
    const progress = round % 2 === 1;
    const bodies: Body[] = [{ type: 'round.started', data: { round } }];
    // Progress: resolve 6 LOW + 2 MEDIUM (weight 10), open 8 LOW (8). Flat: resolve 8 LOW (8), open 6 LOW + 2 MEDIUM (10).
    const resolve: Severity[] = progress ? ['LOW', 'LOW', 'LOW', 'MEDIUM', 'LOW', 'LOW', 'MEDIUM', 'LOW'] : Array<Severity>(8).fill('LOW');
    const open: Severity[] = progress ? Array<Severity>(8).fill('LOW') : ['LOW', 'LOW', 'MEDIUM', 'LOW', 'LOW', 'MEDIUM', 'LOW', 'LOW'];
    for (let i = 0; i < 8; i++) {
      const resolved = this.#pools[resolve[i]!].take();
      bodies.push(...this.#resolve(resolved));
      // Every third new gap was found while fixing the one just resolved.
      bodies.push(this.#open(open[i]!, i % 3 === 0 ? resolved.id : undefined));
    }
    if (round % 4 === 0) bodies.push(...this.#block());
    // Severity: raised in a flat round (weighted new +1 or +2), lowered again in the progress round after it.
    const step = round % 20;
    if (step === 10) bodies.push(this.#reclassify('LOW', 'MEDIUM'));
    if (step === 11) bodies.push(this.#reclassify('MEDIUM', 'LOW'));
    if (step === 0) bodies.push(this.#reclassify('MEDIUM', 'HIGH'));
    if (step === 1) bodies.push(this.#reclassify('HIGH', 'MEDIUM'));
    bodies.push({ type: 'round.closed', data: { round } });
    return bodies;
  }

  /**
   * One round of exactly `lines` requests, as an agent's batch for
   * `gapflow append` would be: it works the queue (resolve one, open one,
   * now and then block one) many times over, and closes. Weighted net about
   * +1 for every ten gaps worked: progress.
   */
  bigRound(lines: number): Body[] {
    const round = ++this.round;
    const bodies: Body[] = [{ type: 'round.started', data: { round } }];
    for (let i = 0; bodies.length < lines - 8; i++) {
      const resolved = this.#pools[i % 5 === 4 && this.#pools.MEDIUM.size > 0 ? 'MEDIUM' : 'LOW'].take();
      bodies.push(...this.#resolve(resolved));
      bodies.push(this.#open(i % 10 === 9 ? 'MEDIUM' : 'LOW', i % 3 === 0 ? resolved.id : undefined));
      if (i % 50 === 49) bodies.push(...this.#block());
    }
    while (bodies.length < lines - 1) bodies.push(this.#open('LOW'));
    bodies.push({ type: 'round.closed', data: { round } });
    return bodies;
  }

  /** Open gaps now (all severities). */
  get open(): number {
    return Object.values(this.#pools).reduce((sum, pool) => sum + pool.size, 0);
  }

  get gaps(): number {
    return this.#nextGap;
  }

  #open(severity: Severity, spawnedBy?: string): Body {
    const n = this.#nextGap++;
    const id = `G-${n}`;
    this.#pools[severity].push({ id, state: 'OPEN' });
    const title = `${TITLES[n % TITLES.length]!} (#${n})`;
    return { type: 'gap.opened', data: spawnedBy === undefined ? { id, severity, title } : { id, severity, title, spawnedBy } };
  }

  /** The moves that close one gap: usually via IN_PROGRESS to RESOLVED, now and then straight from OPEN, or WONT_FIX. */
  #resolve(gap: OpenGap): Body[] {
    const n = this.#resolutions++;
    const bodies: Body[] = [];
    const move = (to: GapState, reason?: string): void => {
      bodies.push({ type: 'gap.moved', data: reason === undefined ? { id: gap.id, to } : { id: gap.id, to, reason } });
      gap.state = to;
    };
    if (n % 11 === 5) {
      move('WONT_FIX', 'out of scope for this release');
      return bodies;
    }
    if (gap.state === 'OPEN' && n % 7 === 3) {
      move('RESOLVED', 'fixed in passing');
      return bodies;
    }
    if (gap.state !== 'IN_PROGRESS') move('IN_PROGRESS');
    move('RESOLVED', n % 2 === 0 ? REASONS[(n / 2) % REASONS.length] : undefined);
    return bodies;
  }

  /** A LOW gap far back in the queue goes IN_PROGRESS, then BLOCKED on the gap in front of it; it is resumed when its turn comes. */
  #block(): Body[] {
    const pool = this.#pools.LOW;
    const gap = pool.peek(60);
    const on = pool.peek(59);
    if (!gap || !on || gap.state !== 'OPEN') return [];
    gap.state = 'BLOCKED';
    return [
      { type: 'gap.moved', data: { id: gap.id, to: 'IN_PROGRESS' } },
      { type: 'gap.moved', data: { id: gap.id, to: 'BLOCKED', reason: `waits on ${on.id}`, blockedBy: on.id } },
    ];
  }

  #reclassify(from: Severity, to: Severity): Body {
    const gap = this.#pools[from].take();
    this.#pools[to].push(gap);
    return { type: 'gap.severity_changed', data: { id: gap.id, to } };
  }
}
