// Imports nothing: the bin's quick paths (src/cli/state-cache.ts) load it without the core.

/** A call whose words are off: exit 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}
