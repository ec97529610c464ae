/*
 * The tables a PostgreSQL store keeps, made by gapflow itself the first time
 * it meets a database (no migration tool to run first). Each migration runs
 * once, in order, inside one transaction that holds an advisory lock, so
 * processes meeting a fresh database at the same moment make it once.
 * A released migration is never edited: a change is a new one at the end.
 */

/** The schema every table lives in, so gapflow's names never collide with a user's own. */
export const SCHEMA = 'gapflow';

/** The advisory lock key migrations hold (any fixed number; this one spells "gapf"). */
export const MIGRATION_LOCK = 0x67617066;

export const MIGRATIONS: readonly string[] = [
  // 1: streams and events. A stream is one session: its version (the last seq) and the checksum its next line chains
  // to. An event keeps its sealed line as written (export gives back the same bytes) beside the columns queries use.
  // `position` orders events across streams; `tx` is the writing transaction, so a reader following the global order
  // never reads past a transaction still under way (it reads only below the oldest one still open).
  `CREATE TABLE ${SCHEMA}.streams (
     name text PRIMARY KEY,
     version bigint NOT NULL,
     last_sum text NOT NULL,
     created_at timestamptz NOT NULL DEFAULT now(),
     updated_at timestamptz NOT NULL DEFAULT now()
   );
   CREATE TABLE ${SCHEMA}.events (
     stream text NOT NULL REFERENCES ${SCHEMA}.streams (name),
     seq bigint NOT NULL,
     id text NOT NULL,
     type text NOT NULL,
     at text NOT NULL,
     line text NOT NULL,
     position bigint GENERATED ALWAYS AS IDENTITY,
     tx xid8 NOT NULL DEFAULT pg_current_xact_id(),
     PRIMARY KEY (stream, seq),
     UNIQUE (stream, id)
   );
   CREATE INDEX events_global_order ON ${SCHEMA}.events (tx, position);`,
  // 2: checkpoints, as a folder keeps checkpoint.json and state.json: a snapshot of a session's view (`kind` 'view')
  // or its `state --json` output ('state'), keyed by the seq it covers and that line's checksum, so a read folds only
  // the lines after it. A cache, never a fact: one that no longer matches its line is passed over and written again.
  `CREATE TABLE ${SCHEMA}.checkpoints (
     stream text NOT NULL REFERENCES ${SCHEMA}.streams (name),
     kind text NOT NULL,
     format text NOT NULL,
     seq bigint NOT NULL,
     sum text NOT NULL,
     body text NOT NULL,
     written_at timestamptz NOT NULL DEFAULT now(),
     PRIMARY KEY (stream, kind)
   );`,
  // 3: a stream's size in bytes (its lines with their newlines, as the JSONL file would hold them), so a write
  // refuses to take a session past the log's size limit without summing its lines.
  `ALTER TABLE ${SCHEMA}.streams ADD COLUMN bytes bigint NOT NULL DEFAULT 0;
   UPDATE ${SCHEMA}.streams s SET bytes = (SELECT coalesce(sum(octet_length(e.line) + 1), 0) FROM ${SCHEMA}.events e WHERE e.stream = s.name);`,
  // 4: the head and the closed gaps' index, as a folder keeps checkpoint.head.json and checkpoint.closed.json (the head
  // is a checkpoints row of kind 'head'). The index is one row that names it (the seq and checksum it covers, its
  // length, and its table line: each bucket's length and crc32) and one row per bucket: a lookup reads its one bucket
  // by the primary key, and a write that adds a gap to the index rewrites the bucket it lands in, not the megabytes of
  // the rest, as one bytea would have it rewrite them. `token` names one write of the index: a reader of buckets
  // checks, in the same statement, that the index is still the one whose table it read. Buckets are stored
  // uncompressed (EXTERNAL): a write that extends the index reads it whole, and decompressing its 1.9 MB at 100,000
  // gaps took four times as long as reading them (28 ms against 4 ms, a third of them as stored).
  `CREATE TABLE ${SCHEMA}.closed_indexes (
     stream text PRIMARY KEY REFERENCES ${SCHEMA}.streams (name),
     format text NOT NULL,
     seq bigint NOT NULL,
     sum text NOT NULL,
     token text NOT NULL,
     body_bytes bigint NOT NULL,
     table_line text NOT NULL,
     written_at timestamptz NOT NULL DEFAULT now()
   );
   CREATE TABLE ${SCHEMA}.closed_buckets (
     stream text NOT NULL REFERENCES ${SCHEMA}.streams (name),
     bucket integer NOT NULL,
     bytes bytea NOT NULL,
     PRIMARY KEY (stream, bucket)
   );
   ALTER TABLE ${SCHEMA}.closed_buckets ALTER COLUMN bytes SET STORAGE EXTERNAL;`,
];

/** The channel a commit notifies, with `{"stream","version"}` as its payload. */
export const CHANNEL = 'gapflow_events';
