import type { CliIO, Command } from './common.js';
import { commandLoader } from './commands.js';
import { asksForHelp, asksForJson, hoistGlobalOptions, namesStore } from './hoist.js';
import { UsageError } from './usage-error.js';
import { callIo } from './reading.js';

/**
 * The bin's entry point. It answers `--version` itself and loads only what
 * the call asks for: the help text, or the one command named together with
 * the error reporting every command shares; everything else stays unloaded.
 * `inspect`, `watch` and `serve` follow the log until `stop()` settles (the bin
 * wires it to SIGINT and SIGTERM); every other call runs as `run` would run it, standard input
 * being the process's unless `io` hands one over. `next` and `hook claude`
 * are first offered to the short path from the head checkpoint
 * (head-answers.ts), which loads no schema, statechart or immer; the full
 * command answers whatever it leaves. A usage error with a Claude Code
 * hook's input on standard input is answered as that hook's (hook-guard.ts).
 */
export async function runBin(argv: string[], io: CliIO, stop: () => Promise<unknown>): Promise<number> {
  const [name, ...rest] = hoistGlobalOptions(argv);
  const wantsHelp = asksForHelp(rest);
  // The short paths below read a session folder's files; a call naming a store goes straight to its command.
  // (The hook works on folders whatever $GAPFLOW_STORE says: see hookSessionDir.)
  const short = !wantsHelp && !namesStore(rest, name === 'hook' ? {} : io.env);
  if (name === '--version') {
    io.stdout(`${io.version?.() ?? 'unknown'}\n`);
    return 0;
  }
  if (name === '--help' || name === '-h' || name === 'help') {
    io.stdout((await import('./help.js')).HELP);
    return 0;
  }
  if ((name === 'inspect' || name === 'watch' || name === 'serve') && !wantsHelp) {
    const [follow, { failure, readStandardInput, usageFailure }] = await Promise.all([staysUp(name), import('./dispatch.js')]);
    try {
      // Ctrl-C is how these end: a clean stop, exit 0.
      await follow(rest, callIo(name, rest, { ...io, stdin: (limit) => readStandardInput(limit) }), stop());
      return 0;
    } catch (error) {
      // A mistyped follow under a hook's input is a misconfigured hook's, as for any other command.
      if (error instanceof UsageError) return usageFailure(error, argv, io, await hookInput(io, io.stdin));
      return failure(error, io, asksForJson(argv));
    }
  }
  // `state --json` prints its stored output, when current, before anything else loads (src/cli/state-cache.ts).
  if (name === 'state' && short && (await import('./state-cache.js')).answerStateFromStore(rest, callIo(name, rest, io))) return 0;
  let stdin = io.stdin;
  if ((name === 'next' || name === 'hook') && short) {
    const { answerFromHead, replayable } = await import('./head-answers.js');
    stdin = replayable(stdin);
    if (answerFromHead(name, rest, callIo(name, rest, { ...io, stdin }))) return 0;
  }
  const load = name === undefined ? undefined : commandLoader(name);
  const [{ attempt, usageFailure, readStandardInput }, command, help] = await Promise.all([
    import('./dispatch.js'),
    load?.(),
    load && wantsHelp ? import('./help.js') : undefined,
  ]);
  const outcome = attempt(
    argv,
    { ...io, stdin: stdin ?? ((limit) => readStandardInput(limit)) },
    {
      command: (): Command | undefined => command,
      help: () => {
        if (!help) throw new Error('the help text was not loaded');
        return help.HELP;
      },
    },
  );
  if (typeof outcome === 'number') return outcome;
  return usageFailure(outcome, argv, io, await hookInput(io, stdin));
}

/** Standard input, when a usage error may be a misconfigured hook's: read without waiting on a pipe for ever. */
async function hookInput(io: CliIO, stdin: CliIO['stdin']): Promise<string | null> {
  return io.stdin ? (await import('./hook-guard.js')).handedInput({ stdin }) : ((await io.pendingStdin?.()) ?? null);
}

/** The command of a call that stays up until interrupted (`inspect`, `watch`, `serve`), loaded on its own. */
function staysUp(name: 'inspect' | 'watch' | 'serve'): Promise<(argv: string[], io: CliIO, stop: Promise<unknown>) => Promise<void>> {
  if (name === 'inspect') return import('./inspect.js').then((m) => m.inspect);
  if (name === 'watch') return import('./watch.js').then((m) => m.watch);
  return import('./fleet-commands.js').then((m) => m.serve);
}
