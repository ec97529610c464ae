import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { BIN } from './children.js';
import type { CliResult } from './helpers.js';

/*
 * The built bin run as a user runs it, one process a call, optionally on a
 * disk that fails where the test says (test/fault-fs.mjs, loaded before the
 * bin with `node --import`).
 */

export const FAULT_FS = fileURLToPath(new URL('../fault-fs.mjs', import.meta.url));

/** What test/fault-fs.mjs makes fail (see its header). */
export interface Faults {
  log?: string;
  fsync?: boolean;
  ftruncate?: boolean;
  under?: string;
  spaceLeft?: number;
  trace?: string;
}

/** `gapflow <argv>` in a process of its own, from `cwd`; with `faults`, on a disk that fails so. */
export function bin(argv: readonly string[], cwd: string, faults?: Faults): CliResult {
  const preload = faults === undefined ? [] : ['--import', FAULT_FS];
  const env = { ...process.env, ...(faults === undefined ? {} : { GAPFLOW_FAULTS: JSON.stringify(faults) }) };
  const child = spawnSync(process.execPath, [...preload, BIN, ...argv], { cwd, env, input: '', encoding: 'utf8', timeout: 60_000 });
  if (child.error) throw child.error;
  return { code: child.status ?? -1, stdout: child.stdout, stderr: child.stderr };
}

/** The lines of a stream's text (none for an empty one). */
export function linesOf(text: string): string[] {
  return text === '' ? [] : text.replace(/\n$/, '').split('\n');
}
