import * as z from 'zod/mini';
import { Refusal } from '../core/index.js';
import type { CommandRun } from '../policies/index.js';
import type { CliIO } from './common.js';

/**
 * Runs in a child node: starts the command in a process group of its own
 * and, on timeout, kills the whole group, so no grandchild outlives it.
 * Prints {exitCode, durationMs, timedOut} as JSON.
 */
const RUNNER_SCRIPT = `
const { spawn } = require('node:child_process');
const [command, ms, keep] = process.argv.slice(1);
const keepBytes = Number(keep);
const start = performance.now();
let timedOut = false;
let finished = false;
let tail = [];
let kept = 0;
const hold = (chunk) => {
  tail.push(chunk);
  kept += chunk.length;
  while (tail.length > 1 && kept - tail[0].length >= keepBytes) kept -= tail.shift().length;
};
const done = (exitCode) => {
  if (finished) return;
  finished = true;
  const output = keepBytes > 0 ? Buffer.concat(tail).subarray(-keepBytes).toString('utf8') : '';
  process.stdout.write(JSON.stringify({ exitCode, durationMs: Math.round(performance.now() - start), timedOut, output }));
  process.exit(0);
};
const child = spawn('/bin/sh', ['-c', command], { detached: true, stdio: ['ignore', keepBytes > 0 ? 'pipe' : 'ignore', keepBytes > 0 ? 'pipe' : 'ignore'] });
if (keepBytes > 0) {
  child.stdout.on('data', hold);
  child.stderr.on('data', hold);
}
const timer = setTimeout(() => {
  timedOut = true;
  try { process.kill(-child.pid, 'SIGKILL'); } catch {}
}, Number(ms));
child.on('error', () => { clearTimeout(timer); done(null); });
child.on('exit', (code) => {
  clearTimeout(timer);
  const exitCode = timedOut ? null : code;
  // The last output may still be on its way; a grandchild that holds the pipes open is not waited for long.
  child.on('close', () => done(exitCode));
  setTimeout(() => done(exitCode), 200);
});
`;

const RunnerOutcome = z.strictObject({ exitCode: z.nullable(z.int()), durationMs: z.number().check(z.minimum(0)), timedOut: z.boolean(), output: z.string() });

/** Runs the command a policy's `recordCommand` flag carries, once, here at the edge; the metrics keep what it did, so replay never runs it. */
export function runRecordCommand(flag: string, command: string, timeoutSeconds: number, io: CliIO): CommandRun {
  const { output: _output, ...run } = runCommand(`--${flag}`, command, timeoutSeconds, 0, io);
  return run;
}

/**
 * Runs `command` once through /bin/sh in `io.cwd`, killing its whole process
 * group at the time limit; `keepBytes`: how much of the end of what it
 * printed (stdout and stderr, as they came) to keep, raw. `what` names it in
 * the refusal when it cannot be run at all.
 */
export function runCommand(what: string, command: string, timeoutSeconds: number, keepBytes: number, io: CliIO): CommandRun & { output: string } {
  const timeoutMs = Math.ceil(timeoutSeconds * 1000);
  // The outer limit only guards against the runner itself hanging; the runner enforces the timeout.
  // Taken when a check runs: node:child_process brings sockets with it, which a call that runs none should not load.
  const { spawnSync } = process.getBuiltinModule('node:child_process');
  const result = spawnSync(process.execPath, ['-e', RUNNER_SCRIPT, command, String(timeoutMs), String(keepBytes)], {
    cwd: io.cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
    timeout: timeoutMs + 30_000,
    killSignal: 'SIGKILL',
  });
  const parsed = RunnerOutcome.safeParse(safeJson(result.stdout));
  if (!parsed.success)
    throw new Refusal(`${what}: could not run ${JSON.stringify(command.slice(0, 80))} (${result.error?.message ?? 'the runner gave no result'})`);
  return { command, ...parsed.data };
}

function safeJson(text: string | null): unknown {
  try {
    return JSON.parse(text ?? '');
  } catch {
    return undefined;
  }
}
