import type { Command } from './common.js';
import type { CommandName } from './run.js';

/**
 * Each command loaded from its own module when the bin is asked for it: the
 * bundle splits at these imports, so a call compiles and evaluates only what
 * its command uses (`next` never builds what `init` or `schema` need). The
 * same names as `run`'s table (the type keeps the two in step).
 */
export const COMMAND_LOADERS = {
  init: async () => (await import('./session-commands.js')).init,
  gap: async () => (await import('./session-commands.js')).gap,
  round: async () => (await import('./session-commands.js')).round,
  decide: async () => (await import('./session-commands.js')).decide,
  state: async () => (await import('./read-commands.js')).state,
  status: async () => (await import('./read-commands.js')).status,
  prompt: async () => (await import('./read-commands.js')).prompt,
  summary: async () => (await import('./read-commands.js')).summary,
  replay: async () => (await import('./read-commands.js')).replay,
  viz: async () => (await import('./viz-commands.js')).viz,
  hook: async () => (await import('./loop-commands.js')).hook,
  next: async () => (await import('./loop-commands.js')).next,
  append: async () => (await import('./loop-commands.js')).append,
  import: async () => (await import('./loop-commands.js')).importCommand,
  schema: async () => (await import('./loop-commands.js')).schema,
  record: async () => (await import('./record.js')).record,
  check: async () => (await import('./policy-commands.js')).check,
  verify: async () => (await import('./log-commands.js')).verify,
  repair: async () => (await import('./log-commands.js')).repair,
  export: async () => (await import('./log-commands.js')).exportCommand,
  backtest: async () => (await import('./backtest.js')).backtest,
  fleet: async () => (await import('./fleet-commands.js')).fleet,
  trust: async () => (await import('./trust.js')).trust,
} satisfies Record<CommandName, () => Promise<Command>>;

/** The loader of command `name`, or undefined when there is no such command. */
export function commandLoader(name: string): (() => Promise<Command>) | undefined {
  return Object.hasOwn(COMMAND_LOADERS, name) ? COMMAND_LOADERS[name as CommandName] : undefined;
}
