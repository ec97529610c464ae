import { binMain, WRITE_ENTRIES } from './entries.js';

/*
 * The write bundle's entry (`dist/session-commands.cjs`): the write
 * commands with their dispatch, and the bin's run of a write call, which
 * the bin (launch.ts) calls once it has loaded the bundle.
 */

export * from './session-commands.js';

/** A write call of the bin, as the process, read by the write commands' entries alone. */
export function runWrites(argv: string[]): Promise<never> {
  return binMain(argv, WRITE_ENTRIES);
}
