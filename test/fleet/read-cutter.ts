import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach } from 'vitest';

/*
 * Cuts a store's reads of a session as a database failure would: a process
 * of its own takes an exclusive lock on one of gapflow's tables, so a read
 * of a session (a statement that reads `gapflow.streams s` by name: the
 * events, the checkpoint and the events after it, or the head row) waits
 * on it, and terminates the connection of each such read it finds waiting
 * (pg_terminate_backend), for `cutForMs` after the first, then lets the
 * lock go. A process apart, since the reader's thread is held while its read
 * waits (the store is synchronous): nothing on that thread could cut it.
 */

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

const CUTTER = `
import pg from 'pg';
import { createInterface } from 'node:readline';
const [url, table, cutForMs, waitMs] = process.argv.slice(1);
const admin = new pg.Client({ connectionString: url });
const locker = new pg.Client({ connectionString: url });
await admin.connect();
await locker.connect();
console.log('ready');
for await (const line of createInterface({ input: process.stdin })) {
  if (line !== 'lock') continue;
  await locker.query('BEGIN');
  await locker.query('LOCK TABLE gapflow.' + table + ' IN ACCESS EXCLUSIVE MODE');
  console.log('locked');
  const gaveUp = Date.now() + Number(waitMs);
  let first = null;
  let cut = 0;
  while (first === null ? Date.now() < gaveUp : Date.now() - first < Number(cutForMs)) {
    const { rows } = await admin.query(
      "SELECT pid FROM pg_stat_activity WHERE application_name = 'gapflow' AND wait_event_type = 'Lock' AND (query LIKE '%gapflow.streams s %WHERE s.name = $1%' OR query LIKE '%JOIN gapflow.streams s %WHERE c.stream = $1%')",
    );
    for (const { pid } of rows) {
      await admin.query('SELECT pg_terminate_backend($1)', [pid]);
      first ??= Date.now();
      cut += 1;
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  await locker.query('ROLLBACK');
  console.log('released ' + cut);
  break;
}
await admin.end();
await locker.end();
`;

export interface ReadCutter {
  /** Takes the lock; settles once it is held. */
  lock(): Promise<void>;
  /** Settles, once the lock is let go, with how many reads were cut (0 when none came to wait within the wait). */
  released(): Promise<number>;
}

const running: ChildProcess[] = [];
afterEach(() => {
  for (const child of running.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});

/** A cutter of reads on the database at `url`, connected; `table` is the one it locks (`streams`, or `events` to leave the listing of sessions free). */
export async function readCutter(url: string, table: 'streams' | 'events' | 'checkpoints', cutForMs: number, waitMs = 20_000): Promise<ReadCutter> {
  const child = spawn('node', ['--input-type=module', '-e', CUTTER, url, table, String(cutForMs), String(waitMs)], {
    cwd: ROOT,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  running.push(child);
  let said = '';
  let errors = '';
  child.stdout!.on('data', (chunk: Buffer) => (said += String(chunk)));
  child.stderr!.on('data', (chunk: Buffer) => (errors += String(chunk)));
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  const hear = async (line: RegExp): Promise<RegExpExecArray> => {
    for (;;) {
      const found = line.exec(said);
      if (found !== null) return found;
      if (child.exitCode !== null) throw new Error(`the read cutter ended: ${errors}`);
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5))]);
    }
  };
  await hear(/^ready$/m);
  return {
    lock: async () => {
      child.stdin!.write('lock\n');
      await hear(/^locked$/m);
    },
    released: async () => Number((await hear(/^released (\d+)$/m))[1]),
  };
}
