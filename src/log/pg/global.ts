import type { Bridge } from './bridge.js';
import { SCHEMA } from './schema.js';

/*
 * Reading every stream's events in one global order, as a reader that
 * follows a whole database (the fleet view) does. Positions are handed out
 * when a row is inserted, not when its transaction commits, so a reader
 * that took "every position past the last one I saw" could pass over a
 * position whose writer had not committed yet, and never come back for it.
 * Each row also records its transaction (`tx`); a reader takes rows in
 * (tx, position) order and only those whose transaction is older than every
 * transaction still open (`pg_snapshot_xmin`), so nothing can commit behind
 * it later.
 */

/** Where a global reader is: the last (tx, position) it read. */
export interface GlobalCursor {
  tx: string;
  position: number;
}

export const GLOBAL_START: GlobalCursor = { tx: '0', position: 0 };

/** One event as the global order gives it: its stream, its seq there, and the cursor just past it. */
export interface GlobalEvent {
  stream: string;
  seq: number;
  at: GlobalCursor;
}

/** The events after `cursor` that no open transaction can come before, in global order, at most `limit`. */
export function readGlobal(bridge: Bridge, cursor: GlobalCursor, limit = 10_000): GlobalEvent[] {
  const [rows] = bridge.run([
    {
      text: `SELECT stream, seq, tx::text AS tx, position FROM ${SCHEMA}.events
             WHERE (tx, position) > ($1::xid8, $2::bigint) AND tx < pg_snapshot_xmin(pg_current_snapshot())
             ORDER BY tx, position LIMIT $3`,
      values: [cursor.tx, cursor.position, limit],
    },
  ]);
  return rows!.map((row) => ({ stream: String(row.stream), seq: Number(row.seq), at: { tx: String(row.tx), position: Number(row.position) } }));
}

/** Where a reader that wants only what commits from now on starts: past every event no open transaction can come before. */
export function globalEnd(bridge: Bridge): GlobalCursor {
  const [rows] = bridge.run([
    {
      text: `SELECT tx::text AS tx, position FROM ${SCHEMA}.events WHERE tx < pg_snapshot_xmin(pg_current_snapshot())
             ORDER BY tx DESC, position DESC LIMIT 1`,
    },
  ]);
  const last = rows![0];
  return last === undefined ? GLOBAL_START : { tx: String(last.tx), position: Number(last.position) };
}

/** Every session in the database, by name. */
export function streamNames(bridge: Bridge): string[] {
  const [rows] = bridge.run([{ text: `SELECT name FROM ${SCHEMA}.streams ORDER BY name` }]);
  return rows!.map((row) => String(row.name));
}
