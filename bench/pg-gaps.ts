/**
 * `npm run bench:postgres -- --gaps 1k,100k [--rounds N] [--runs N]`: issue
 * 34's gap dimension on PostgreSQL. For each size, the session of `npm run
 * bench:gaps` (bench/gaps-build.ts: that many gaps not closed after ROUNDS
 * closed rounds, one round open) is built in the database and in a folder;
 * then, interleaved in one series (medians of RUNS, after a warm-up call
 * each, which keeps the checkpoints):
 *  - `gapflow next --json --store URL --session NAME`, each size, and on the
 *    folder (`--dir`) at the largest; `node -e 0` beside them;
 *  - a stop hook on each database session (bench/pg-hook.ts: `gapflow hook`
 *    works on folders only), from its head row;
 *  - `gapflow gap open` on each database session, and on the largest folder;
 * and, in a series of their own (they take seconds), the same hook from the
 * whole view, resumed from its checkpoint, as every call on a database did
 * before it kept a head. The smallest size is what the others are held to:
 * a call on the head should cost the same whatever the inventory's size.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { label, option } from './args.js';
import { runChild, series, type Child, type Summary } from './measure.js';

const here = (file: string) => fileURLToPath(new URL(file, import.meta.url));
const BIN = here('../gapflow.cjs');
const BUILD = here('./gaps-build.js');
const HOOK = here('./pg-hook.js');
const BUILD_TIMEOUT_MS = 30 * 60 * 1000;
const CALL_TIMEOUT_MS = 120_000;

const ms = (value: number) => (Number.isFinite(value) ? (value < 1_000 ? `${value.toFixed(1)} ms` : `${(value / 1000).toFixed(2)} s`) : '-');
const mib = (value: number) => (Number.isFinite(value) ? `${(value / (1024 * 1024)).toFixed(1)} MiB` : '-');

interface Built {
  size: string;
  url: string;
  session: string;
  dir: string;
}

/** Builds the gap dimension's session of `gaps` gaps in the database (session `gaps-<size>`) and in a folder under `root`. */
async function build(gaps: number, rounds: number, url: string, root: string): Promise<Built | null> {
  const size = label(gaps);
  const dir = join(root, `gaps-${size}`, '.gapflow');
  mkdirSync(join(root, `gaps-${size}`), { recursive: true });
  const session = `gaps-${size}`;
  for (const where of [
    [url, session],
    [dir, ''],
  ]) {
    process.stderr.write(`bench: building ${size} gaps, ${rounds} rounds, in ${where[0] === url ? 'PostgreSQL' : 'a folder'}…\n`);
    const built = await runChild(
      { args: [BUILD, where[0]!, String(gaps), String(rounds), ...(where[1] ? [where[1]] : [])], keepStdout: true },
      root,
      BUILD_TIMEOUT_MS,
    );
    if (built.outcome !== 'ok') {
      console.log(`\n== ${size} gaps: the build ${built.outcome}: ${built.note}`);
      return null;
    }
    const facts = JSON.parse(built.stdout) as { events: number; bytes: number; open: number; state: string; buildMs: number };
    console.log(
      `${size} gaps in ${where[0] === url ? 'PostgreSQL' : 'a folder'}: ${facts.events} events, ${mib(facts.bytes)} of lines, ${facts.open} open, ${facts.state}; built in ${ms(facts.buildMs)}`,
    );
  }
  return { size, url, session, dir };
}

export async function measureGaps(sizes: readonly number[], url: string, root: string): Promise<void> {
  const rounds = Number(option('rounds') ?? 1_000);
  const runs = Number(option('runs') ?? 15);
  if (!(rounds >= 0) || !(runs >= 1)) throw new Error('--rounds and --runs take positive numbers');
  const built: Built[] = [];
  for (const gaps of sizes) {
    const one = await build(gaps, rounds, url, root);
    if (one !== null) built.push(one);
  }
  if (built.length === 0) return;
  const largest = built.at(-1)!;
  const onStore = (b: Built, ...args: string[]) => [BIN, ...args, '--store', b.url, '--session', b.session];
  const onDir = (b: Built, ...args: string[]) => [BIN, ...args, '--dir', b.dir];
  const options = { runs, slowMs: 5_000, slowRuns: 3, timeoutMs: CALL_TIMEOUT_MS, scratch: root };

  // Each session's checkpoints as an open leaves them (the build kept them; an open finds them current).
  for (const b of built) await runChild({ args: onStore(b, 'state', '--json') }, root, CALL_TIMEOUT_MS);

  const named: [string, (run: number) => Child][] = [['node -e 0', () => ({ args: ['-e', '0'] })]];
  for (const b of built) named.push([`next --json, PostgreSQL ${b.size}`, () => ({ args: onStore(b, 'next', '--json') })]);
  named.push([`next --json, folder ${largest.size}`, () => ({ args: onDir(largest, 'next', '--json') })]);
  for (const b of built) named.push([`stop hook from the head, PostgreSQL ${b.size}`, () => ({ args: [HOOK, b.url, b.session, 'head'] })]);
  for (const b of built)
    named.push([
      `gap open, PostgreSQL ${b.size}`,
      (run) => ({ args: onStore(b, 'gap', 'open', `P-${String(run).padStart(4, '0')}`, '--severity', 'LOW', '--title', 't') }),
    ]);
  named.push([
    `gap open, folder ${largest.size}`,
    (run) => ({ args: onDir(largest, 'gap', 'open', `P-${String(run).padStart(4, '0')}`, '--severity', 'LOW', '--title', 't') }),
  ]);
  process.stderr.write(`bench: ${named.length} calls in turns, ${runs} runs each…\n`);
  const summaries = await series(
    named.map(([, child]) => child),
    options,
  );
  const rows = named.map(([name], i) => [name, summaries[i]!] as const);

  process.stderr.write('bench: the hook from the whole view (before the head rows), a few runs…\n');
  const whole = await series(
    built.map((b) => () => ({ args: [HOOK, b.url, b.session, 'whole'] })),
    { ...options, runs: Math.min(runs, 5), slowMs: 0, slowRuns: Math.min(runs, 5) },
  );
  const wholeRows = built.map((b, i) => [`stop hook from the whole view, PostgreSQL ${b.size}`, whole[i]!] as const);

  printRows([...rows, ...wholeRows], built[0]!.size);
}

/** Each call's median and peak RSS, with its ratio to the same call at the smallest size (`smallest`). */
function printRows(rows: readonly (readonly [string, Summary])[], smallest: string): void {
  const at = new Map(rows.map(([name, summary]) => [name, summary]));
  const table = [['call', 'median', 'peak RSS', 'runs', `vs ${smallest}`]];
  for (const [name, summary] of rows) {
    const reference = at.get(name.replace(/(PostgreSQL|folder) [^ ]+$/, `PostgreSQL ${smallest}`));
    const ratio = reference !== undefined && reference !== summary ? `${(summary.ms / reference.ms).toFixed(2)}x` : '';
    const failed = summary.outcome === 'ok' ? '' : ` (${summary.outcome}: ${summary.note})`;
    table.push([`${name}${failed}`, ms(summary.ms), mib(summary.rss), String(summary.runs), ratio]);
  }
  const widths = table[0]!.map((_, column) => Math.max(...table.map((line) => line[column]!.length)));
  console.log('');
  for (const line of table)
    console.log(`  ${line.map((cell, column) => (column === 0 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!))).join('  ')}`);
}
