/**
 * `npm run bench [-- --sizes 1k,100k,1M] [--runs N] [--timeout S]`: issue
 * 13's goals, each as a ratio against its bare baseline, measured side by
 * side in one run (baseline and subject interleaved, medians), on logs of
 * 1k, 100k and 1M events (and a 100-event log for the gap-open growth line,
 * always built). `BENCH_SIZES=1k,100k` does what `--sizes` does.
 *
 * The logs are built once per run in a temporary folder (removed at the end)
 * by bench/build-log.ts: in process, through `Session.recordAll` in batches,
 * which is the code path `gapflow append` takes, without a node start-up per
 * batch. The session (bench/workload.ts) is long and never ends: a few
 * hundred open gaps, rounds that open, move, block, reclassify and resolve
 * gaps, CONVERGING and FLAT by turns, closed gaps piling up.
 *
 * Goals (checkpoint.json, when the build writes one, is kept except for 1):
 *  1. cold replay (`openFileSession`, checkpoint.json deleted first) ≤ 2× a
 *     bare readFileSync + split + JSON.parse of every line, in process;
 *  2. `next --json` and `hook claude` ≤ 1.5× `node -e 0`;
 *  3. `state --json` ≤ 1.5× node printing the same bytes from a file;
 *  4. one `gap open` ≤ 1.5× node appending as many bytes with
 *     open('a') + write + fsync, with its growth from 100 events to the
 *     largest log;
 *  5. a 1,000-line `append` batch completes, its peak RSS ≤ 2× the view's
 *     JSON (the size of `state --json`) + a bare node's RSS (judged on the
 *     1M log, where the issue sets it; shown as info for smaller ones);
 *  6. peak RSS of every child (/usr/bin/time -f %M), baselines included.
 * A measure that passes its time limit (`--timeout`, 120 s) or fails is
 * shown as TIMEOUT or FAILED (with the child's first stderr line) and the
 * bench goes on; when a warm-up takes over 2 s, 3 runs are timed, not 13.
 */
import { cpSync, existsSync, mkdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { label, option, sizesOption } from './args.js';
import { bareAppend, median, runChild, scratchRoot, series, type Child, type Outcome, type Run, type Summary } from './measure.js';

const here = (file: string) => fileURLToPath(new URL(file, import.meta.url));
const BIN = here('../gapflow.cjs');
const BUILD = here('./build-log.js');
const COLD = here('./cold-replay.js');

// --- options -------------------------------------------------------------

const GROWTH_BASE = 100;
const sizes = sizesOption('1k,100k,1M').filter((n) => n !== GROWTH_BASE);
// 41, not 13: on this project's machine one call of a bare append took 75 to 232 ms within a minute, and the
// median of 13 interleaved calls put one gap open at 1.04x to 1.73x of it across five runs of the same code
// (the median of 40 pairs: 1.32x to 1.40x).
const RUNS = Number(option('runs') ?? 41);
const COLD_RUNS = Number(option('cold-runs') ?? 7);
const TIMEOUT_MS = Number(option('timeout') ?? 120) * 1000;
const BUILD_TIMEOUT_MS = 30 * 60 * 1000;
const SLOW_MS = 2_000;
const SLOW_RUNS = 3;
if (!(RUNS >= 1) || !(COLD_RUNS >= 1) || !(TIMEOUT_MS > 0)) throw new Error('--runs, --cold-runs and --timeout take positive numbers');

// --- formatting ----------------------------------------------------------

function ms(value: number): string {
  if (!Number.isFinite(value)) return '-';
  if (value < 10) return `${value.toFixed(2)} ms`;
  if (value < 1_000) return `${value.toFixed(0)} ms`;
  return `${(value / 1000).toFixed(2)} s`;
}

function bytes(value: number | null): string {
  if (value === null || !Number.isFinite(value)) return '-';
  if (value < 1024) return `${value} B`;
  if (value < 1024 * 1024) return `${(value / 1024).toFixed(1)} KiB`;
  return `${(value / (1024 * 1024)).toFixed(1)} MiB`;
}

const count = (n: number) => n.toLocaleString('en-US');

type Verdict = 'PASS' | 'MISS' | 'TIMEOUT' | 'FAILED' | 'n/a' | 'info';

interface Row {
  measure: string;
  subject: string;
  subjectRss: string;
  baseline: string;
  baselineRss: string;
  ratio: string;
  goal: string;
  verdict: Verdict;
  note: string;
}

/** Goal 5 is set on the 1M log (issue 13). */
const RSS_GOAL_EVENTS = 1_000_000;

/** A goal's verdict on a measured ratio; a subject that did not finish misses it by its outcome. */
function judge(outcome: Outcome, ratio: number, limit: number): Verdict {
  if (outcome !== 'ok') return outcome;
  if (!Number.isFinite(ratio)) return 'n/a';
  return ratio <= limit ? 'PASS' : 'MISS';
}

function ratioText(ratio: number): string {
  return Number.isFinite(ratio) ? `${ratio.toFixed(2)}x` : '-';
}

function printTable(rows: readonly Row[]): void {
  const head = ['measure', 'subject', 'RSS', 'baseline', 'RSS', 'ratio', 'goal', 'verdict', 'runs / note'];
  const all = [
    head,
    ...rows.map((row) => [row.measure, row.subject, row.subjectRss, row.baseline, row.baselineRss, row.ratio, row.goal, row.verdict, row.note]),
  ];
  const widths = all[0]!.map((_, column) => Math.max(...all.map((line) => line[column]!.length)));
  const right = new Set([1, 2, 3, 4, 5]);
  for (const line of all) {
    const text = line
      .map((cell, column) => (column === line.length - 1 ? cell : right.has(column) ? cell.padStart(widths[column]!) : cell.padEnd(widths[column]!)))
      .join('  ');
    console.log(`  ${text.trimEnd()}`);
  }
}

// --- the measures --------------------------------------------------------

interface Built {
  events: number;
  bytes: number;
  rounds: number;
  gaps: number;
  open: number;
  state: string;
  buildMs: number;
}

interface SizeDirs {
  root: string;
  /** The session folder: `<root>/.gapflow`, as a project's would be. */
  session: string;
  batch: string;
  scratch: string;
}

const options = (scratch: string) => ({ runs: RUNS, slowMs: SLOW_MS, slowRuns: SLOW_RUNS, timeoutMs: TIMEOUT_MS, scratch });
const gapflow = (dirs: SizeDirs, ...args: string[]): string[] => [BIN, ...args, '--dir', dirs.session];
const bareNode: Child = { args: ['-e', '0'] };

function failureNote(summary: Pick<Summary, 'outcome' | 'note' | 'runs'>): string {
  return summary.outcome === 'ok' ? `${summary.runs} runs` : summary.note;
}

function processRow(measure: string, subject: Summary, baseline: Summary, limit: number, note = ''): Row {
  const ratio = subject.ms / baseline.ms;
  const outcome = subject.outcome !== 'ok' ? subject.outcome : baseline.outcome;
  return {
    measure,
    subject: ms(subject.ms),
    subjectRss: bytes(subject.rss),
    baseline: ms(baseline.ms),
    baselineRss: bytes(baseline.rss),
    ratio: ratioText(ratio),
    goal: `<= ${limit}x`,
    verdict: judge(outcome, ratio, limit),
    note: [subject.outcome !== 'ok' ? subject.note : baseline.outcome !== 'ok' ? `baseline: ${baseline.note}` : failureNote(subject), note]
      .filter(Boolean)
      .join('; '),
  };
}

function checkpointSize(dirs: SizeDirs): number | null {
  const file = join(dirs.session, 'checkpoint.json');
  return existsSync(file) ? statSync(file).size : null;
}

async function build(events: number, dirs: SizeDirs): Promise<Built | Run> {
  mkdirSync(dirs.root, { recursive: true });
  process.stderr.write(`bench: building ${label(events)} events…\n`);
  const run = await runChild({ args: [BUILD, dirs.session, String(events), dirs.batch], keepStdout: true }, dirs.scratch, BUILD_TIMEOUT_MS);
  if (run.outcome !== 'ok') return run;
  return JSON.parse(run.stdout) as Built;
}

/** Goal 1, in a child of its own (bench/cold-replay.ts): a replay that runs out of memory fails this measure, not the bench. */
async function coldReplay(dirs: SizeDirs, events: number): Promise<Row> {
  process.stderr.write('bench:   cold replay (in process)…\n');
  const run = await runChild({ args: [COLD, dirs.session, String(COLD_RUNS)], keepStdout: true, idleLimit: true }, dirs.scratch, TIMEOUT_MS);
  const pairs = run.stdout
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as { bare: number; cold: number });
  const bare = median(pairs.map((p) => p.bare));
  const cold = median(pairs.map((p) => p.cold));
  const ratio = cold / bare;
  // Peak RSS of each alone: one more run of each, in a child of its own.
  const alone = (mode: string) => runChild({ args: [COLD, dirs.session, '1', mode] }, dirs.scratch, TIMEOUT_MS);
  const bareAlone = await alone('bare');
  const coldAlone = await alone('cold');
  const aloneNotes = [bareAlone, coldAlone].flatMap((r, i) => (r.outcome === 'ok' ? [] : [`${i === 0 ? 'bare' : 'cold'} alone ${r.outcome}: ${r.note}`]));
  const outcome: Outcome = run.outcome !== 'ok' && pairs.length === 0 ? run.outcome : 'ok';
  const verdict = judge(outcome, ratio, 2);
  const rate = Number.isFinite(cold) ? `${count(Math.round(events / (cold / 1000)))} events/s` : '';
  const partial = run.outcome !== 'ok' ? `${pairs.length} pairs, then ${run.outcome}: ${run.note}` : `${pairs.length} pairs`;
  return {
    measure: 'cold replay (openFileSession)',
    subject: ms(cold),
    subjectRss: bytes(coldAlone.rss),
    baseline: ms(bare),
    baselineRss: bytes(bareAlone.rss),
    ratio: ratioText(ratio),
    goal: '<= 2x',
    verdict,
    note: [rate, outcome === 'ok' ? partial : run.note, ...aloneNotes].filter(Boolean).join('; '),
  };
}

interface SizeReport {
  events: number;
  built: Built | null;
  rows: Row[];
  /** Goal key → verdict and ratio text, for the summary. */
  goals: Map<string, string>;
  /** Median ms of one gap open (goal 4's growth line), and of the bare append. */
  gapOpen: number;
  bareAppend: number;
}

function summaryCell(row: Row): string {
  return row.verdict === 'TIMEOUT' || row.verdict === 'FAILED' ? row.verdict : `${row.ratio} ${row.verdict}`;
}

async function measureSize(events: number, root: string): Promise<SizeReport> {
  const base = join(root, label(events));
  const dirs: SizeDirs = { root: base, session: join(base, '.gapflow'), batch: join(base, 'batch.jsonl'), scratch: root };
  const report: SizeReport = { events, built: null, rows: [], goals: new Map(), gapOpen: Number.NaN, bareAppend: Number.NaN };
  const built = await build(events, dirs);
  if ('outcome' in built) {
    console.log(`\n== ${label(events)}: the build ${built.outcome}: ${built.note}`);
    return report;
  }
  report.built = built;
  const full = events !== GROWTH_BASE;
  const add = (key: string, row: Row) => {
    report.rows.push(row);
    report.goals.set(key, summaryCell(row));
  };

  if (full) {
    add('1', await coldReplay(dirs, built.events));
  }

  // The first call of all: its output is goal 3's baseline file and the view's JSON size (goal 5); it may write checkpoint.json.
  let viewBytes: number | null = null;
  let checkpointEarly: number | null = null;
  let bareRss = Number.NaN;
  const stateFile = join(base, 'state.json');
  if (full) {
    process.stderr.write('bench:   next, hook, state…\n');
    const state = await runChild({ args: gapflow(dirs, 'state', '--json'), stdoutFile: stateFile }, dirs.scratch, TIMEOUT_MS);
    viewBytes = state.outcome === 'ok' ? statSync(stateFile).size : null;
    checkpointEarly = checkpointSize(dirs);

    const stop = JSON.stringify({ session_id: 'bench', hook_event_name: 'Stop', stop_hook_active: false, cwd: base });
    // The hook's first call binds the session to its agent (a write, once per agent session); the runs measure the calls after it.
    await runChild({ args: gapflow(dirs, 'hook', 'claude'), input: stop, quietStderr: true }, dirs.scratch, TIMEOUT_MS);
    const [bare, next, hook] = await series(
      [() => bareNode, () => ({ args: gapflow(dirs, 'next', '--json') }), () => ({ args: gapflow(dirs, 'hook', 'claude'), input: stop, quietStderr: true })],
      options(dirs.scratch),
    );
    bareRss = bare!.rss;
    add('2a', processRow('next --json', next!, bare!, 1.5, 'vs node -e 0'));
    add('2b', processRow('hook claude', hook!, bare!, 1.5, 'vs node -e 0'));

    if (state.outcome === 'ok') {
      const print: Child = { args: ['-e', "process.stdout.write(require('fs').readFileSync(process.argv[1]))", stateFile] };
      const [stateRun, printRun] = await series([() => ({ args: gapflow(dirs, 'state', '--json') }), () => print], options(dirs.scratch));
      add('3', processRow('state --json', stateRun!, printRun!, 1.5, `${bytes(viewBytes)} out, vs node printing it`));
    } else {
      add('3', { ...processRow('state --json', summarizeOne(state), summarizeOne(state), 1.5), baseline: '-', baselineRss: '-' });
    }

    // Goal 5: one batch, once, on a copy of the session folder (checkpoint included), so goal 4 sees the log as built.
    process.stderr.write('bench:   append batch…\n');
    const copy: SizeDirs = { ...dirs, session: join(base, 'batch-copy', '.gapflow') };
    cpSync(dirs.session, copy.session, { recursive: true });
    const batch = await runChild({ args: gapflow(copy, 'append', '--file', dirs.batch) }, dirs.scratch, TIMEOUT_MS);
    rmSync(join(base, 'batch-copy'), { recursive: true, force: true });
    const limit = viewBytes === null || !Number.isFinite(bareRss) ? Number.NaN : 2 * viewBytes + bareRss;
    const ratio = batch.rss === null ? Number.NaN : batch.rss / limit;
    // The issue sets this goal on the 1M log; on a smaller one a bare node's RSS is nearly all the limit, so it is shown, not judged.
    const judged = judge(batch.outcome, ratio, 1);
    const verdict: Verdict = events >= RSS_GOAL_EVENTS || (judged !== 'PASS' && judged !== 'MISS') ? judged : 'info';
    add('5', {
      measure: 'append 1,000-line batch',
      subject: batch.outcome === 'ok' ? ms(batch.ms) : '-',
      subjectRss: bytes(batch.rss),
      baseline: '',
      baselineRss: bytes(limit),
      ratio: ratioText(ratio),
      goal: 'RSS <= limit',
      verdict,
      note: batch.outcome === 'ok' ? `limit = 2 x ${bytes(viewBytes)} view + ${bytes(bareRss)} node (RSS column)` : batch.note,
    });
  }

  // Goal 4: a primer call first (it starts a round when none is open, and shows one gap.opened line's size), then interleaved.
  process.stderr.write('bench:   gap open…\n');
  const logFile = join(dirs.session, 'events.jsonl');
  const open = (id: string): Child => ({ args: gapflow(dirs, 'gap', 'open', id, '--severity', 'LOW', '--title', 't') });
  const primer = await runChild(open('P-prime'), dirs.scratch, TIMEOUT_MS);
  if (primer.outcome !== 'ok') {
    add('4', { ...processRow('gap open', summarizeOne(primer), summarizeOne(primer), 1.5), baseline: '-', baselineRss: '-' });
  } else {
    const copy = join(base, 'bare-append.jsonl');
    // The copy is 215 MiB at 1M events.
    const { child: append, lineBytes } = bareAppend(logFile, copy);
    // Fresh ids of one length, so every line is the primer's size.
    const [gapRun, appendRun] = await series([(run) => open(`P-${String(run).padStart(5, '0')}`), () => append], options(dirs.scratch));
    report.gapOpen = gapRun!.ms;
    report.bareAppend = appendRun!.ms;
    add('4', processRow('gap open', gapRun!, appendRun!, 1.5, `${lineBytes} B line, vs node append+fsync`));
    rmSync(copy, { force: true });
  }

  const checkpoint = (size: number | null) => (size === null ? 'none' : bytes(size));
  const checkpoints = full
    ? `${checkpoint(checkpointEarly)} after the first call, ${checkpoint(checkpointSize(dirs))} at the end`
    : checkpoint(checkpointSize(dirs));
  console.log(
    `\n== ${label(events)}: ${count(built.events)} events, ${bytes(built.bytes)}, ${count(built.rounds)} rounds, ${count(built.gaps)} gaps (${count(built.open)} open), ${built.state}; built in ${ms(built.buildMs)}; checkpoint.json: ${checkpoints}`,
  );
  printTable(report.rows);
  rmSync(base, { recursive: true, force: true });
  return report;
}

function summarizeOne(run: Run): Summary {
  return {
    outcome: run.outcome,
    ms: run.outcome === 'ok' ? run.ms : Number.NaN,
    rss: run.rss ?? Number.NaN,
    runs: 1,
    note: run.note,
    stdoutBytes: run.stdoutBytes,
  };
}

// --- the run -------------------------------------------------------------

const GOALS: readonly [string, string][] = [
  ['1', '1  cold replay <= 2x bare parse'],
  ['2a', '2  next --json <= 1.5x node -e 0'],
  ['2b', '2  hook claude <= 1.5x node -e 0'],
  ['3', '3  state --json <= 1.5x bare print'],
  ['4', '4  gap open <= 1.5x bare append'],
  ['5', '5  1,000-line append: RSS <= 2xview+node (judged at 1M)'],
];

/**
 * NODE_EXTRA_CA_CERTS makes every node load that file's certificates as it
 * starts (this project's machine sets it: 80 ms of a `node -e 0` that takes
 * 40 ms without it), so the goals measured against a node's start-up are
 * looser where it is set. The bench runs as it is given, and says so with
 * both figures.
 */
async function startUpNote(scratch: string): Promise<void> {
  const variable = 'NODE_EXTRA_CA_CERTS';
  if (!process.env[variable]) return;
  const [set, unset] = await series([() => bareNode, () => ({ ...bareNode, without: [variable] })], { ...options(scratch), runs: 7 });
  console.log(
    `${variable} is set: node -e 0 takes ${ms(set!.ms)} here, ${ms(unset!.ms)} without it (median of 7 each); every process goal below is measured with it set, subject and baseline alike`,
  );
}

const { root, cleanUp } = scratchRoot();
try {
  console.log(
    `gapflow bench (issue 13): ${[GROWTH_BASE, ...sizes].map(label).join(', ')} events; ${RUNS} interleaved runs a process measure (${SLOW_RUNS} when a first timed run takes over ${SLOW_MS / 1000} s), ${COLD_RUNS} pairs in process (a short log: a second's worth, up to 41); limit ${TIMEOUT_MS / 1000} s a run`,
  );
  console.log(`node ${process.version}; subject and baseline each take the median of their runs; RSS is peak RSS (/usr/bin/time -f %M)`);
  await startUpNote(root);
  const reports: SizeReport[] = [];
  for (const events of [GROWTH_BASE, ...sizes]) reports.push(await measureSize(events, root));

  console.log('\n== summary (ratio vs goal)');
  const columns = reports.map((r) => label(r.events));
  const lines = [['goal', ...columns], ...GOALS.map(([key, name]) => [name, ...reports.map((r) => r.goals.get(key) ?? '')])];
  const widths = lines[0]!.map((_, column) => Math.max(...lines.map((line) => line[column]!.length)));
  for (const line of lines)
    console.log(
      `  ${line
        .map((cell, column) => cell.padEnd(widths[column]!))
        .join('  ')
        .trimEnd()}`,
    );
  const first = reports[0]!;
  const last = reports.at(-1)!;
  if (last !== first) {
    const growth = last.gapOpen / first.gapOpen;
    const bareGrowth = last.bareAppend / first.bareAppend;
    console.log(
      `  4  gap open growth ${label(last.events)}/${label(first.events)}: ${Number.isFinite(growth) ? `${growth.toFixed(2)}x` : 'n/a'} (${ms(first.gapOpen)} -> ${ms(last.gapOpen)}); bare append: ${Number.isFinite(bareGrowth) ? `${bareGrowth.toFixed(2)}x` : 'n/a'}`,
    );
  }
  const verdicts = reports.flatMap((r) => r.rows.map((row) => row.verdict));
  const tally = (v: Verdict) => verdicts.filter((x) => x === v).length;
  console.log(`  PASS ${tally('PASS')}, MISS ${tally('MISS')}, TIMEOUT ${tally('TIMEOUT')}, FAILED ${tally('FAILED')}`);
} finally {
  cleanUp();
}
