/**
 * `npm run bench:fleet [-- --sessions 1k,5k] [--runs N] [--soak-minutes M] [--timeout S]`:
 * issue 34's fleet measures. For each size, a folder of that many sessions
 * (bench/fleet-build.ts), then:
 *  - `gapflow fleet ROOT --json` against node reading each session's head
 *    (the folders listed, each `checkpoint.head.json` read and parsed),
 *    interleaved, medians (goal 2x);
 *  - `gapflow serve ROOT`: how long until it listens, and `/api/sessions`
 *    answered (goal under 1 s);
 *  - for the largest size, serve's memory over M minutes (10 by default)
 *    while bench/fleet-churn.ts writes 20 times a second to sessions picked
 *    at random: its peak RSS in the last two minutes against the first two
 *    (goal: within 10%, flat), and `/api/sessions` answered at the end.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { label, option, sizesIn } from './args.js';
import { runChild, scratchRoot, series, type Child, type Summary } from './measure.js';

const here = (file: string) => fileURLToPath(new URL(file, import.meta.url));
const BIN = here('../gapflow.cjs');
const BUILD = here('./fleet-build.js');
const CHURN = here('./fleet-churn.js');

const sizes = sizesIn(option('sessions') ?? '1k,5k');
const RUNS = Number(option('runs') ?? 11);
const SOAK_MINUTES = Number(option('soak-minutes') ?? 10);
const TIMEOUT_MS = Number(option('timeout') ?? 120) * 1000;
if (!(RUNS >= 1) || !(SOAK_MINUTES >= 0) || !(TIMEOUT_MS > 0)) throw new Error('--runs, --soak-minutes and --timeout take positive numbers');
const MIB = 1024 * 1024;

const ms = (value: number) => (Number.isFinite(value) ? (value < 1_000 ? `${value.toFixed(0)} ms` : `${(value / 1000).toFixed(2)} s`) : '-');
const mib = (value: number) => (Number.isFinite(value) ? `${(value / MIB).toFixed(1)} MiB` : '-');

/** Node reading each session's head: the floor `gapflow fleet` is held to. */
const HEADS_SCRIPT = `
const fs = require('fs'), path = require('path');
const states = [];
for (const entry of fs.readdirSync(process.argv[1], { recursive: true })) {
  if (!entry.endsWith(path.join('.gapflow', 'checkpoint.head.json'))) continue;
  const text = fs.readFileSync(path.join(process.argv[1], entry), 'utf8');
  states.push(JSON.parse(text.slice(text.indexOf('\\n') + 1)).view.machine.state);
}
process.stdout.write(JSON.stringify(states));
`;

function verdict(ok: boolean, failed: Summary | null = null): string {
  return failed !== null ? `${failed.outcome}: ${failed.note}` : ok ? 'PASS' : 'MISS';
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** The resident set of process `pid` now, in bytes (Linux). */
function rssOf(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) * 1024 : Number.NaN;
}

/** `/api/sessions` answered: how long it took, and how many sessions it listed. */
async function askSessions(base: string): Promise<{ ms: number; sessions: number }> {
  const started = performance.now();
  const body = (await (await fetch(`${base}/api/sessions`)).json()) as { sessions: unknown[] };
  return { ms: performance.now() - started, sessions: body.sessions.length };
}

async function measure(sessions: number, root: string, soak: boolean): Promise<string[][]> {
  const base = join(root, label(sessions));
  mkdirSync(base, { recursive: true });
  process.stderr.write(`bench: building ${label(sessions)} sessions…\n`);
  const built = await runChild({ args: [BUILD, base, String(sessions)], keepStdout: true }, root, 60 * 60 * 1000);
  if (built.outcome !== 'ok') return [['build', '', '', '', `${built.outcome}: ${built.note}`]];
  const facts = JSON.parse(built.stdout) as { events: number; buildMs: number };
  console.log(`\n== ${label(sessions)} sessions: ${facts.events} events; built in ${ms(facts.buildMs)}`);
  const rows: string[][] = [];

  const options = { runs: RUNS, slowMs: 20_000, slowRuns: 3, timeoutMs: TIMEOUT_MS, scratch: root };
  const heads: Child = { args: ['-e', HEADS_SCRIPT, base] };
  const [fleet, floor] = await series([() => ({ args: [BIN, 'fleet', base, '--json'] }), () => heads], options);
  const ratio = fleet!.ms / floor!.ms;
  const failed = fleet!.outcome !== 'ok' ? fleet! : floor!.outcome !== 'ok' ? floor! : null;
  rows.push(['fleet --json vs reading each head', `${ms(fleet!.ms)} vs ${ms(floor!.ms)}`, `${ratio.toFixed(2)}x`, '<= 2x', verdict(ratio <= 2, failed)]);

  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const launched = performance.now();
  const server = spawn(process.execPath, [BIN, 'serve', base, '--port', String(port)], { stdio: ['ignore', 'pipe', 'pipe'] });
  try {
    await new Promise<void>((resolve, reject) => {
      let out = '';
      server.stdout.on('data', (chunk: Buffer) => {
        out += String(chunk);
        if (out.includes(url)) resolve();
      });
      server.on('exit', (code) => reject(new Error(`serve exited with ${code}`)));
      setTimeout(() => reject(new Error('serve did not print its URL within the time limit')), TIMEOUT_MS);
    });
    const listening = performance.now() - launched;
    const asks: { ms: number; sessions: number }[] = [];
    for (let i = 0; i < RUNS; i++) asks.push(await askSessions(url));
    const sorted = asks.map((a) => a.ms).sort((a, b) => a - b);
    const listed = asks.every((a) => a.sessions === sessions);
    rows.push(['serve: listening after', ms(listening), '', '', '']);
    rows.push([
      `serve: /api/sessions (median, max of ${RUNS})`,
      `${ms(sorted[Math.floor(sorted.length / 2)]!)}, ${ms(sorted.at(-1)!)}`,
      '',
      '< 1 s',
      listed ? verdict(sorted.at(-1)! < 1_000) : `FAILED: listed ${asks.map((a) => a.sessions).join(', ')}`,
    ]);
    if (soak && SOAK_MINUTES > 0) rows.push(...(await soakRows(base, sessions, url, server.pid!, root)));
  } catch (error) {
    rows.push(['serve', '', '', '', `FAILED: ${error instanceof Error ? error.message : String(error)}`]);
  } finally {
    server.kill('SIGKILL');
  }
  return rows;
}

/** Serve's memory while the churn writes for SOAK_MINUTES: sampled every 5 s. */
async function soakRows(base: string, sessions: number, url: string, pid: number, root: string): Promise<string[][]> {
  process.stderr.write(`bench: ${SOAK_MINUTES} minutes of changes to ${label(sessions)} sessions, serve's memory sampled…\n`);
  const seconds = SOAK_MINUTES * 60;
  const churn = runChild({ args: [CHURN, base, String(sessions), String(seconds), '20'], keepStdout: true }, root, (seconds + 120) * 1000);
  const samples: { at: number; rss: number }[] = [];
  const started = Date.now();
  while (Date.now() - started < seconds * 1000) {
    samples.push({ at: (Date.now() - started) / 1000, rss: rssOf(pid) });
    await new Promise((resolve) => setTimeout(resolve, 5_000));
  }
  const done = await churn;
  const writes = done.outcome === 'ok' ? (JSON.parse(done.stdout) as { writes: number }).writes : Number.NaN;
  const window = Math.min(120, seconds / 2);
  const peak = (from: number, to: number) => Math.max(...samples.filter((s) => s.at >= from && s.at < to).map((s) => s.rss));
  const first = peak(0, window);
  const last = peak(seconds - window, seconds + 1);
  const end = await askSessions(url);
  const growth = last / first;
  return [
    [
      `serve: peak RSS, first ${window} s vs last ${window} s (${writes} writes)`,
      `${mib(first)} -> ${mib(last)}`,
      `${growth.toFixed(2)}x`,
      '<= 1.1x',
      done.outcome === 'ok' ? verdict(growth <= 1.1) : `${done.outcome}: ${done.note}`,
    ],
    ['serve: /api/sessions after the changes', ms(end.ms), '', '< 1 s', end.sessions === sessions ? verdict(end.ms < 1_000) : `FAILED: listed ${end.sessions}`],
  ];
}

function print(rows: readonly string[][]): void {
  const all = [['measure', 'value', 'ratio', 'goal', 'verdict'], ...rows];
  const widths = all[0]!.map((_, column) => Math.max(...all.map((line) => (line[column] ?? '').length)));
  for (const line of all)
    console.log(
      `  ${line
        .map((cell, column) => (cell ?? '').padEnd(widths[column]!))
        .join('  ')
        .trimEnd()}`,
    );
}

const { root, cleanUp } = scratchRoot();
try {
  console.log(`gapflow bench, the fleet (issue 34): ${sizes.map(label).join(', ')} sessions; ${RUNS} runs a measure; node ${process.version}`);
  let pass = 0;
  let miss = 0;
  for (const sessions of sizes) {
    const rows = await measure(sessions, root, sessions === sizes.at(-1));
    print(rows);
    pass += rows.filter((r) => r[4] === 'PASS').length;
    miss += rows.filter((r) => r[4] !== 'PASS' && r[4] !== '').length;
  }
  console.log(`\n  PASS ${pass}, not PASS ${miss}`);
} finally {
  cleanUp();
}
