import { hookStep } from '../core/index.js';
import { EVENT_INPUT, type InputLimit, LOG_FILE, readStandardInput } from '../log/index.js';
import { peekHeadIn } from '../session/head.js';
import { parseWords, type WordSpec } from './args.js';
import { readStdin, sessionDir, type CliIO, type WhereOptions } from './common.js';
import { harnessOf, hookAnswer, hookCallAt, type HookCommandCall, hookOptions, hookStop, printHookAnswer, printNext } from './loop-answers.js';

// The stored `state --json`, answered by the same short path (table.ts, stateFirst).
export { answerStateFromStore } from './state-cache.js';

const { join } = process.getBuiltinModule('node:path');

/*
 * The bin's short path for `gapflow next` and `gapflow hook claude`, which
 * an agent's loop calls on every turn: when the head checkpoint is current
 * they are answered from it with this module and the few it imports, which
 * load no zod, no statechart and no immer (their start-up was most of the
 * call's time; test/cli/lean-path.test.ts holds the bundle to that). Every
 * other case is the full command's (loop-commands.ts), which answers it
 * byte for byte as before: no head or a stale one, a stop that binds the
 * session (a write), and any mistake in the call, which the full command
 * words. The answers are the same functions either way (loop-answers.ts).
 */

/**
 * Answers `next` or `hook` (their words after the name in `argv`, parsed by
 * their entry's `spec`) from the head checkpoint; false, having written
 * nothing, when the full command must answer instead (then with the same
 * `io`: read standard input through `replayable` so the full command reads
 * what this one did).
 */
export function answerFromHead(name: 'next' | 'hook', argv: readonly string[], spec: WordSpec, io: CliIO): boolean {
  try {
    const call = parseWords(name, argv, spec);
    return name === 'next' ? nextFromHead(call.values, io) : hookFromHead(call as HookCommandCall, io);
  } catch {
    // A mistake in the call, or a folder the head cannot be read from: the full command finds it again and words it.
    return false;
  }
}

function nextFromHead(values: WhereOptions & { json?: boolean | undefined }, io: CliIO): boolean {
  const dir = sessionDir(values, io);
  const head = peekHeadIn(dir);
  if (head === null) return false;
  printNext(io, head, values.json, join(dir, LOG_FILE));
  return true;
}

function hookFromHead(call: HookCommandCall, io: CliIO): boolean {
  const options = hookOptions(call);
  const stop = hookStop(options.harness, readStdin(io, EVENT_INPUT), options, io);
  if (stop.dir === null) {
    printHookAnswer(io, harnessOf(call), () => null);
    return true;
  }
  const at = { ...stop, dir: stop.dir };
  const head = peekHeadIn(at.dir);
  if (head === null) return false;
  const { call: decided, blocks } = hookCallAt(at);
  const step = hookStep(head, decided, { blocks, maxBlocks: options.maxBlocks });
  // A binding to record is a write: the full command opens the session for it.
  if (step.record !== null) return false;
  printHookAnswer(io, harnessOf(call), () => hookAnswer({ ...at, call: decided }, step, io));
  return true;
}

/**
 * Standard input read once, by `read` (the process's when none is given):
 * each limit's text, or its error, handed out again to whoever asks next,
 * so the full command reads what the short path read before it gave way.
 */
export function replayable(read: (limit: InputLimit) => string = readStandardInput): (limit: InputLimit) => string {
  // Keyed by the limit's words, not the object: the short path is its own bundle (dist/head-answers.js), so
  // the full command that reads after it holds its own copy of each limit.
  const seen = new Map<string, { text: string } | { error: unknown }>();
  return (limit) => {
    const key = `${limit.name} ${limit.maxBytes}`;
    let outcome = seen.get(key);
    if (outcome === undefined) {
      try {
        outcome = { text: read(limit) };
      } catch (error) {
        outcome = { error };
      }
      seen.set(key, outcome);
    }
    if ('error' in outcome) throw outcome.error;
    return outcome.text;
  };
}
