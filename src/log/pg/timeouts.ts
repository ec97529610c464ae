import type pg from 'pg';

/**
 * What every gapflow connection asks of the server (docs/postgres.md, "Timeouts"):
 * transactions stay short, so a writer that stops mid-write (its network
 * frozen, its laptop asleep) holds its session for seconds, not until the
 * server notices the peer is gone. `idle_in_transaction_session_timeout`
 * ends such a transaction (and its connection) 5 s after its last
 * statement; a writer waits at most 10 s for a session's row
 * (`lock_timeout`), so it outwaits a stopped peer; no statement runs past
 * 20 s (`statement_timeout`); and both ends probe an idle connection after
 * 10 s (TCP keepalive), so a dead peer is noticed within half a minute even
 * outside a transaction. A URL's own settings (`?options=…`) come first.
 */
export const CONNECTION_SETTINGS = {
  application_name: 'gapflow',
  connectionTimeoutMillis: 10_000,
  idle_in_transaction_session_timeout: 5_000,
  lock_timeout: 10_000,
  statement_timeout: 20_000,
  keepAlive: true,
  keepAliveInitialDelayMillis: 10_000,
  options: '-c tcp_keepalives_idle=10 -c tcp_keepalives_interval=5 -c tcp_keepalives_count=3',
} satisfies pg.ClientConfig;
