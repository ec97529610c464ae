import { HEAD_ROUNDS, VIEW_SHAPE } from '../core/index.js';
import { packageVersion } from '../version.js';

/*
 * The formats a session's checkpoints are written and read under: the
 * view's shape and the version of gapflow that folded it (read from
 * package.json here, at the edge, not in the core). A checkpoint written
 * under another format is ignored, so a release never reads another
 * release's cache as its own: a fold that words a reason differently, or
 * mends a bug, shows its own figures at once.
 */

/** The whole view's checkpoint format. */
export function viewFormat(): string {
  return `${VIEW_SHAPE}/gapflow-${packageVersion() ?? 'unknown'}`;
}

/** The head checkpoint's format (`closed-2`: it names the closed gaps' index it goes with). */
export function headFormat(): string {
  return `${viewFormat()}/head-${HEAD_ROUNDS}-closed-2`;
}

/**
 * The closed gaps' index format (the index goes with heads of `headFormat`):
 * `closed-2` spreads its lines over buckets behind a table line; an index of
 * `closed-1` (the lines alone) is ignored, and rebuilt by the next write.
 */
export function closedIndexFormat(): string {
  return `${viewFormat()}/closed-2`;
}

export { stateFormat } from './state-format.js';
