// eslint-disable-next-line no-restricted-imports -- past the door on purpose: src/log/index.ts loads the schema (zod), which this quick path must not
import { readStateCache } from '../log/state-cache.js';
import { stateFormat } from '../session/state-format.js';
import { type CliIO, sessionDir } from './common.js';

/*
 * `gapflow state --json` from its stored output (FileCheckpoints.saveState
 * writes it after rendering): when it covers the log's last line, its bytes
 * go to stdout as they are, not parsed, not rebuilt. This module loads no
 * schema, machine or immer, so the bin tries it before it loads the command.
 */

/** Prints `bytes` as they are. */
export function printBytes(io: Pick<CliIO, 'stdout' | 'stdoutBytes'>, bytes: Buffer): void {
  if (io.stdoutBytes) io.stdoutBytes(bytes);
  else io.stdout(bytes.toString('utf8'));
}

/** Prints the stored `state --json` output of the session in `dir` when it is current; returns whether it did. */
export function printStoredState(dir: string, io: Pick<CliIO, 'stdout' | 'stdoutBytes'>): boolean {
  const bytes = readStateCache(dir, stateFormat());
  if (bytes === null) return false;
  printBytes(io, bytes);
  return true;
}

/**
 * The bin's quick `state --json`: when the call's words after `state` are
 * `--json` with at most a `--dir` (the global options, nothing else), and
 * the stored output is current, prints it and returns true. Anything else
 * (another option, a word the command would refuse, no stored output)
 * returns false and prints nothing: the command answers it.
 */
export function answerStateFromStore(words: readonly string[], io: Pick<CliIO, 'stdout' | 'stdoutBytes' | 'cwd' | 'env'>): boolean {
  let json = false;
  let dir: string | undefined;
  for (let i = 0; i < words.length; i++) {
    const word = words[i]!;
    if (word === '--json') json = true;
    else if (word.startsWith('--dir=')) dir = word.slice('--dir='.length);
    else if (word === '--dir' && i + 1 < words.length && !words[i + 1]!.startsWith('-')) dir = words[++i];
    else return false;
  }
  if (!json) return false;
  let folder: string;
  try {
    folder = sessionDir({ dir }, io);
  } catch {
    return false; // the command words the usage error
  }
  return printStoredState(folder, io);
}
