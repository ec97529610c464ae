import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { fileSizeOf, LOG_FILE, readSessionConfig, writeDecisionsFile, writeStatusFile, writesHere } from '../log/index.js';
import { renderDecisions, renderStatus, statusNotRewrittenLine } from '../render/index.js';
import { openFileSession } from '../session/index.js';
import type { CliIO } from './common.js';
import { databaseSession, newSessionDir, sessionDir, type WhereOptions } from './session-dir.js';

/**
 * The commands that record events in the session `--dir` names (the stop
 * hook records only a binding, which status.md does not show, in a session
 * its input names).
 */
const RECORDERS: ReadonlySet<string> = new Set(['init', 'gap', 'round', 'decide', 'append', 'record']);

/** How many times status.md is rendered again when other writers moved the log on meanwhile. */
const ATTEMPTS = 3;

function logSize(dir: string): number {
  return fileSizeOf(join(dir, LOG_FILE));
}

/** The `--dir`, `--store` and `--session` of a call that its own command parsed without fault (so each is the option). */
function whereOptions(argv: readonly string[]): WhereOptions {
  const { values } = parseArgs({
    args: [...argv],
    options: { dir: { type: 'string' }, store: { type: 'string' }, session: { type: 'string' } },
    strict: false,
    allowPositionals: true,
  });
  const text = (value: unknown) => (typeof value === 'string' ? value : undefined);
  return { dir: text(values.dir), store: text(values.store), session: text(values.session) };
}

/**
 * For a recording command (`name`, with its words `argv`): a step to run
 * once it has ended, which rewrites status.md when the session asks for it
 * (`init --write-status`) and the call itself wrote to the log (another
 * writer's append beside it is not this call's to show); null for any other
 * command. A call that failed wrote nothing, and its status.md is left alone;
 * the one exception is a refusal that recorded its verification check's
 * failing run, which status.md shows. Whatever stops the rewrite after a
 * call that succeeded is one line on stderr: the event is recorded, so the
 * call still succeeds (running it again would record it twice); after a
 * refusal, the refusal is the call's one line.
 */
export function statusAfterWrite(name: string, argv: readonly string[], io: CliIO): ((failed: boolean) => void) | null {
  if (!RECORDERS.has(name)) return null;
  let dir: string;
  try {
    // `init` makes its session where it is asked to, not in the nearest one above.
    const where = whereOptions(argv);
    // A database session keeps no folder to rewrite status.md in (init refuses --write-status for one).
    if (databaseSession(where, io) !== null) return null;
    dir = (name === 'init' ? newSessionDir : sessionDir)(where, io);
  } catch {
    return null; // the command words the bad --dir itself
  }
  const log = join(dir, LOG_FILE);
  const before = writesHere(log);
  return (failed) => {
    try {
      if (writesHere(log) === before || !readSessionConfig(dir).writeStatus) return;
      rewriteStatus(dir);
    } catch (error) {
      if (!failed) io.stderr(statusNotRewrittenLine(error instanceof Error ? error.message : String(error)));
    }
  };
}

/**
 * Renders status.md (and decisions.md beside it) from the log as it is and puts each in place whole (temp
 * + rename). Writers that finish together each rename their own; whichever
 * renames last then finds the log longer than what it rendered, if another
 * appended meanwhile, and renders again, so the file left ends up current.
 */
function rewriteStatus(dir: string): void {
  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
    const size = logSize(dir);
    const { view } = openFileSession(dir);
    writeStatusFile(dir, renderStatus(view));
    writeDecisionsFile(dir, renderDecisions(view));
    if (logSize(dir) === size) return;
  }
}
