/**
 * Timing child processes side by side: each run is a fresh node process
 * under `/usr/bin/time -f %M -o FILE` (its peak RSS in KiB, written to a
 * file so the child's own stderr stays its own), timed by this process's
 * clock from spawn to the close of its pipes. Subjects and their baselines
 * run interleaved (A, B, A, B…), so a busy machine slows both alike, and
 * each gets the median of its runs.
 *
 * A run that passes its time limit is killed with its whole process group
 * (the wrapper and node under it) and recorded as TIMEOUT; one that exits
 * non-zero (or, for the hook, which always exits 0, says something on
 * stderr) as FAILED with its stderr's first line. Either way the bench goes
 * on with the next measure.
 */
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, openSync, closeSync } from 'node:fs';
import { settleWrites } from './args.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const TIME = '/usr/bin/time';
const HAS_TIME = existsSync(TIME);

export interface Child {
  /** Arguments to node (the script or `-e`, then its own). */
  args: string[];
  /** Text for its standard input; none: stdin is closed. */
  input?: string;
  /** Where its stdout goes: a file path (written, not timed apart), else a pipe this process drains. */
  stdoutFile?: string;
  /** A non-empty stderr counts as a failure (the hook exits 0 whatever happens). */
  quietStderr?: boolean;
  /** Keep what it prints (a child that reports in JSON lines); else stdout is only counted. */
  keepStdout?: boolean;
  /** The time limit restarts whenever it prints: a limit on each of its steps, not on the whole. */
  idleLimit?: boolean;
  cwd?: string;
  /** Variables of this process's environment the child runs without. */
  without?: readonly string[];
}

export type Outcome = 'ok' | 'TIMEOUT' | 'FAILED';

export interface Run {
  outcome: Outcome;
  ms: number;
  /** Peak RSS in bytes, when /usr/bin/time reported it. */
  rss: number | null;
  stdoutBytes: number;
  /** What it printed, with `keepStdout`; else empty. */
  stdout: string;
  /** The first line of stderr (for a failure), or the reason it failed. */
  note: string;
}

let serial = 0;
/** The process groups of the children still running, so an interrupted bench leaves none behind (they are detached: Ctrl-C does not reach them). */
const running = new Set<number>();

export function killRunning(): void {
  for (const group of running) {
    try {
      process.kill(-group, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}

/** One child, to the end or to `timeoutMs`. */
export function runChild(child: Child, scratch: string, timeoutMs: number): Promise<Run> {
  const rssFile = join(scratch, `rss-${process.pid}-${serial++}.txt`);
  const node = [process.execPath, ...child.args];
  const [command, ...args] = HAS_TIME ? [TIME, '-f', '%M', '-o', rssFile, ...node] : node;
  const out = child.stdoutFile === undefined ? 'pipe' : openSync(child.stdoutFile, 'w');
  // Nothing of the caller's own loop may leak into the children, nor what the child is to run without.
  const dropped = new Set(['GAPFLOW_DIR', 'CLAUDE_PROJECT_DIR', ...(child.without ?? [])]);
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !dropped.has(name)));
  return new Promise((resolve) => {
    const start = performance.now();
    const proc = spawn(command!, args, {
      stdio: [child.input === undefined ? 'ignore' : 'pipe', out, 'pipe'],
      detached: true,
      cwd: child.cwd,
      env,
    });
    if (proc.pid !== undefined) running.add(proc.pid);
    let stdoutBytes = 0;
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    proc.stdout?.on('data', (chunk: Buffer) => {
      stdoutBytes += chunk.length;
      if (child.keepStdout) stdout += chunk.toString('utf8');
      if (child.idleLimit) timer.refresh();
    });
    proc.stderr?.on('data', (chunk: Buffer) => {
      if (stderr.length < 4096) stderr += chunk.toString('utf8');
    });
    if (child.input !== undefined) {
      proc.stdin?.on('error', () => undefined); // a child that dies before reading
      proc.stdin?.end(child.input);
    }
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        process.kill(-proc.pid!, 'SIGKILL');
      } catch {
        // already gone
      }
    }, timeoutMs);
    const finish = (code: number | null, signal: string | null, spawnError?: Error) => {
      const ms = performance.now() - start;
      clearTimeout(timer);
      if (proc.pid !== undefined) running.delete(proc.pid);
      if (typeof out === 'number') closeSync(out);
      const rss = readRss(rssFile);
      const first =
        stderr
          .split('\n')
          .find((line) => line.trim() !== '')
          ?.trim() ?? '';
      let outcome: Outcome = 'ok';
      let note = '';
      if (timedOut) {
        outcome = 'TIMEOUT';
        note = `killed after ${timeoutMs / 1000} s`;
      } else if (spawnError) {
        outcome = 'FAILED';
        note = spawnError.message;
      } else if (code !== 0 || signal !== null) {
        outcome = 'FAILED';
        note = `exit ${code ?? signal}${first ? `: ${first}` : ''}`;
      } else if (child.quietStderr && first !== '') {
        outcome = 'FAILED';
        note = `stderr: ${first}`;
      }
      resolve({ outcome, ms, rss, stdoutBytes, stdout, note: note.slice(0, 160) });
    };
    proc.on('error', (error) => finish(null, null, error));
    proc.on('close', (code, signal) => finish(code, signal));
  });
}

/** /usr/bin/time's last line is %M; before it, "Command exited with non-zero status N" or "Command terminated by signal N". */
function readRss(file: string): number | null {
  if (!existsSync(file)) return null;
  const lines = readFileSync(file, 'utf8').trim().split('\n');
  rmSync(file, { force: true });
  const kib = Number(lines.at(-1));
  return Number.isFinite(kib) && kib > 0 ? kib * 1024 : null;
}

/** What a series of runs of one child came to. */
export interface Summary {
  outcome: Outcome;
  /** Median of the timed runs (ms); NaN when none finished. */
  ms: number;
  /** Median peak RSS (bytes) of the timed runs; NaN when unknown. */
  rss: number;
  runs: number;
  note: string;
  stdoutBytes: number;
}

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export function summarize(runs: readonly Run[]): Summary {
  const good = runs.filter((run) => run.outcome === 'ok');
  const bad = runs.find((run) => run.outcome !== 'ok');
  return {
    outcome: bad?.outcome ?? 'ok',
    ms: median(good.map((run) => run.ms)),
    rss: median(good.flatMap((run) => (run.rss === null ? [] : [run.rss]))),
    runs: good.length,
    note: bad?.note ?? '',
    stdoutBytes: good.at(-1)?.stdoutBytes ?? 0,
  };
}

export interface SeriesOptions {
  /** Timed runs of each child when they are quick. */
  runs: number;
  /** A warm-up slower than this (ms) means few runs… */
  slowMs: number;
  /** …this many. */
  slowRuns: number;
  timeoutMs: number;
  scratch: string;
  /** Called before each run of each child, outside the timing (a fresh gap id, say); `run` 0 is the warm-up. */
  before?: (index: number, run: number) => void;
}

/**
 * Runs `children` round-robin: one untimed warm-up each, then `runs` timed
 * rounds (or `slowRuns`, when any run of the first timed round took over `slowMs`). A child that
 * times out or fails is run no more; its summary says why.
 */
export async function series(children: readonly ((run: number) => Child)[], options: SeriesOptions): Promise<Summary[]> {
  const runs: Run[][] = children.map(() => []);
  const dead: (Run | null)[] = children.map(() => null);
  let rounds = options.runs;
  for (let round = 0; round <= rounds; round++) {
    for (let i = 0; i < children.length; i++) {
      if (dead[i]) continue;
      options.before?.(i, round);
      const run = await runChild(children[i]!(round), options.scratch, options.timeoutMs);
      if (run.outcome !== 'ok') dead[i] = run;
      else if (round > 0) runs[i]!.push(run);
      // Judged on the first timed round, not the warm-up: a warm-up can do what the calls after it need not
      // (`state --json`'s stores its output: 2-3 s at 1M, where the calls after it take 0.3-0.5 s).
      if (round === 1 && run.ms > options.slowMs) rounds = Math.min(rounds, options.slowRuns);
    }
    if (dead.every((d) => d !== null)) break;
  }
  return children.map((_, i) => {
    const summary = summarize(runs[i]!);
    const failure = dead[i];
    return failure ? { ...summary, outcome: failure.outcome, note: failure.note } : summary;
  });
}

/**
 * A temporary folder for a bench run, removed by `cleanUp` and when the run
 * is interrupted (its children killed first, so none is left writing there).
 */
export function scratchRoot(): { root: string; cleanUp: () => void } {
  const root = mkdtempSync(join(tmpdir(), 'gapflow-bench-'));
  const cleanUp = () => rmSync(root, { recursive: true, force: true });
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      killRunning();
      cleanUp();
      process.exit(130);
    });
  }
  return { root, cleanUp };
}

/**
 * The baseline a gap write is held to: node appending a line as long as the
 * log's last one to a copy of the log, with fsync. The copy is made next to
 * `copyTo` and flushed before the series, outside the timing (its dirty
 * pages, and those of the checkpoints written before, would otherwise land
 * on whichever call fsyncs first).
 */
export function bareAppend(logFile: string, copyTo: string): { child: Child; lineBytes: number } {
  const lines = readFileSync(logFile, 'utf8').trimEnd().split('\n');
  const lineBytes = Buffer.byteLength(lines.at(-1)!, 'utf8') + 1;
  copyFileSync(logFile, copyTo);
  settleWrites(copyTo);
  const script =
    "const fs=require('fs');const fd=fs.openSync(process.argv[1],'a');fs.writeSync(fd,'x'.repeat(+process.argv[2]-1)+'\\n');fs.fsyncSync(fd);fs.closeSync(fd)";
  return { child: { args: ['-e', script, copyTo, String(lineBytes)] }, lineBytes };
}
