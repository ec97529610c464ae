import { dashboardServer, Fleet, fleetSource, fleetTable } from '../fleet/index.js';
import { boundOf, exposureNotice } from '../listen/index.js';
import { terminalSafe, terminalSafeJson } from '../render/index.js';
import { type ParsedCall, UsageError } from './args.js';
import { jsonText, type CliIO } from './common.js';
import type { FLEET_FLAGS, SERVE_FLAGS } from './table.js';
import { listen, LOOPBACK, portOption } from './serve.js';

/** The port `serve` listens on without `--port`. */
export const SERVE_PORT = 7357;

/**
 * Where the fleet is: `--store URL|DIR` or a DIR word (one of them), else
 * `$GAPFLOW_STORE`, else the current folder. `--dir` names one session,
 * so it is refused here rather than read as something it is not.
 */
function target(values: { store?: string | undefined; dir?: string | undefined; session?: string | undefined }, args: readonly string[], io: CliIO): string {
  if (values.dir !== undefined) throw new UsageError('--dir names one session; name the folder to search with --store DIR (or as DIR)');
  if (values.session !== undefined) throw new UsageError('--session names one session, and this lists them all: leave it out');
  if (args.length > 1) throw new UsageError(`unexpected argument "${args[1]}" (one DIR at most)`);
  if (values.store !== undefined && args.length > 0) throw new UsageError(`both --store and "${args[0]}" name where the sessions are: give one`);
  const named = values.store ?? args[0] ?? io.env.GAPFLOW_STORE;
  if (named === '') throw new UsageError('--store needs a folder or a database URL');
  return named ?? io.cwd;
}

/**
 * `gapflow fleet [DIR] [--store URL|DIR] [--json]`: every session there, a
 * line each (name, state, round, open and weighted open, forecast, age of
 * the last event, last reason); `--json`: `{"sessions": [row, …]}`. A
 * session whose log cannot be read is listed with why; the call still
 * succeeds. A read that failed for a passing cause is retried for up to
 * two seconds first (Fleet.settle).
 */
export function fleet({ values, args }: ParsedCall<typeof FLEET_FLAGS>, io: CliIO): void {
  const source = fleetSource(target(values, args, io), io);
  try {
    const read = new Fleet(source);
    // A read that failed for a passing cause (a connection cut) is tried again for a moment before the session is listed UNREADABLE.
    read.settle();
    const rows = read.rows();
    // Names and errors are a folder's or a row's bytes: JSON escapes only C0, so the rest a terminal obeys is escaped too.
    if (values.json) io.stdout(terminalSafeJson(jsonText({ sessions: rows })));
    else io.stdout(fleetTable(rows, source.location));
  } finally {
    source.close();
  }
}

/**
 * `gapflow serve [DIR] [--store URL|DIR] [--port P] [--host H]`: serves the
 * fleet's dashboard, its JSON, a live feed and Prometheus metrics on
 * loopback (or `--host`, said on stderr), keeping every session current as
 * other processes write, until `stop` settles (Ctrl-C). The first line on
 * stdout is the dashboard's URL.
 */
export async function serve({ values, args }: ParsedCall<typeof SERVE_FLAGS>, io: CliIO, stop: Promise<unknown>): Promise<void> {
  const port = portOption(values.port) ?? SERVE_PORT;
  const host = values.host ?? LOOPBACK;
  if (host === '') throw new UsageError('--host needs an address to listen on');
  // Read before anything listens, so a bad folder fails with its one line and nothing to shut down.
  const source = fleetSource(target(values, args, io), io);
  const fleet = new Fleet(source);
  try {
    const shown = host.includes(':') ? `[${host}]` : host;
    // Whom it answers follows where it listens (src/listen): on loopback, only loopback names and its own pages.
    const dashboard = await dashboardServer(fleet);
    try {
      await listen(dashboard.server, port, host);
      fleet.watch();
      io.stdout(`http://${shown}:${port}/\n`);
      const count = fleet.rows().length;
      io.stdout(`gapflow serve: ${count} session${count === 1 ? '' : 's'} under ${terminalSafe(source.location)}; metrics at /metrics; Ctrl-C to stop\n`);
      const bound = boundOf(dashboard.server);
      const notice = bound === null ? null : exposureNotice(bound);
      if (notice !== null) io.stderr(`gapflow: ${notice}\n`);
      await stop;
    } finally {
      await dashboard.close();
    }
  } finally {
    fleet.stop();
  }
}
