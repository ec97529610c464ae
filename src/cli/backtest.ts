import { backtestSession, Refusal, variantGrid } from '../core/index.js';
import { inspectLog, LogError, sessionDirsIn } from '../log/index.js';
import { backtestLines, type NamedBacktest } from '../render/index.js';
import { shownValue } from '../../events/index.js';
import { type ParsedCall, UsageError } from './args.js';
import { gridVariants, MAX_GRID, namesOf, setVariant } from './backtest-settings.js';
import { printJson, sessionDir, type CliIO, type WhereOptions, command } from './common.js';
import type { BACKTEST_FLAGS } from './table.js';

const { relative, resolve } = process.getBuiltinModule('node:path');

/**
 * `gapflow backtest [DIR...] [--set NAME=V ...] [--grid NAME=A..B ...]`:
 * each recorded session replayed under other settings, against what it
 * did. Reads the logs and nothing else: no lock, no checkpoint, no
 * status.md.
 */
export const backtest = command<ParsedCall<typeof BACKTEST_FLAGS>>(({ values, args }, io) => {
  const sets = values.set ?? [];
  const grids = values.grid ?? [];
  refuseRepeats([...namesOf(sets), ...namesOf(grids)]);
  const fixed = sets.map(setVariant);
  const axes = grids.map(gridVariants);
  const count = axes.reduce((n, axis) => n * axis.length, 1);
  if (count > MAX_GRID) throw new Refusal(`the grids make ${count} settings to replay; at most ${MAX_GRID} together`);
  const variants = variantGrid(fixed, axes);
  if (args.length > 0 && values.dir !== undefined) throw new UsageError('name the sessions as DIR arguments or with --dir, not both');
  const sessions = sessionsNamed(args, values, io).map((dir): NamedBacktest & { dir: string } => ({
    session: relative(io.cwd, dir) || '.',
    dir,
    ...backtestSession(eventsIn(dir), variants),
  }));
  if (values.json) return printJson(io, { settings: variants.map((v) => v.label), sessions });
  io.stdout(backtestLines(sessions));
});

function refuseRepeats(names: readonly string[]): void {
  const twice = names.find((name, i) => names.indexOf(name) !== i);
  if (twice !== undefined) throw new Refusal(`${shownValue(twice)} is given twice (--set and --grid together); give each setting once`);
}

/** Every session the DIRs name (each a session folder or one holding them), once each; with none, the current session. */
function sessionsNamed(args: readonly string[], where: WhereOptions, io: CliIO): string[] {
  if (args.length === 0) return [sessionDir(where, io)];
  const found = args.flatMap((arg) => {
    const dirs = sessionDirsIn(resolve(io.cwd, arg));
    if (dirs.length === 0)
      throw new Refusal(`${shownValue(arg)}: no session there (no events.jsonl in it, in its .gapflow, or in a folder directly inside it)`);
    return dirs;
  });
  return [...new Set(found)];
}

/** A session's recorded events, read without locking or writing; a damaged log is named, not replayed in part. */
function eventsIn(dir: string) {
  const inspection = inspectLog(dir);
  if (inspection.message !== null) throw new LogError(`${inspection.message} (\`gapflow verify\` says more; a backtest replays whole logs only)`);
  if (inspection.events.length === 0) throw new Refusal(`${dir}: the log holds no event`);
  return inspection.events;
}
