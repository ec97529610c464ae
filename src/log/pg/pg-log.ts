import type { GapflowEvent } from '../../../events/index.js';
import { formatLines, storedSum } from '../chain.js';
import { assertExpected, CHAIN_START, continues, scanBytes, type ChainPoint, type Scan } from '../lines.js';
import { FOLLOW_INTERVAL_MS, type FollowOptions } from '../follow.js';
import {
  LogError,
  OutcomeUnknown,
  type Batch,
  type Checkpoints,
  type EventSink,
  type EventStore,
  type Expected,
  type Resumed,
  type SealedLines,
} from '../types.js';
import { CHECKPOINT_MIN_TAIL_BYTES } from '../file-log.js';
import { sealedBytes } from '../files.js';
import { DatabaseError, type Bridge, type Notice } from './bridge.js';
import { bridgeTo } from './bridges.js';
import { HeadRows } from './head-rows.js';
import { sessionNameProblem, shownDatabase } from './names.js';
import type { Row, Step } from './protocol.js';
import * as sql from './statements.js';
import { CONNECTION_SETTINGS } from './timeouts.js';
import { pauseFor } from '../pause.js';

export { closePostgresStores, databaseAt } from './bridges.js';

const UNIQUE_VIOLATION = '23505';
/** What PostgreSQL answers a statement that waited lock_timeout for a row. */
const LOCK_NOT_AVAILABLE = '55P03';

/**
 * The pauses before each look at whether a write whose answer was lost is in
 * the stream (ms): the first at once, on a new connection; the last ends
 * some five seconds after the loss, by when a server that restarts is back.
 */
const LOOKUP_PAUSES_MS: readonly number[] = [0, 250, 1_000, 3_500];

/** Sealed lines as formatLines gives them, without their newlines (as a row holds them). */
const unended = (lines: readonly string[]) => lines.map((line) => line.slice(0, -1));

/**
 * A session's stream in PostgreSQL: one row per event, holding the sealed
 * line exactly as the JSONL file would (so the checksum chain runs through
 * the stream as through a file, and export gives back the same bytes), in
 * the `gapflow` schema it makes on first use (schema.ts). A write is one
 * transaction that locks the stream's row, so writers on one session take
 * turns and writers on different sessions do not wait for each other. Every
 * commit notifies listeners (`follow`, the fleet view). Like a folder, it
 * keeps a checkpoint of the view, the head with the closed gaps' index it
 * names, and the `state --json` output, caches keyed by the line they cover.
 */
export class PgLog implements EventStore {
  readonly location: string;
  /** The checkpoints kept beside the stream: what a session reads to start cheaply. */
  readonly checkpoints: Checkpoints;
  /** The stream as sealed lines, moved as they are (`gapflow export` and `import`). */
  readonly lines: SealedLines;
  /** The worker and connection; made again when one was closed (a request that never came back). */
  #bridge: Bridge;
  readonly #ownConnection: boolean;
  /** Where this object last saw the stream end: its seq and that line's checksum ('' for a version 1 line); null: not read yet. */
  #known: { seq: number; sum: string } | null = null;
  /** The view checkpoint this object resumed from or wrote (its body's size), and the bytes of line past it. */
  #checkpoint: { bodyBytes: number } | null = null;
  #tailBytes = 0;
  readonly #minCheckpointBytes: number;

  /**
   * `ownConnection`: a connection (and worker) of its own, not the one the
   * process's other stores on `url` share (two writers in one process, as
   * tests have). `minCheckpointBytes`: as FileLog's (a test may lower it).
   */
  constructor(
    readonly url: string,
    readonly session: string,
    options: { ownConnection?: boolean; minCheckpointBytes?: number } = {},
  ) {
    const problem = sessionNameProblem(session);
    if (problem !== null) throw new LogError(problem);
    this.location = `${shownDatabase(url)} session ${session}`;
    this.#ownConnection = options.ownConnection ?? false;
    this.#bridge = bridgeTo(url, this.#ownConnection);
    this.#minCheckpointBytes = options.minCheckpointBytes ?? CHECKPOINT_MIN_TAIL_BYTES;
    // The view checkpoint, the head with the closed gaps' index it names (head-rows.ts), and the stored state --json:
    // rows beside the stream's, so `next`, a stop hook and a gap write read a few kilobytes whatever the inventory's size.
    const heads = new HeadRows(session, {
      known: () => this.#known,
      endsAt: (known) => {
        this.#known = known;
      },
      run: (steps) => this.#door().run(steps),
    });
    this.checkpoints = {
      resume: (format, fold) => this.#resume(format, fold),
      save: (format, seq, body) => this.#save(format, seq, body),
      due: () => this.#due(),
      head: (format) => heads.head(format),
      saveHead: (format, seq, body) => heads.saveHead(format, seq, body),
      headForWrite: (headFormat, indexFormat) => heads.headForWrite(headFormat, indexFormat),
      saveClosedIndex: (format, seq, body) => heads.saveClosedIndex(format, seq, body),
      saveState: (format, seq, body) => this.#saveState(format, seq, body),
      state: (format) => this.#state(format),
    };
    this.lines = {
      text: () => this.#stream(this.#one(sql.readAfter(this.session, 0))).tail,
      create: (text, events) => this.#createSealed(text, events),
    };
  }

  exists(): boolean {
    return this.#one(sql.streamExists(this.session)).length > 0;
  }

  read(from = 0): GapflowEvent[] {
    const stream = this.#stream(this.#one(sql.readAfter(this.session, from)));
    return this.#scanRead(from, stream).events;
  }

  /**
   * From the view checkpoint of `format` when it still matches its line (one
   * statement: the checkpoint, that line and every line after it); else
   * every event, to `fold`'s sink when one is given.
   */
  #resume(format: string, fold?: () => EventSink): Resumed {
    const rows = this.#one(sql.readFromCheckpoint(this.session, format));
    const stream = this.#stream(rows);
    const found = rows[0]!;
    if (found.checkpoint_seq !== null) {
      const seq = Number(found.checkpoint_seq);
      const body = String(found.checkpoint_body);
      if (stream.before !== null && storedSum(stream.before) === String(found.checkpoint_sum)) {
        const scan = this.#scanRead(seq, stream);
        this.#checkpoint = { bodyBytes: body.length };
        this.#tailBytes = Buffer.byteLength(stream.tail);
        return { checkpoint: { seq, body }, events: scan.events };
      }
    }
    // No checkpoint (the tail is every line), or one that no longer matches its line (every line is read again).
    const whole = found.checkpoint_seq === null ? stream : this.#stream(this.#one(sql.readAfter(this.session, 0)));
    const scan = this.#scanRead(0, whole, fold);
    this.#checkpoint = null;
    this.#tailBytes = Buffer.byteLength(whole.tail);
    return { checkpoint: null, events: scan.events };
  }

  #save(format: string, seq: number, body: () => string): void {
    const known = this.#known;
    // Only a line with a checksum keys a checkpoint (a stream of version 1 lines alone has none).
    if (known === null || known.seq !== seq || seq === 0 || known.sum === '') return;
    const text = body();
    if (!this.#keep(sql.keepCheckpoint(this.session, 'view', format, seq, known.sum, text))) return;
    this.#checkpoint = { bodyBytes: text.length };
    this.#tailBytes = 0;
  }

  #due(): boolean {
    if (this.#known === null) return false;
    return this.#tailBytes >= this.#minCheckpointBytes && this.#tailBytes * 4 >= (this.#checkpoint?.bodyBytes ?? 0);
  }

  /** As a folder keeps state.json: for a stream past the checkpoint size (a checkpoint, or that many bytes of line), whose end this object saw. */
  #saveState(format: string, seq: number, body: () => string): void {
    const known = this.#known;
    if (known === null || known.seq !== seq || seq === 0 || known.sum === '') return;
    if (this.#checkpoint === null && this.#tailBytes < this.#minCheckpointBytes) return;
    this.#keep(sql.keepCheckpoint(this.session, 'state', format, seq, known.sum, body()));
  }

  #state(format: string): string | null {
    const found = this.#one(sql.currentCheckpoint(this.session, 'state', format))[0];
    return found === undefined ? null : String(found.body);
  }

  create(events: readonly GapflowEvent[]): void {
    const { lines, sum } = formatLines(events);
    this.#createWith(events, unended(lines), sum);
  }

  #createSealed(text: string, events: readonly GapflowEvent[]): void {
    const lines = text.split('\n').slice(0, -1);
    this.#createWith(events, lines, storedSum(lines.at(-1) ?? '') ?? '', true);
  }

  byId(id: string): GapflowEvent | undefined {
    const found = this.#one(sql.eventById(this.session, id))[0];
    if (found === undefined) return undefined;
    const seq = Number(found.seq);
    const before = typeof found.previous === 'string' ? found.previous : null;
    return this.#scanText(seq - 1, chainPoint(seq - 1, before, this.location), `${String(found.line)}\n`).events[0];
  }

  transact<T>(knownVersion: number, decide: (fresh: readonly GapflowEvent[]) => Batch<T>, expected?: Expected): T {
    const [, , rows] = this.#held([{ text: 'BEGIN' }, sql.lockStream(this.session), sql.readAfter(this.session, knownVersion)]);
    let batch: Batch<T>;
    let stream: sql.StreamRead;
    let sealed: ReturnType<typeof formatLines>;
    let added: number;
    try {
      stream = this.#stream(rows!);
      assertExpected(this.location, expected, stream.version);
      batch = decide(this.#scanRead(knownVersion, stream).events);
      continues(batch.events, stream.version, this.location);
      this.#distinctIds(batch.events);
      sealed = formatLines(batch.events, stream.lastSum);
      added = sealedBytes(this.location, batch.events, sealed.lines, stream.bytes);
    } catch (error) {
      this.#door().run([{ text: 'ROLLBACK' }]);
      throw error;
    }
    if (batch.events.length === 0) {
      this.#door().run([{ text: 'ROLLBACK' }]);
      return batch.result;
    }
    const { lines, sum } = sealed;
    this.#write([sql.appendLines(this.session, batch.events, unended(lines), sum, added), { text: 'COMMIT' }], batch.events, sql.lockStream(this.session));
    // What lies past the checkpoint grew by what others appended since this object looked, and by this write.
    this.#tailBytes += Buffer.byteLength(stream.tail) + added;
    this.#known = { seq: batch.events.at(-1)!.seq, sum };
    return batch.result;
  }

  append(events: readonly GapflowEvent[], expectedVersion: number): void {
    this.transact(expectedVersion, () => ({ events, result: undefined }), expectedVersion);
  }

  follow(from: number, listener: (events: readonly GapflowEvent[]) => void, options: FollowOptions = {}): () => void {
    let heard = from;
    let stopped = false;
    let failed = false;
    const look = () => {
      if (stopped) return;
      hearNotices();
      try {
        const events = this.read(heard);
        failed = false;
        if (events.length === 0) return;
        heard = events.at(-1)!.seq;
        listener(events);
      } catch (error) {
        // Told once, not at every look, until a look succeeds again.
        if (!failed) options.onError?.(error instanceof LogError ? error : new LogError(String(error)));
        failed = true;
      }
    };
    const listen = () => {
      try {
        this.#door().listen();
      } catch {
        // Not listening: the timer's looks still find every commit, only later.
      }
    };
    /** Hears the notices of the bridge there is now: again, on a new one, after one was closed. */
    let hearing: { bridge: Bridge; stop: () => void } | null = null;
    const hearNotices = () => {
      const bridge = this.#door();
      if (hearing?.bridge === bridge) return;
      hearing?.stop();
      const stop = bridge.hear((notice: Notice) => {
        if ('lost' in notice) {
          listen();
          return look();
        }
        if (noticeFor(notice.payload, this.session, heard)) look();
      }, options.persistent ?? false);
      hearing = { bridge, stop };
      listen();
    };
    const timer = setInterval(look, options.intervalMs ?? FOLLOW_INTERVAL_MS);
    if (!options.persistent) timer.unref();
    look();
    return () => {
      stopped = true;
      clearInterval(timer);
      hearing?.stop();
    };
  }

  /**
   * Starts the stream with `events`, whose sealed lines are `lines` (without
   * newlines), the last chaining on to `sum`. `imported`: a whole log, up to
   * the log's size limit, whose one statement may run past the usual 20 s.
   */
  #createWith(events: readonly GapflowEvent[], lines: readonly string[], sum: string, imported = false): void {
    if (events.length === 0) throw new LogError(`${this.location}: a new session needs its first event`);
    continues(events, 0, this.location);
    this.#distinctIds(events);
    const bytes = sealedBytes(
      this.location,
      events,
      lines.map((line) => `${line}\n`),
      0,
    );
    const create = sql.createStream(this.session, events, lines, sum, bytes);
    const steps = imported
      ? [{ text: 'BEGIN' }, { text: `SET LOCAL statement_timeout = ${IMPORT_STATEMENT_TIMEOUT_MS}` }, create, { text: 'COMMIT' }]
      : [create];
    const written = this.#write(steps, events, sql.waitForCreate(this.session));
    if (written !== LANDED && written[imported ? 2 : 0]!.length === 0)
      throw new LogError(`${this.location}: a session already lives here; nothing was written`);
    this.#known = { seq: events.at(-1)!.seq, sum };
    this.#checkpoint = null;
    this.#tailBytes = bytes;
  }

  /** The rows of one statement. */
  #one(step: Step): Row[] {
    return this.#door().run([step])[0]!;
  }

  /** The bridge to the database: this object's, or a new one when that was closed. */
  #door(): Bridge {
    if (this.#bridge.closed) this.#bridge = bridgeTo(this.url, this.#ownConnection);
    return this.#bridge;
  }

  /** Runs a write's first steps, which take the stream's row: a wait that ran out names the session and what holds it. */
  #held(steps: Step[]): Row[][] {
    try {
      return this.#door().run(steps);
    } catch (error) {
      if (!(error instanceof DatabaseError) || error.code !== LOCK_NOT_AVAILABLE) throw error;
      throw new LogError(
        `${this.location}: another writer has held this session for the whole lock wait (${LOCK_WAIT}), as a peer that stopped mid-write does until the server ends its transaction; nothing was written: run it again`,
      );
    }
  }

  /** A read's answer; refuses a session that does not exist. */
  #stream(rows: Row[]): sql.StreamRead {
    const stream = sql.streamRead(rows);
    if (stream === null)
      throw new LogError(`no session ${this.session} in ${shownDatabase(this.url)} (\`gapflow init --store URL --session ${this.session}\` creates one)`);
    return stream;
  }

  /**
   * The lines a read found after seq `from`, each checked as a read of the
   * JSONL file checks it, ending where the stream's record says; that end
   * is kept as where this object saw the stream end.
   */
  #scanRead(from: number, stream: sql.StreamRead, fold?: () => EventSink): Scan {
    const scan = this.#scanText(from, chainPoint(from, stream.before, this.location), stream.tail, fold);
    if (scan.end.seq !== stream.version)
      throw new LogError(`${this.location}: the stream's events end at seq ${scan.end.seq}, but its record says ${stream.version}`);
    this.#known = { seq: stream.version, sum: stream.lastSum };
    return scan;
  }

  /** The lines in `text` (those after seq `from`, chaining on from `point`), checked; the events go to `fold`'s sink when one is given. */
  #scanText(from: number, point: ChainPoint, text: string, fold?: () => EventSink): Scan {
    const scan = scanBytes(Buffer.from(text, 'utf8'), point, 0, 'sealed', {}, fold);
    if (scan.fault) throw new LogError(`${this.location} seq ${from + scan.fault.line}: ${scan.fault.reason}`, from + scan.fault.line);
    return scan;
  }

  /**
   * Runs the steps that write `events` and make them durable; a taken event
   * id (two writers retrying one request) is named, as a file log names it.
   * Any other failure may have come after the commit went out (a connection
   * cut, a database that stopped answering), so before it answers it looks
   * whether the last event is there: LANDED when it is; the failure, saying
   * nothing was written, when it is not; OutcomeUnknown when it cannot tell.
   * The look first runs `wait` in a transaction it then rolls back: a step
   * that waits until no other transaction is writing the stream, so a commit
   * still under way on the old connection has ended, one way or the other.
   */
  #write(steps: Step[], events: readonly GapflowEvent[], wait: Step): Row[][] | typeof LANDED {
    try {
      return this.#door().run(steps);
    } catch (error) {
      if (error instanceof DatabaseError && error.code === UNIQUE_VIOLATION) {
        const taken = events.find((event) => this.byId(event.id) !== undefined);
        if (taken !== undefined) throw new LogError(`${this.location}: event id ${taken.id} is already in the log; nothing was written`);
      }
      if (this.#landed(events, wait, error)) return LANDED;
      const message = messageOf(error);
      throw new LogError(message.endsWith('nothing was written') ? message : `${message}; nothing was written`);
    }
  }

  /** Whether the last of `events` is in the stream, looked at after `wait` (see #write), on a new connection if need be; OutcomeUnknown when no look gets an answer. */
  #landed(events: readonly GapflowEvent[], wait: Step, cause: unknown): boolean {
    const id = events.at(-1)!.id;
    let last: unknown = cause;
    for (const pause of LOOKUP_PAUSES_MS) {
      pauseFor(pause);
      try {
        const [, , found] = this.#door().run([{ text: 'BEGIN' }, wait, sql.eventById(this.session, id), { text: 'ROLLBACK' }]);
        return found!.length > 0;
      } catch (error) {
        last = error;
      }
    }
    throw new OutcomeUnknown(
      `${this.location}: the answer to a write was lost (${unprefixed(messageOf(cause), this)}), and looking for it failed too (${unprefixed(messageOf(last), this)})`,
      events,
    );
  }

  /** Keeps a checkpoint; false when it could not (best effort: a read then does without). */
  #keep(step: Step): boolean {
    try {
      this.#door().run([step]);
      return true;
    } catch {
      return false;
    }
  }

  #distinctIds(events: readonly GapflowEvent[]): void {
    const seen = new Set<string>();
    for (const { id } of events) {
      if (seen.has(id)) throw new LogError(`${this.location}: event id ${id} comes twice in one write; nothing was written`);
      seen.add(id);
    }
  }
}

/** Where a read after seq `from` chains on from: the start, or the line at `from` (`before`), which must be there. */
function chainPoint(from: number, before: string | null, location: string): ChainPoint {
  if (from === 0) return CHAIN_START;
  if (before === null) throw new LogError(`${location}: the stream has no event at seq ${from}`);
  const sum = storedSum(before);
  return { seq: from, sum: sum ?? '', sealed: sum !== null };
}

/** How long the one statement that imports a whole log may run (ms): a log at its size limit takes its time, within the 60 s the bridge waits for any answer. */
const IMPORT_STATEMENT_TIMEOUT_MS = 50_000;

/** What #write returns for a write whose answer was lost, found in the stream afterwards. */
const LANDED = Symbol('landed');

/** How long a write waits for a session another writer holds (the connection's lock_timeout), as messages say it. */
const LOCK_WAIT = `${CONNECTION_SETTINGS.lock_timeout / 1000} s`;

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** A bridge's message without the database it names first (the store's own message names it). */
function unprefixed(message: string, log: { url: string }): string {
  const prefix = `${shownDatabase(log.url)}: `;
  return message.startsWith(prefix) ? message.slice(prefix.length) : message;
}

/** Whether a commit notice tells of events in `session` past `heard`. */
function noticeFor(payload: string, session: string, heard: number): boolean {
  try {
    const { stream, version } = JSON.parse(payload) as { stream?: unknown; version?: unknown };
    return stream === session && typeof version === 'number' && version > heard;
  } catch {
    return false;
  }
}
