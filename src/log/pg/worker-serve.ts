import pg from 'pg';
import { CHANNEL, MIGRATION_LOCK, MIGRATIONS, SCHEMA } from './schema.js';
import { LISTEN, type Answer, type Request, type Row, type Step, type WorkerData } from './protocol.js';
import { CONNECTION_SETTINGS } from './timeouts.js';

/*
 * The PostgreSQL store's database thread: it holds the connections and runs
 * what the store asks, one request at a time, with `pg`'s async driver. The
 * store's own thread stays synchronous, as every store is (see protocol.ts).
 * Loaded by worker.ts, which answers for it if it cannot load.
 */

/** The answerer of the worker's requests, for the database `data` names. */
export function answerer(data: WorkerData): (request: Request) => Promise<Answer> {
  const database = new Database(data);
  return (request) => database.answer(request);
}

/** The worker's connections to one database, and the write under way on them. */
class Database {
  readonly #settings: pg.ClientConfig;
  readonly #notices: WorkerData['notices'];
  /** The connection requests run on, made (and the schema brought up to date) on the first request. */
  #main: Promise<pg.Client> | null = null;
  /** The connection that listens for commits, made when the store first follows. */
  #listener: Promise<pg.Client> | null = null;
  /** The connection a write's transaction is open on (between a BEGIN and its COMMIT or ROLLBACK); null when none is. */
  #inTransaction: pg.Client | null = null;

  constructor({ url, notices }: WorkerData) {
    this.#settings = { connectionString: url, ...CONNECTION_SETTINGS };
    this.#notices = notices;
  }

  async answer(request: Request): Promise<Answer> {
    const results: Row[][] = [];
    let index = 0;
    try {
      const client = await this.#connect();
      if (this.#inTransaction !== null && this.#inTransaction !== client) {
        // The connection a write began on dropped (the server rolled its transaction back): what remains of the write
        // must not run outside it, on a new connection, without its lock.
        this.#inTransaction = null;
        throw new Error('the connection to the database dropped in the middle of a write, which the server rolled back; nothing was written');
      }
      for (; index < request.steps.length; index++) {
        const step = request.steps[index]!;
        if (step.text === LISTEN) {
          await this.#listen();
          results.push([]);
        } else {
          results.push(await this.#run(step, client));
        }
      }
      return { ok: true, results };
    } catch (error) {
      const open = this.#inTransaction;
      this.#inTransaction = null;
      // A connection that failed (cut, ended by the server) is not asked again: the next request makes a new one.
      if (!answeredByServer(error)) this.#drop();
      else await open?.query('ROLLBACK').catch(() => undefined);
      const message = error instanceof Error ? error.message : String(error);
      const code = typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string' ? error.code : null;
      return { ok: false, message: message.split('\n')[0]!, code, step: index, lost: !(error instanceof pg.DatabaseError) };
    }
  }

  #connect(): Promise<pg.Client> {
    this.#main ??= (async () => {
      const client = new pg.Client(this.#settings);
      // A connection lost between requests fails the next one; it must not end the process unheard.
      client.on('error', () => {
        this.#main = null;
      });
      await client.connect();
      await migrate(client);
      return client;
    })().catch((error: unknown) => {
      this.#main = null;
      throw error;
    });
    return this.#main;
  }

  /** Forgets the main connection and closes it (a request that failed on it found it broken). */
  #drop(): void {
    const main = this.#main;
    this.#main = null;
    void main?.then((client) => client.end()).catch(() => undefined);
  }

  #listen(): Promise<pg.Client> {
    this.#listener ??= (async () => {
      const client = new pg.Client(this.#settings);
      client.on('error', () => {
        this.#listener = null;
        this.#notices.postMessage({ lost: true });
      });
      client.on('notification', (message) => this.#notices.postMessage({ payload: message.payload ?? '' }));
      await client.connect();
      await client.query(`LISTEN ${CHANNEL}`);
      return client;
    })().catch((error: unknown) => {
      this.#listener = null;
      throw error;
    });
    return this.#listener;
  }

  async #run(step: Step, client: pg.Client): Promise<Row[]> {
    if (step.text.startsWith('BEGIN')) this.#inTransaction = client;
    const result = await client.query<Row>(step.text, step.values as unknown[]);
    if (step.text === 'COMMIT' || step.text === 'ROLLBACK') this.#inTransaction = null;
    return result.rows;
  }
}

/** Whether `error` is the server's answer to a statement on a connection that still stands (not a cut, a timeout or a FATAL end). */
function answeredByServer(error: unknown): boolean {
  return error instanceof pg.DatabaseError && error.severity !== 'FATAL' && error.severity !== 'PANIC';
}

/** Runs the migrations this database lacks: read without a lock when it is current (the usual case, one query). */
async function migrate(client: pg.Client): Promise<void> {
  if ((await appliedMigrations(client)) >= MIGRATIONS.length) return;
  await client.query('BEGIN');
  try {
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${SCHEMA}`);
    await client.query(`CREATE TABLE IF NOT EXISTS ${SCHEMA}.migrations (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`);
    const done = await appliedMigrations(client);
    for (let version = done + 1; version <= MIGRATIONS.length; version++) {
      await client.query(MIGRATIONS[version - 1]!);
      await client.query(`INSERT INTO ${SCHEMA}.migrations (version) VALUES ($1)`, [version]);
    }
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}

/** The last migration applied here; 0 when gapflow has never been here. */
async function appliedMigrations(client: pg.Client): Promise<number> {
  const { rows } = await client.query<{ present: string | null }>(`SELECT to_regclass('${SCHEMA}.migrations') AS present`);
  if (rows[0]?.present == null) return 0;
  const result = await client.query<{ version: number | null }>(`SELECT max(version) AS version FROM ${SCHEMA}.migrations`);
  return result.rows[0]?.version ?? 0;
}
