import type { GapflowEvent } from '../../../events/index.js';
import { CHAIN_START, formatLines, scanBytes, storedSum, type ChainPoint, type Scan } from '../lines.js';
import type { FollowOptions } from '../follow.js';
import { FOLLOW_INTERVAL_MS } from '../follow.js';
import { assertExpected, continues, LogError, type Batch, type EventSink, type EventStore, type Expected, type Resumed } from '../types.js';
import { CHECKPOINT_MIN_TAIL_BYTES } from '../file-log.js';
import { Bridge, DatabaseError, type Notice } from './bridge.js';
import { sessionNameProblem, shownDatabase } from './names.js';
import type { Row, Step } from './protocol.js';
import { CHANNEL, SCHEMA } from './schema.js';

/** One worker (and connection) per database a process uses, shared by its stores. */
const bridges = new Map<string, Bridge>();

function bridgeFor(url: string): Bridge {
  let bridge = bridges.get(url);
  if (bridge === undefined) {
    bridge = new Bridge(url, shownDatabase(url));
    bridges.set(url, bridge);
  }
  return bridge;
}

/** Workers made for one store alone, ended with the shared ones. */
const own: Bridge[] = [];

function ownBridge(url: string): Bridge {
  const bridge = new Bridge(url, shownDatabase(url));
  own.push(bridge);
  return bridge;
}

/** Ends every database worker this process started (a long-lived embedder or a test, when it is done with its stores). */
export function closePostgresStores(): void {
  for (const bridge of [...bridges.values(), ...own.splice(0)]) bridge.close();
  bridges.clear();
}

/** The bridge to `url`, for readers across sessions (the fleet view). */
export function databaseAt(url: string): Bridge {
  return bridgeFor(url);
}

const UNIQUE_VIOLATION = '23505';
const SNAPSHOT = 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY';

/** The sealed lines of a batch (each without its newline), as columns for one INSERT … SELECT FROM unnest(…). */
function columns(events: readonly GapflowEvent[], lines: readonly string[]): unknown[] {
  return [events.map((e) => e.seq), events.map((e) => e.id), events.map((e) => e.type), events.map((e) => e.at), lines];
}

/** Sealed lines as formatLines gives them, without their newlines. */
const unended = (lines: readonly string[]) => lines.map((line) => line.slice(0, -1));

/**
 * A session's stream in PostgreSQL: one row per event, holding the sealed
 * line exactly as the JSONL file would (so the checksum chain runs through
 * the stream as through a file, and export gives back the same bytes), in
 * the `gapflow` schema it makes on first use (schema.ts). A write is one
 * transaction that locks the stream's row, so writers on one session take
 * turns and writers on different sessions do not wait for each other. Every
 * commit notifies listeners (`follow`, the fleet view).
 */
export class PgLog implements EventStore {
  readonly location: string;
  readonly #bridge: Bridge;
  /** Where this object last saw the stream end: its seq and that line's checksum ('' for a version 1 line); null: not read yet. */
  #known: { seq: number; sum: string } | null = null;
  /** The view checkpoint this object resumed from or wrote (the seq it covers, its body's size), and the bytes of line after it. */
  #checkpoint: { seq: number; bodyBytes: number } | null = null;
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
    this.#bridge = options.ownConnection ? ownBridge(url) : bridgeFor(url);
    this.#minCheckpointBytes = options.minCheckpointBytes ?? CHECKPOINT_MIN_TAIL_BYTES;
  }

  /**
   * From the view checkpoint of `format` when it still matches its line (one
   * request: the checkpoint, that line and every line after it, in one
   * snapshot); else every event, to `fold`'s sink when one is given.
   */
  resume(format: string, fold?: () => EventSink): Resumed {
    const [, stream, found, tail] = this.#bridge.run([
      { text: SNAPSHOT },
      this.#streamRow(false),
      {
        text: `SELECT c.seq, c.sum, c.body, e.line FROM ${SCHEMA}.checkpoints c JOIN ${SCHEMA}.events e ON e.stream = c.stream AND e.seq = c.seq
               WHERE c.stream = $1 AND c.kind = 'view' AND c.format = $2`,
        values: [this.session, format],
      },
      {
        text: `SELECT line FROM ${SCHEMA}.events WHERE stream = $1
               AND seq > COALESCE((SELECT seq FROM ${SCHEMA}.checkpoints WHERE stream = $1 AND kind = 'view' AND format = $2), 0) ORDER BY seq`,
        values: [this.session, format],
        joined: true,
      },
      { text: 'COMMIT' },
    ]);
    const head = (stream as Row[])[0];
    if (head === undefined) throw this.#missing();
    const checkpoint = (found as Row[])[0];
    const seq = Number(checkpoint?.seq ?? 0);
    const sum = String(checkpoint?.sum ?? '');
    if (checkpoint !== undefined && storedSum(String(checkpoint.line)) === sum) {
      const scan = this.#scanText(seq, { seq, sum, sealed: true }, tail as string);
      this.#endsAt(head, scan.end.seq);
      this.#checkpoint = { seq, bodyBytes: String(checkpoint.body).length };
      this.#tailBytes = Buffer.byteLength(tail as string);
      return { checkpoint: { seq, body: String(checkpoint.body) }, events: scan.events };
    }
    // No checkpoint (the tail is every line), or one that no longer matches its line (every line is read again).
    const text = checkpoint === undefined ? (tail as string) : this.sealedText();
    const scan = this.#scanText(0, CHAIN_START, text, fold);
    this.#endsAt(head, scan.end.seq);
    this.#checkpoint = null;
    this.#tailBytes = Buffer.byteLength(text);
    return { checkpoint: null, events: scan.events };
  }

  saveCheckpoint(format: string, seq: number, body: () => string): void {
    const known = this.#known;
    // Only a line with a checksum keys a checkpoint (a stream of version 1 lines alone has none).
    if (known === null || known.seq !== seq || seq === 0 || known.sum === '') return;
    const text = body();
    if (!this.#keep('view', format, seq, known.sum, text)) return;
    this.#checkpoint = { seq, bodyBytes: text.length };
    this.#tailBytes = 0;
  }

  /** Keeps a checkpoint of `kind` at `seq` (whose line's checksum is `sum`); false when it could not (best effort: a read then does without). */
  #keep(kind: 'view' | 'state', format: string, seq: number, sum: string, body: string): boolean {
    try {
      this.#bridge.run([
        {
          text: `INSERT INTO ${SCHEMA}.checkpoints (stream, kind, format, seq, sum, body) VALUES ($1, $2, $3, $4, $5, $6)
                 ON CONFLICT (stream, kind) DO UPDATE SET format = EXCLUDED.format, seq = EXCLUDED.seq, sum = EXCLUDED.sum, body = EXCLUDED.body, written_at = now()`,
          values: [this.session, kind, format, seq, sum, body],
        },
      ]);
      return true;
    } catch {
      return false;
    }
  }

  /** As a folder keeps state.json: for a stream of at least the checkpoint size, whose end this object saw. */
  saveStateCache(format: string, seq: number, body: () => string): void {
    if (this.#known === null || this.#known.seq !== seq || seq === 0 || this.#known.sum === '' || this.#tailBytes + (this.#checkpoint?.bodyBytes ?? 0) < this.#minCheckpointBytes) return;
    this.#keep('state', format, seq, this.#known.sum, body());
  }

  readStateCache(format: string): string | null {
    const [rows] = this.#bridge.run([
      {
        text: `SELECT c.body FROM ${SCHEMA}.checkpoints c JOIN ${SCHEMA}.streams s ON s.name = c.stream
               WHERE c.stream = $1 AND c.kind = 'state' AND c.format = $2 AND c.seq = s.version AND c.sum = s.last_sum`,
        values: [this.session, format],
      },
    ]);
    const found = (rows as Row[])[0];
    return found === undefined ? null : String(found.body);
  }

  checkpointDue(): boolean {
    if (this.#known === null) return false;
    return this.#tailBytes >= this.#minCheckpointBytes && this.#tailBytes * 4 >= (this.#checkpoint?.bodyBytes ?? 0);
  }

  exists(): boolean {
    const [rows] = this.#bridge.run([{ text: `SELECT 1 FROM ${SCHEMA}.streams WHERE name = $1`, values: [this.session] }]);
    return (rows as Row[]).length > 0;
  }

  read(from = 0): GapflowEvent[] {
    // One snapshot for the stream's record and its lines: a commit between them would look like a missing line.
    const [, stream, ...rest] = this.#bridge.run([{ text: SNAPSHOT }, this.#streamRow(false), ...this.#linesAfter(from), { text: 'COMMIT' }]);
    const tail = rest.slice(0, 2);
    const head = (stream as Row[])[0];
    if (head === undefined) throw this.#missing();
    const events = this.#scan(from, tail);
    this.#endsAt(head, events.at(-1)?.seq ?? from);
    return events;
  }

  /** Checks that the lines read end where the stream's record says, and keeps that end as where this object saw it end. */
  #endsAt(head: Row, last: number): void {
    const version = Number(head.version);
    if (last !== version) throw new LogError(`${this.location}: the stream's events end at seq ${last}, but its record says ${version}`);
    this.#known = { seq: version, sum: String(head.last_sum) };
  }

  create(events: readonly GapflowEvent[]): void {
    const { lines, sum } = formatLines(events);
    this.#createWith(events, unended(lines), sum);
  }

  sealedText(): string {
    const [, stream, text] = this.#bridge.run([{ text: SNAPSHOT }, this.#streamRow(false), { ...this.#linesAfter(0)[1]!, joined: true }, { text: 'COMMIT' }]);
    if ((stream as Row[]).length === 0) throw this.#missing();
    return text as string;
  }

  createSealed(text: string, events: readonly GapflowEvent[]): void {
    const lines = text.split('\n').slice(0, -1);
    this.#createWith(events, lines, storedSum(lines.at(-1) ?? '') ?? '');
  }

  /** Starts the stream with `events`, whose sealed lines are `lines`, the last chaining on to `sum`. */
  #createWith(events: readonly GapflowEvent[], lines: readonly string[], sum: string): void {
    if (events.length === 0) throw new LogError(`${this.location}: a new session needs its first event`);
    continues(events, 0, this.location);
    this.#distinctIds(events);
    const [, inserted] = this.#write([
      { text: 'BEGIN' },
      {
        // Both rows or neither: a stream that exists already inserts no stream row, so no event row either.
        text: `WITH stream AS (INSERT INTO ${SCHEMA}.streams (name, version, last_sum) VALUES ($1, $2, $3) ON CONFLICT (name) DO NOTHING RETURNING name)
               INSERT INTO ${SCHEMA}.events (stream, seq, id, type, at, line)
               SELECT stream.name, e.* FROM stream, unnest($4::bigint[], $5::text[], $6::text[], $7::text[], $8::text[]) AS e
               RETURNING seq`,
        values: [this.session, events.at(-1)!.seq, sum, ...columns(events, lines)],
      },
      this.#notify(events.at(-1)!.seq),
      { text: 'COMMIT' },
    ], events);
    if ((inserted as Row[]).length === 0) throw new LogError(`${this.location}: a session already lives here; nothing was written`);
    this.#known = { seq: events.at(-1)!.seq, sum };
    this.#checkpoint = null;
    this.#tailBytes = lines.reduce((bytes, line) => bytes + Buffer.byteLength(line) + 1, 0);
  }

  byId(id: string): GapflowEvent | undefined {
    const [rows] = this.#bridge.run([
      {
        text: `SELECT e.seq, e.line, p.line AS previous FROM ${SCHEMA}.events e
               LEFT JOIN ${SCHEMA}.events p ON p.stream = e.stream AND p.seq = e.seq - 1
               WHERE e.stream = $1 AND e.id = $2`,
        values: [this.session, id],
      },
    ]);
    const found = (rows as Row[])[0];
    if (found === undefined) return undefined;
    const seq = Number(found.seq);
    const previous = typeof found.previous === 'string' ? found.previous : null;
    return this.#scan(seq - 1, [previous === null ? [] : [{ line: previous }], `${String(found.line)}\n`])[0];
  }

  transact<T>(knownVersion: number, decide: (fresh: readonly GapflowEvent[]) => Batch<T>, expected?: Expected): T {
    const [, stream, ...tail] = this.#bridge.run([{ text: 'BEGIN' }, this.#streamRow(true), ...this.#linesAfter(knownVersion)]);
    let batch: Batch<T>;
    let version: number;
    let lastSum: string;
    try {
      const head = (stream as Row[])[0];
      if (head === undefined) throw this.#missing();
      version = Number(head.version);
      lastSum = String(head.last_sum);
      assertExpected(this.location, expected, version);
      batch = decide(this.#scan(knownVersion, tail));
      continues(batch.events, version, this.location);
      this.#distinctIds(batch.events);
    } catch (error) {
      this.#bridge.run([{ text: 'ROLLBACK' }]);
      throw error;
    }
    if (batch.events.length === 0) {
      this.#bridge.run([{ text: 'ROLLBACK' }]);
      return batch.result;
    }
    const { lines, sum, text } = formatLines(batch.events, lastSum);
    this.#write([
      {
        text: `INSERT INTO ${SCHEMA}.events (stream, seq, id, type, at, line)
               SELECT $1, e.* FROM unnest($2::bigint[], $3::text[], $4::text[], $5::text[], $6::text[]) AS e`,
        values: [this.session, ...columns(batch.events, unended(lines))],
      },
      { text: `UPDATE ${SCHEMA}.streams SET version = $2, last_sum = $3, updated_at = now() WHERE name = $1`, values: [this.session, batch.events.at(-1)!.seq, sum] },
      this.#notify(batch.events.at(-1)!.seq),
      { text: 'COMMIT' },
    ], batch.events);
    // What lies past the checkpoint grew by what others appended since this object looked, and by this write.
    this.#tailBytes += Buffer.byteLength((tail as [Row[], string])[1]) + Buffer.byteLength(text);
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
        this.#bridge.listen();
      } catch {
        // Not listening: the timer's looks still find every commit, only later.
      }
    };
    const stopHearing = this.#bridge.hear((notice: Notice) => {
      if ('lost' in notice) {
        listen();
        return look();
      }
      if (noticeFor(notice.payload, this.session, heard)) look();
    }, options.persistent ?? false);
    listen();
    const timer = setInterval(look, options.intervalMs ?? FOLLOW_INTERVAL_MS);
    if (!options.persistent) timer.unref();
    look();
    return () => {
      stopped = true;
      clearInterval(timer);
      stopHearing();
    };
  }

  #streamRow(lock: boolean): Step {
    return { text: `SELECT version, last_sum FROM ${SCHEMA}.streams WHERE name = $1${lock ? ' FOR UPDATE' : ''}`, values: [this.session] };
  }

  /** The line at seq `from` (what the next chains to; none for 0), then every line after it, joined. */
  #linesAfter(from: number): Step[] {
    return [
      { text: `SELECT line FROM ${SCHEMA}.events WHERE stream = $1 AND seq = $2`, values: [this.session, from] },
      { text: `SELECT line FROM ${SCHEMA}.events WHERE stream = $1 AND seq > $2 ORDER BY seq`, values: [this.session, from], joined: true },
    ];
  }

  /** The events in `tail` (the answers to #linesAfter(from)), each line checked as a read of the JSONL file checks it. */
  #scan(from: number, tail: Array<Row[] | string>): GapflowEvent[] {
    const [before, text] = tail as [Row[], string];
    let point: ChainPoint = CHAIN_START;
    if (from > 0) {
      const line = before[0]?.line;
      if (typeof line !== 'string') throw new LogError(`${this.location}: the stream has no event at seq ${from}`);
      const sum = storedSum(line);
      point = { seq: from, sum: sum ?? '', sealed: sum !== null };
    }
    return this.#scanText(from, point, text).events;
  }

  /** The lines in `text` (those after seq `from`, chaining on from `point`), checked; the events go to `fold`'s sink when one is given. */
  #scanText(from: number, point: ChainPoint, text: string, fold?: () => EventSink): Scan {
    const scan = scanBytes(Buffer.from(text, 'utf8'), point, 0, 'sealed', {}, fold);
    if (scan.fault) throw new LogError(`${this.location} seq ${from + scan.fault.line}: ${scan.fault.reason}`, from + scan.fault.line);
    return scan;
  }

  /** Runs a write's statements; a taken event id (two writers retrying one request) is named, as a file log names it. */
  #write(steps: Step[], events: readonly GapflowEvent[]): Array<Row[] | string> {
    try {
      return this.#bridge.run(steps);
    } catch (error) {
      if (!(error instanceof DatabaseError) || error.code !== UNIQUE_VIOLATION) throw error;
      const taken = events.find((event) => this.byId(event.id) !== undefined);
      if (taken === undefined) throw error;
      throw new LogError(`${this.location}: event id ${taken.id} is already in the log; nothing was written`);
    }
  }

  #distinctIds(events: readonly GapflowEvent[]): void {
    const seen = new Set<string>();
    for (const { id } of events) {
      if (seen.has(id)) throw new LogError(`${this.location}: event id ${id} comes twice in one write; nothing was written`);
      seen.add(id);
    }
  }

  #notify(version: number): Step {
    return { text: 'SELECT pg_notify($1, $2)', values: [CHANNEL, JSON.stringify({ stream: this.session, version })] };
  }

  #missing(): LogError {
    return new LogError(`no session ${this.session} in ${shownDatabase(this.url)} (\`gapflow init --store URL --session ${this.session}\` creates one)`);
  }
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
