/**
 * `npm run bench:gaps [-- --gaps 1k,10k,100k] [--rounds N] [--runs N] [--timeout S] [--findings templated|varied]`:
 * issue 34's gap dimension. For each size, a session with that many gaps not
 * closed and ROUNDS closed rounds (bench/gaps-build.ts; 1,000 by default),
 * one round open, then, measured side by side (interleaved, medians):
 *  - `next --json` and `hook claude` against `node -e 0` (goal 1.5x);
 *  - one `gap open` against node appending as many bytes with fsync (1.8x);
 *  - `state --json` against node printing the same bytes from a file (1.5x);
 *  - the files beside the log other than the log itself, together (2 MiB);
 *  - the hook's peak RSS (150 MB).
 * A measure that passes its time limit or fails is shown as TIMEOUT or
 * FAILED and the bench goes on.
 */
import { mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { label, option, sizesIn } from './args.js';
import { bareAppend, runChild, scratchRoot, series, type Child, type Summary } from './measure.js';

const here = (file: string) => fileURLToPath(new URL(file, import.meta.url));
const BIN = here('../gapflow.cjs');
const BUILD = here('./gaps-build.js');

const sizes = sizesIn(option('gaps') ?? '1k,10k,100k');
const ROUNDS = Number(option('rounds') ?? 1_000);
const RUNS = Number(option('runs') ?? 21);
const TIMEOUT_MS = Number(option('timeout') ?? 120) * 1000;
/** `--findings varied`: the gaps as a real scan's `sync` leaves them (bench/gaps-build.ts); `templated` (the default): one title template. */
const FINDINGS = option('findings') ?? 'templated';
if (FINDINGS !== 'templated' && FINDINGS !== 'varied') throw new Error('--findings takes templated or varied');
const VARIED = FINDINGS === 'varied';
if (!(ROUNDS >= 0) || !(RUNS >= 1) || !(TIMEOUT_MS > 0)) throw new Error('--rounds, --runs and --timeout take positive numbers');
const MIB = 1024 * 1024;

const ms = (value: number) => (Number.isFinite(value) ? (value < 1_000 ? `${value.toFixed(0)} ms` : `${(value / 1000).toFixed(2)} s`) : '-');
const mib = (value: number) => (Number.isFinite(value) ? `${(value / MIB).toFixed(2)} MiB` : '-');
const bareNode: Child = { args: ['-e', '0'] };

interface Row {
  measure: string;
  value: string;
  against: string;
  ratio: string;
  goal: string;
  verdict: string;
}

function ratioRow(measure: string, subject: Summary, baseline: Summary, limit: number): Row {
  const ratio = subject.ms / baseline.ms;
  const failed = subject.outcome !== 'ok' ? subject : baseline.outcome !== 'ok' ? baseline : null;
  return {
    measure,
    value: `${ms(subject.ms)} (${mib(subject.rss)})`,
    against: ms(baseline.ms),
    ratio: Number.isFinite(ratio) ? `${ratio.toFixed(2)}x` : '-',
    goal: `<= ${limit}x`,
    verdict: failed !== null ? `${failed.outcome}: ${failed.note}` : ratio <= limit ? 'PASS' : 'MISS',
  };
}

function limitRow(measure: string, value: number, limit: number): Row {
  return {
    measure,
    value: mib(value),
    against: '',
    ratio: '',
    goal: `<= ${mib(limit)}`,
    verdict: !Number.isFinite(value) ? 'n/a' : value <= limit ? 'PASS' : 'MISS',
  };
}

/** Every file in the session folder but the log, its lock and the folder's own bookkeeping, together. */
function besideTheLog(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || (entry.parentPath === dir && entry.name === 'events.jsonl')) continue;
    total += statSync(join(entry.parentPath, entry.name)).size;
  }
  return total;
}

async function measure(gaps: number, root: string): Promise<Row[]> {
  const base = join(root, label(gaps));
  const session = join(base, '.gapflow');
  mkdirSync(base, { recursive: true });
  const options = { runs: RUNS, slowMs: 2_000, slowRuns: 3, timeoutMs: TIMEOUT_MS, scratch: root };
  const gapflow = (...args: string[]) => [BIN, ...args, '--dir', session];
  process.stderr.write(`bench: building ${label(gaps)} gaps, ${ROUNDS} rounds…\n`);
  const built = await runChild(
    { args: [BUILD, session, String(gaps), String(ROUNDS), ...(VARIED ? ['--varied'] : [])], keepStdout: true },
    root,
    30 * 60 * 1000,
  );
  if (built.outcome !== 'ok') return [{ measure: 'build', value: '', against: '', ratio: '', goal: '', verdict: `${built.outcome}: ${built.note}` }];
  const facts = JSON.parse(built.stdout) as { events: number; bytes: number; state: string; buildMs: number };
  console.log(
    `\n== ${label(gaps)} gaps (${FINDINGS} findings): ${facts.events} events, ${mib(facts.bytes)} log, ${facts.state}; built in ${ms(facts.buildMs)}`,
  );

  const rows: Row[] = [];
  const stateFile = join(base, 'state.json');
  // The first read keeps the checkpoints (and state --json its stored output): the calls after it are the ones measured.
  await runChild({ args: gapflow('state', '--json'), stdoutFile: stateFile }, root, TIMEOUT_MS);
  const stop = JSON.stringify({ session_id: 'bench', hook_event_name: 'Stop', stop_hook_active: false, cwd: base });
  await runChild({ args: gapflow('hook', 'claude'), input: stop, quietStderr: true }, root, TIMEOUT_MS);
  const [bare, next, hook] = await series(
    [() => bareNode, () => ({ args: gapflow('next', '--json') }), () => ({ args: gapflow('hook', 'claude'), input: stop, quietStderr: true })],
    options,
  );
  rows.push(ratioRow('next --json vs node -e 0', next!, bare!, 1.5));
  rows.push(ratioRow('hook claude vs node -e 0', hook!, bare!, 1.5));
  rows.push(limitRow('hook peak RSS', hook!.rss, 150 * 1_000_000));

  const print: Child = { args: ['-e', "process.stdout.write(require('fs').readFileSync(process.argv[1]))", stateFile] };
  const [stateRun, printRun] = await series([() => ({ args: gapflow('state', '--json') }), () => print], options);
  rows.push(ratioRow(`state --json (${mib(statSync(stateFile).size)}) vs printing it`, stateRun!, printRun!, 1.5));

  const logFile = join(session, 'events.jsonl');
  const open = (id: string): Child => ({ args: gapflow('gap', 'open', id, '--severity', 'LOW', '--title', 't') });
  const primer = await runChild(open('P-prime'), root, TIMEOUT_MS);
  if (primer.outcome === 'ok') {
    const copy = join(base, 'bare-append.jsonl');
    const { child: append } = bareAppend(logFile, copy);
    const [gapRun, appendRun] = await series([(run) => open(`P-${String(run).padStart(5, '0')}`), () => append], options);
    rows.push(ratioRow('gap open vs append+fsync', gapRun!, appendRun!, 1.8));
    rmSync(copy, { force: true });
  } else rows.push({ measure: 'gap open', value: '', against: '', ratio: '', goal: '<= 1.8x', verdict: `${primer.outcome}: ${primer.note}` });
  rows.push(limitRow('files beside the log', besideTheLog(session), 2 * MIB));
  rmSync(base, { recursive: true, force: true });
  return rows;
}

function print(rows: readonly Row[]): void {
  const all = [
    ['measure', 'value (peak RSS)', 'baseline', 'ratio', 'goal', 'verdict'],
    ...rows.map((r) => [r.measure, r.value, r.against, r.ratio, r.goal, r.verdict]),
  ];
  const widths = all[0]!.map((_, column) => Math.max(...all.map((line) => line[column]!.length)));
  for (const line of all)
    console.log(
      `  ${line
        .map((cell, column) => cell.padEnd(widths[column]!))
        .join('  ')
        .trimEnd()}`,
    );
}

const { root, cleanUp } = scratchRoot();
try {
  console.log(
    `gapflow bench, the gap dimension (issue 34): ${sizes.map(label).join(', ')} gaps not closed, ${ROUNDS} rounds; ${RUNS} interleaved runs a measure; node ${process.version}`,
  );
  let pass = 0;
  let miss = 0;
  for (const gaps of sizes) {
    const rows = await measure(gaps, root);
    print(rows);
    pass += rows.filter((r) => r.verdict === 'PASS').length;
    miss += rows.filter((r) => r.verdict !== 'PASS').length;
  }
  console.log(`\n  PASS ${pass}, not PASS ${miss}`);
} finally {
  cleanUp();
}
