import { spawn, spawnSync, type StdioOptions } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/*
 * The built bin run in a child process, watched: killed if it outlives its
 * time or its memory passes RSS_KILL_BYTES, so a call that would hang or
 * grow without end fails a test instead of taking the machine down. Shared
 * by the tests of what gapflow reads (bounded-input, side-files).
 */

const bin = fileURLToPath(new URL('../../dist/gapflow.cjs', import.meta.url));
const WATCH_MS = 20_000;
const RSS_KILL_BYTES = 1024 * 1024 * 1024;

export interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** Peak resident memory of the run, as the process itself saw it. */
  maxRssBytes: number | null;
  killedBecause: string | null;
  ms: number;
}

/**
 * Runs the built bin in a child node that reports its own peak memory
 * (process.resourceUsage) into `rssFile` as it exits; `stdin` is text to
 * feed (written without waiting for the child to take it) or a descriptor.
 * Killed after `watchMs`.
 */
export function gapflow(argv: string[], cwd: string, stdin: string | number = '', watchMs = WATCH_MS): Promise<Run> {
  const rssFile = join(cwd, `rss-${process.hrtime.bigint()}.txt`);
  const wrapper = `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(rssFile)}, String(process.resourceUsage().maxRSS * 1024)));
process.argv = [process.argv[0], ${JSON.stringify(bin)}, ...process.argv.slice(1)];
import(${JSON.stringify(`file://${bin}`)});`;
  const stdio: StdioOptions = [typeof stdin === 'number' ? stdin : 'pipe', 'pipe', 'pipe'];
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', wrapper, ...argv], { cwd, stdio });
    let stdout = '';
    let stderr = '';
    let killedBecause: string | null = null;
    child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    if (typeof stdin === 'string') {
      // A child that stops reading (it refused) closes the pipe: that is expected, not an error here.
      child.stdin!.on('error', () => undefined);
      child.stdin!.end(stdin);
    }
    const kill = (why: string) => {
      killedBecause ??= why;
      child.kill('SIGKILL');
    };
    const timer = setTimeout(() => kill(`still running after ${watchMs} ms`), watchMs);
    const watch = setInterval(() => {
      const rss = rssOf(child.pid);
      if (rss !== null && rss > RSS_KILL_BYTES) kill(`resident memory passed ${RSS_KILL_BYTES} bytes`);
    }, 50);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      clearInterval(watch);
      const maxRssBytes = existsSync(rssFile) ? Number(readFileSync(rssFile, 'utf8')) : null;
      rmSync(rssFile, { force: true });
      resolve({ code, signal, stdout, stderr, maxRssBytes, killedBecause, ms: Date.now() - started });
    });
  });
}

/** A running process's resident memory from /proc (Linux), or null where there is none. */
function rssOf(pid: number | undefined): number | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = /^VmRSS:\s+(\d+) kB$/m.exec(status);
    return kb ? Number(kb[1]) * 1024 : null;
  } catch {
    return null;
  }
}

export function mkfifo(path: string): void {
  const made = spawnSync('mkfifo', [path]);
  if (made.status !== 0) throw new Error(`mkfifo ${path}: ${made.stderr.toString('utf8')}`);
}
