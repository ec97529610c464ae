import type { GapflowEvent } from '../../../events/index.js';
import type { Row, Step } from './protocol.js';
import { CHANNEL, SCHEMA } from './schema.js';

/*
 * The statements a PostgreSQL store runs, each one round trip. A read is
 * one statement, so it sees one snapshot without a transaction around it:
 * the stream's record (its version and last checksum), the line a read
 * chains on from, and the lines after it as one text (each line with its
 * newline, as the JSONL file holds them). A write is five: BEGIN, the
 * stream's row locked, the read, the lines inserted with the record moved on
 * and the commit announced (one statement of data-modifying CTEs, which
 * PostgreSQL runs whole), COMMIT; in two requests to the worker.
 */

const S = SCHEMA;

/** `lines after seq $2 of stream $1`, as one text. */
const tailAfter = (seq: string) => `(SELECT coalesce(string_agg(line || E'\\n', '' ORDER BY seq), '') FROM ${S}.events WHERE stream = $1 AND seq > ${seq})`;

/** What a read of a stream answers: its record, and the lines after seq `from` with the one they chain on from. */
export interface StreamRead {
  version: number;
  lastSum: string;
  /** The stream's lines in bytes, newlines included. */
  bytes: number;
  /** The line at seq `from` (null for 0, or when there is none). */
  before: string | null;
  tail: string;
}

/** Session `session`'s record and its lines after seq `from` (a row, or none when there is no such session). */
export function readAfter(session: string, from: number): Step {
  return {
    text: `SELECT s.version, s.last_sum, s.bytes, (SELECT line FROM ${S}.events WHERE stream = $1 AND seq = $2) AS before, ${tailAfter('$2')} AS tail
           FROM ${S}.streams s WHERE s.name = $1`,
    values: [session, from],
  };
}

/**
 * Takes session `session`'s row for a write, waiting while another writer
 * holds it. A statement of its own: a statement that waits for a row sees
 * the row as the other writer left it but everything else as it was before
 * it waited, so the read that follows (a new statement, a new snapshot) is
 * what sees the other writer's lines.
 */
export function lockStream(session: string): Step {
  return { text: `SELECT 1 FROM ${S}.streams WHERE name = $1 FOR UPDATE`, values: [session] };
}

/**
 * For a look at whether a session's start landed: claims its name, in a
 * transaction the caller rolls back, which waits while another transaction
 * is inserting it (a start still under way) and claims nothing if it exists.
 */
export function waitForCreate(session: string): Step {
  return { text: `INSERT INTO ${S}.streams (name, version, last_sum) VALUES ($1, 0, '') ON CONFLICT (name) DO NOTHING`, values: [session] };
}

/** The answer to `readAfter`; null when the session does not exist. */
export function streamRead(rows: Row[]): StreamRead | null {
  const row = rows[0];
  if (row === undefined) return null;
  return {
    version: Number(row.version),
    lastSum: String(row.last_sum),
    bytes: Number(row.bytes),
    before: typeof row.before === 'string' ? row.before : null,
    tail: String(row.tail),
  };
}

/** A session's record, its checkpoint of `kind` and `format` with the line it covers, and the lines after that checkpoint (all, without one). */
export function readFromCheckpoint(session: string, format: string): Step {
  return {
    text: `SELECT s.version, s.last_sum, s.bytes, c.seq AS checkpoint_seq, c.sum AS checkpoint_sum, c.body AS checkpoint_body,
             (SELECT line FROM ${S}.events WHERE stream = $1 AND seq = c.seq) AS before, ${tailAfter('coalesce(c.seq, 0)')} AS tail
           FROM ${S}.streams s LEFT JOIN ${S}.checkpoints c ON c.stream = s.name AND c.kind = 'view' AND c.format = $2
           WHERE s.name = $1`,
    values: [session, format],
  };
}

/** The sealed lines of a batch (each without its newline), as columns for an INSERT … SELECT FROM unnest(…). */
function columns(events: readonly GapflowEvent[], lines: readonly string[]): unknown[] {
  return [events.map((e) => e.seq), events.map((e) => e.id), events.map((e) => e.type), events.map((e) => e.at), lines];
}

const notice = (session: string, version: number) => JSON.stringify({ stream: session, version });

/** Starts a session: its record and its first lines, or nothing when the session exists (then no row comes back). One statement, so all or nothing. */
export function createStream(session: string, events: readonly GapflowEvent[], lines: readonly string[], sum: string, bytes: number): Step {
  const version = events.at(-1)!.seq;
  return {
    text: `WITH stream AS (INSERT INTO ${S}.streams (name, version, last_sum, bytes) VALUES ($1, $2, $3, $11) ON CONFLICT (name) DO NOTHING RETURNING name),
           inserted AS (INSERT INTO ${S}.events (stream, seq, id, type, at, line)
             SELECT stream.name, e.* FROM stream, unnest($4::bigint[], $5::text[], $6::text[], $7::text[], $8::text[]) AS e RETURNING seq)
           SELECT pg_notify($9, $10) FROM stream`,
    values: [session, version, sum, ...columns(events, lines), CHANNEL, notice(session, version), bytes],
  };
}

/** Inside a write's transaction: the batch's lines inserted, the record moved on to its last seq and checksum, the commit announced. */
export function appendLines(session: string, events: readonly GapflowEvent[], lines: readonly string[], sum: string, added: number): Step {
  const version = events.at(-1)!.seq;
  return {
    text: `WITH inserted AS (INSERT INTO ${S}.events (stream, seq, id, type, at, line)
             SELECT $1, e.* FROM unnest($2::bigint[], $3::text[], $4::text[], $5::text[], $6::text[]) AS e RETURNING seq),
           moved AS (UPDATE ${S}.streams SET version = $7, last_sum = $8, bytes = bytes + $11, updated_at = now() WHERE name = $1 RETURNING name)
           SELECT pg_notify($9, $10)`,
    values: [session, ...columns(events, lines), version, sum, CHANNEL, notice(session, version), added],
  };
}

/** Keeps a checkpoint of `kind` for a session, over the one it had. */
export function keepCheckpoint(session: string, kind: 'view' | 'state', format: string, seq: number, sum: string, body: string): Step {
  return {
    text: `INSERT INTO ${S}.checkpoints (stream, kind, format, seq, sum, body) VALUES ($1, $2, $3, $4, $5, $6)
           ON CONFLICT (stream, kind) DO UPDATE SET format = EXCLUDED.format, seq = EXCLUDED.seq, sum = EXCLUDED.sum, body = EXCLUDED.body, written_at = now()`,
    values: [session, kind, format, seq, sum, body],
  };
}

/** The body of a session's checkpoint of `kind` ('state': the kept `state --json`; 'head') and `format`, when it covers the session's last event exactly. */
export function currentCheckpoint(session: string, kind: 'state' | 'head', format: string): Step {
  return {
    text: `SELECT c.body FROM ${S}.checkpoints c JOIN ${S}.streams s ON s.name = c.stream
           WHERE c.stream = $1 AND c.kind = $2 AND c.format = $3 AND c.seq = s.version AND c.sum = s.last_sum`,
    values: [session, kind, format],
  };
}

/*
 * The head and the closed gaps' index (schema.ts, migration 4): what a
 * write decided on the head reads, in one statement, and the index's
 * buckets by number.
 */

/** Where a session ends (its version and last checksum), with the key of its head: what `saveHead` looks at before it builds a body. */
export function headKey(session: string): Step {
  return {
    text: `SELECT s.version, s.last_sum, c.format, c.seq, c.sum FROM ${S}.streams s
           LEFT JOIN ${S}.checkpoints c ON c.stream = s.name AND c.kind = 'head' WHERE s.name = $1`,
    values: [session],
  };
}

/** Keeps a session's head over the one it had, while the session still ends at `seq` with `sum` (else nothing: a head no reader could use). */
export function keepHead(session: string, format: string, seq: number, sum: string, body: string): Step {
  return {
    text: `INSERT INTO ${S}.checkpoints (stream, kind, format, seq, sum, body)
           SELECT $1, 'head', $2, $3, $4, $5 FROM ${S}.streams WHERE name = $1 AND version = $3 AND last_sum = $4
           ON CONFLICT (stream, kind) DO UPDATE SET format = EXCLUDED.format, seq = EXCLUDED.seq, sum = EXCLUDED.sum, body = EXCLUDED.body, written_at = now()`,
    values: [session, format, seq, sum, body],
  };
}

/** A session's head of `headFormat` when it covers the last event exactly, with the row that names its closed gaps' index of `indexFormat` (its columns null when there is none). */
export function headForWrite(session: string, headFormat: string, indexFormat: string): Step {
  return {
    text: `SELECT c.seq, c.sum, c.body, i.seq AS index_seq, i.sum AS index_sum, i.token, i.body_bytes, i.table_line
           FROM ${S}.checkpoints c JOIN ${S}.streams s ON s.name = c.stream AND c.seq = s.version AND c.sum = s.last_sum
           LEFT JOIN ${S}.closed_indexes i ON i.stream = c.stream AND i.format = $3
           WHERE c.stream = $1 AND c.kind = 'head' AND c.format = $2`,
    values: [session, headFormat, indexFormat],
  };
}

/**
 * Buckets `first` to `last` of a session's index, in order, while the index
 * is still the write `token` (none otherwise). Each comes as text, in
 * `escape` encoding: an index's lines are ASCII without a backslash (gap
 * ids, severities, states), which that encoding gives as they are, half
 * the size of the hex a bytea comes in and with no decoding; damaged bytes
 * come escaped, so they do not match their bucket's length or crc.
 */
export function closedBuckets(session: string, token: string, first: number, last: number): Step {
  return {
    text: `SELECT b.bucket, encode(b.bytes, 'escape') AS text FROM ${S}.closed_buckets b
           WHERE b.stream = $1 AND b.bucket BETWEEN $3 AND $4 AND EXISTS (SELECT 1 FROM ${S}.closed_indexes i WHERE i.stream = $1 AND i.token = $2)
           ORDER BY b.bucket`,
    values: [session, token, first, last],
  };
}

/** Inside an index write's transaction: takes the row that names a session's index (none for a first index), answering which write it holds and what it covers. */
export function lockClosedIndex(session: string): Step {
  return { text: `SELECT token, seq, sum FROM ${S}.closed_indexes WHERE stream = $1 FOR UPDATE`, values: [session] };
}

/** What an index write keeps: the row that names it, and the buckets it writes (`bytes` holds them one after another, `numbers[k]`'s `lengths[k]` long). */
export interface ClosedIndexRow {
  format: string;
  seq: number;
  sum: string;
  token: string;
  bodyBytes: number;
  tableLine: string;
  numbers: number[];
  lengths: number[];
  bytes: Buffer;
}

/** Writes an index's buckets (those given; the others stay as they are) and the row that names it, in one statement. */
export function keepClosedIndex(session: string, row: ClosedIndexRow): Step {
  let start = 0;
  const starts = row.lengths.map((length) => (start += length) - length);
  return {
    text: `WITH buckets AS (INSERT INTO ${S}.closed_buckets (stream, bucket, bytes)
             SELECT $1, b.n, substring($2::bytea FROM b.start + 1 FOR b.len) FROM unnest($3::int[], $4::int[], $5::int[]) AS b(n, start, len)
             ON CONFLICT (stream, bucket) DO UPDATE SET bytes = EXCLUDED.bytes)
           INSERT INTO ${S}.closed_indexes (stream, format, seq, sum, token, body_bytes, table_line) VALUES ($1, $6, $7, $8, $9, $10, $11)
           ON CONFLICT (stream) DO UPDATE SET format = EXCLUDED.format, seq = EXCLUDED.seq, sum = EXCLUDED.sum, token = EXCLUDED.token,
             body_bytes = EXCLUDED.body_bytes, table_line = EXCLUDED.table_line, written_at = now()`,
    values: [session, row.bytes, row.numbers, starts, row.lengths, row.format, row.seq, row.sum, row.token, row.bodyBytes, row.tableLine],
  };
}

/** Drops the row that names a session's index when it is still the write `token` (one whose buckets were found damaged: the next write rewrites them all). */
export function forgetClosedIndex(session: string, token: string): Step {
  return { text: `DELETE FROM ${S}.closed_indexes WHERE stream = $1 AND token = $2`, values: [session, token] };
}

/** The event `id` of a session, with the line before it (what it chains on from). */
export function eventById(session: string, id: string): Step {
  return {
    text: `SELECT e.seq, e.line, p.line AS previous FROM ${S}.events e
           LEFT JOIN ${S}.events p ON p.stream = e.stream AND p.seq = e.seq - 1
           WHERE e.stream = $1 AND e.id = $2`,
    values: [session, id],
  };
}

export function streamExists(session: string): Step {
  return { text: `SELECT 1 FROM ${S}.streams WHERE name = $1`, values: [session] };
}
