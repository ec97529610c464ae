import { afterAll, beforeAll } from 'vitest';
import pg from 'pg';
import { START_POSTGRES_MS, startPostgres, type PostgresServer } from '../bench/postgres-server.js';
import { closePostgresStores } from '../src/index.js';

/**
 * A real PostgreSQL server for the test file (or describe block) that calls
 * this: started before its tests (bench/postgres-server.ts), stopped after
 * them, with every database worker its stores started. Returns the server's
 * connection URL, to be asked for once the tests run.
 */
export function postgresServer(): () => string {
  let server: PostgresServer | null = null;
  beforeAll(async () => {
    server = await startPostgres();
  }, START_POSTGRES_MS);
  afterAll(async () => {
    closePostgresStores();
    await server?.stop();
  }, START_POSTGRES_MS);
  return () => {
    if (server === null) throw new Error('the PostgreSQL server is not up');
    return server.url;
  };
}

/** A client of the server at `url` of its own, for the file that calls this (connected before its tests, ended after them): to look at or change rows as another program would. */
export function sqlClient(url: () => string): () => pg.Client {
  let client: pg.Client | null = null;
  beforeAll(async () => {
    client = new pg.Client({ connectionString: url() });
    await client.connect();
  });
  afterAll(async () => {
    await client?.end();
  });
  return () => {
    if (client === null) throw new Error('the client is not connected');
    return client;
  };
}
