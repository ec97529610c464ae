import { spawnSync } from 'node:child_process';
import * as z from 'zod';
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
const [command, ms] = process.argv.slice(1);
const start = performance.now();
let timedOut = false;
const done = (exitCode) => process.stdout.write(JSON.stringify({ exitCode, durationMs: Math.round(performance.now() - start), timedOut }));
const child = spawn('/bin/sh', ['-c', command], { detached: true, stdio: 'ignore' });
const timer = setTimeout(() => {
  timedOut = true;
  try { process.kill(-child.pid, 'SIGKILL'); } catch {}
}, Number(ms));
child.on('error', () => { clearTimeout(timer); done(null); });
child.on('exit', (code) => { clearTimeout(timer); done(timedOut ? null : code); });
`;

const RunnerOutcome = z.strictObject({ exitCode: z.int().nullable(), durationMs: z.number().min(0), timedOut: z.boolean() });

/** Runs the command a policy's `recordCommand` flag carries, once, here at the edge; the metrics keep what it did, so replay never runs it. */
export function runRecordCommand(flag: string, command: string, timeoutSeconds: number, io: CliIO): CommandRun {
  const timeoutMs = Math.ceil(timeoutSeconds * 1000);
  // The outer limit only guards against the runner itself hanging; the runner enforces the timeout.
  const result = spawnSync(process.execPath, ['-e', RUNNER_SCRIPT, command, String(timeoutMs)], {
    cwd: io.cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
    timeout: timeoutMs + 30_000,
    killSignal: 'SIGKILL',
  });
  const parsed = RunnerOutcome.safeParse(safeJson(result.stdout));
  if (!parsed.success) throw new Refusal(`--${flag}: could not run ${JSON.stringify(command.slice(0, 80))} (${result.error?.message ?? 'the runner gave no result'})`);
  return { command, ...parsed.data };
}

function safeJson(text: string | null): unknown {
  try {
    return JSON.parse(text ?? '');
  } catch {
    return undefined;
  }
}
