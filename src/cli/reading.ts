import type { CliIO } from './common.js';

/*
 * The calls that only read a session: they may read a session folder that
 * someone else owns or may write (session-dir.ts, ownFolder), since nothing
 * from it runs and nothing is written there. Every other call, the stop hook
 * included (it tells an agent what to do), uses only the user's own folders.
 */
const READING = new Set([
  'state',
  'prompt',
  'summary',
  'replay',
  'viz',
  'next',
  'verify',
  'export',
  'check',
  'backtest',
  'fleet',
  'trust',
  'watch',
  'inspect',
  'serve',
]);

/** `io` for the call `name rest`, marked when the call only reads (`status` without `--write` too). */
export function callIo<T extends CliIO>(name: string | undefined, rest: readonly string[], io: T): T {
  const reading = name !== undefined && (READING.has(name) || (name === 'status' && !rest.some((word) => word === '--write' || word.startsWith('--write='))));
  return reading ? { ...io, reading } : io;
}
