// Imports nothing, so a reader that only looks at the log's last line (src/log/state-cache.ts) loads no schema.

/** The log's name in its session folder. */
export const LOG_FILE = 'events.jsonl';
