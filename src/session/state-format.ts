import { packageVersion } from '../log/index.js';

/**
 * The shape of what `gapflow state --json` prints (toStateJson, laid out
 * by `printJson`). The stored output is keyed by it and by gapflow's
 * version, so a change to what state --json prints, within a version,
 * bumps it.
 */
export const STATE_JSON_SHAPE = 'state-json-4';

/**
 * The format the stored `state --json` output is written and read under:
 * its shape and the version of gapflow that rendered it (as for the
 * checkpoints, src/session/state.ts (viewFormat), another release's output is not
 * printed as this one's). Imports no more than the version: the bin reads
 * it without loading the session.
 */
export function stateFormat(): string {
  return `${STATE_JSON_SHAPE}/gapflow-${packageVersion() ?? 'unknown'}`;
}
