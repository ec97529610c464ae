import type { Flags, VerbWords, Words, WordSpec } from './args.js';
import { BOOLEAN, COLUMN, type Call, type Entry, namesStore, SECTIONS, STRING, WRITE_ENTRIES, WRITE_OPTIONS } from './entries.js';

/*
 * The command table: every command's entry (entries.ts says what an entry
 * holds and how the bin reads a call by a table). It holds only strings and
 * loaders: each command's module is imported when a call names it (the
 * bundle splits at those imports, so `next` never evaluates what `init` or
 * `schema` need). The write commands' entries come first, from entries.ts,
 * where the write bundle reads its calls by them without this table.
 */

export const STATE_FLAGS = { format: STRING } as const satisfies Flags;
export const STATUS_FLAGS = { write: BOOLEAN, format: STRING, decisions: BOOLEAN, all: BOOLEAN } as const satisfies Flags;
export const VIZ_FLAGS = { format: STRING } as const satisfies Flags;
export const APPEND_FLAGS = { file: STRING, 'expect-seq': WRITE_OPTIONS['expect-seq'] } as const satisfies Flags;
export const SYNC_FLAGS = {
  format: STRING,
  source: STRING,
  severity: STRING,
  close: BOOLEAN,
  ...WRITE_OPTIONS,
} as const satisfies Flags;
/** `mcp`'s: over HTTP on a port (loopback unless --host; a bearer token off loopback), else over stdio. */
export const MCP_FLAGS = { port: STRING, host: STRING, token: STRING } as const satisfies Flags;
export const CHECK_FLAGS = { verbose: BOOLEAN } as const satisfies Flags;
export const VERIFY_FLAGS = { strict: BOOLEAN } as const satisfies Flags;
export const EXPORT_FLAGS = { out: STRING } as const satisfies Flags;
export const BACKTEST_FLAGS = { set: { type: 'string', multiple: true }, grid: { type: 'string', multiple: true } } as const satisfies Flags;
/** Where `fleet` and `serve` find the sessions. */
export const FLEET_FLAGS = { store: STRING } as const satisfies Flags;
export const SERVE_FLAGS = { ...FLEET_FLAGS, port: STRING, host: STRING } as const satisfies Flags;
export const TRUST_FLAGS = { allow: BOOLEAN, revoke: BOOLEAN, folder: BOOLEAN } as const satisfies Flags;
/** `inspect`'s and `watch`'s. */
export const PORT_FLAGS = { port: STRING } as const satisfies Flags;

/** `hook`'s verbs, one per agent harness (render's HARNESSES), worded as the stop hook's own mistakes always were. */
const HOOK_FLAGS = { flags: { 'max-blocks': STRING, 'agent-type': STRING } } as const;
export const HOOK_WORDS = {
  verbs: { claude: HOOK_FLAGS, codex: HOOK_FLAGS, copilot: HOOK_FLAGS, cursor: HOOK_FLAGS, gemini: HOOK_FLAGS },
  needs: 'hook needs claude, codex, copilot, cursor or gemini',
  unknown: (verb: string) => `unknown hook "${verb}" (claude, codex, copilot, cursor, gemini)`,
} as const satisfies VerbWords;

/** A command that takes only the global options. */
const NO_WORDS = { flags: {} } as const satisfies Words;

/** `state --json` from its stored output, when current (state-cache.ts, bundled with the head's short path). */
async function stateFirst(call: Call): Promise<Call | null> {
  if (namesStore(call.words, call.io.env)) return call;
  const { answerStateFromStore } = await import('./head-answers.js');
  return answerStateFromStore(call.words, call.io) ? null : call;
}

/**
 * `next` and `hook claude` from the head checkpoint (head-answers.ts). The
 * hook works on folders whatever $GAPFLOW_STORE says (see hookSessionDir),
 * so only its own words can send it to a store.
 */
function headFirst(name: 'next' | 'hook', spec: WordSpec): (call: Call) => Promise<Call | null> {
  return async (call) => {
    if (namesStore(call.words, name === 'hook' ? {} : call.io.env)) return call;
    const { answerFromHead, replayable } = await import('./head-answers.js');
    const io = { ...call.io, stdin: replayable(call.io.stdin) };
    return answerFromHead(name, call.words, spec, io) ? null : { words: call.words, io };
  };
}

/** Every command. */
export const TABLE: readonly Entry[] = [
  ...WRITE_ENTRIES,
  {
    name: 'state',
    words: { flags: STATE_FLAGS },
    reads: true,
    section: SECTIONS.reading,
    help: (p) => p.row(`  state [--json]${p.stateFormats}`, 'where the session stands'),
    first: stateFirst,
    load: async () => (await import('./read-commands.js')).state,
  },
  {
    name: 'status',
    words: { flags: STATUS_FLAGS },
    // Only `status --write` writes (status.md, decisions.md).
    reads: (words) => !words.some((word) => word === '--write' || word.startsWith('--write=')),
    section: SECTIONS.reading,
    help: `  status [--write] [--all]        status.md to stdout, or into the session folder
${COLUMN}(with decisions.md beside it); --all lists every gap
${COLUMN}(else the first 100 of each severity, the rest counted)
  status --decisions              decisions.md: every decision, its gaps, grounds, effect
  status --format github          a GitHub Actions job summary (chart and round table,
${COLUMN}under GitHub's 1 MiB cap), appended to
${COLUMN}$GITHUB_STEP_SUMMARY when set, else printed`,
    load: async () => (await import('./read-commands.js')).status,
  },
  {
    name: 'prompt',
    words: NO_WORDS,
    reads: true,
    section: SECTIONS.reading,
    help: '  prompt                          the decision prompt in DIVERGENCE_WARNING',
    load: async () => (await import('./read-commands.js')).prompt,
  },
  {
    name: 'summary',
    words: NO_WORDS,
    reads: true,
    section: SECTIONS.reading,
    help: '  summary                         the final summary once COMPLETE',
    load: async () => (await import('./read-commands.js')).summary,
  },
  {
    name: 'replay',
    words: NO_WORDS,
    reads: true,
    section: SECTIONS.reading,
    help: '  replay                          read the whole log; print the event count and state',
    load: async () => (await import('./read-commands.js')).replay,
  },
  {
    name: 'viz',
    words: { flags: VIZ_FLAGS },
    reads: true,
    section: SECTIONS.reading,
    help: "  viz [--format mermaid|dot]      the statechart, with the session's state marked",
    load: async () => (await import('./viz-commands.js')).viz,
  },
  {
    name: 'next',
    words: NO_WORDS,
    reads: true,
    section: SECTIONS.loops,
    help: `  next [--json]                   continue, ask_user or stop, why, the focus and open gaps;
${COLUMN}--json: the gaps with their state and title, and in
${COLUMN}ask_user the options, each with the line that takes it`,
    first: headFirst('next', NO_WORDS),
    load: async () => (await import('./loop-commands.js')).next,
  },
  {
    name: 'append',
    records: true,
    words: { flags: APPEND_FLAGS },
    section: SECTIONS.loops,
    help: `  append [--file F|-]             a JSONL batch ({"type","data","id"?} a line; stdin by
${COLUMN}default; at most 64 MiB), appended whole or not at all;
${COLUMN}a round's number may be left out`,
    load: async () => (await import('./loop-commands.js')).append,
  },
  {
    name: 'sync',
    records: true,
    words: { flags: SYNC_FLAGS, args: ['FILE'] },
    section: SECTIONS.loops,
    help: `  sync [--format sarif|junit|json] [--source NAME] [--severity W=S,...] [--close] FILE|-
${COLUMN}a tool's whole snapshot of findings (SARIF 2.1.0, JUnit
${COLUMN}XML, or [{"id","severity","title"}]), reconciled with the
${COLUMN}gaps its source opened: new findings open gaps, gone ones
${COLUMN}resolve, returning ones reopen; one write, all or nothing;
${COLUMN}--close also closes the round (docs/sync.md)`,
    load: async () => (await import('./sync-command.js')).sync,
  },
  {
    name: 'mcp',
    records: true,
    words: { flags: MCP_FLAGS },
    section: SECTIONS.loops,
    stays: true,
    help: `  mcp [--port P [--host H] [--token T]]
${COLUMN}the session as an MCP server for agents: over stdio, or
${COLUMN}Streamable HTTP at http://127.0.0.1:P/mcp; tools next,
${COLUMN}open_gaps, move_gaps, start_round, close_round, decide,
${COLUMN}sync; status.md, decisions.md and the state as resources
${COLUMN}(docs/mcp.md)`,
    load: async () => (await import('./mcp-command.js')).mcp,
  },
  {
    name: 'import',
    words: { flags: {}, args: ['FILE'] },
    section: SECTIONS.loops,
    help: `  import FILE|DIR|-               a log that export wrote (or a session folder): a new
${COLUMN}session with the same lines and checksums; or a recorded
${COLUMN}session with its dates: append's lines, each with "at"
${COLUMN}(ISO 8601, never going backwards nor in the future);
${COLUMN}made whole or not at all`,
    load: async () => (await import('./loop-commands.js')).importCommand,
  },
  {
    name: 'schema',
    words: NO_WORDS,
    section: SECTIONS.loops,
    help: '  schema                          the JSON Schema of every event (events/schema.json)',
    load: async () => (await import('./loop-commands.js')).schema,
  },
  {
    name: 'hook',
    words: HOOK_WORDS,
    answersUsage: true,
    section: SECTIONS.loops,
    verb: true,
    help: `  hook claude|codex|copilot|cursor|gemini [--max-blocks N] [--agent-type TYPE[,TYPE...]]
${COLUMN}an agent harness's stop hook: reads its JSON on stdin,
${COLUMN}prints the decision in its shape; always exits 0 (with
${COLUMN}--agent-type, other subagents stop untouched)`,
    first: headFirst('hook', HOOK_WORDS),
    load: async () => (await import('./loop-commands.js')).hook,
  },
  {
    name: 'record',
    records: true,
    words: (p) => ({
      verbs: Object.fromEntries(Object.entries(p.record.flags()).map(([policy, flags]) => [policy, { flags: { ...flags, ...WRITE_OPTIONS } }])),
      needs: p.record.needs,
      verbOf: p.record.policyOf,
    }),
    section: SECTIONS.policies,
    verb: true,
    jsonTakesFile: true,
    help: (p) => `${p.policyLines}
  record POLICY --json FILE|-     any policy's metrics as JSON, instead of its flags`,
    load: async () => (await import('./record.js')).record,
  },
  {
    name: 'check',
    words: { flags: CHECK_FLAGS },
    reads: true,
    section: SECTIONS.policies,
    help: `  check [--verbose]               each policy's verdict; --verbose: the CONVERGENCE CHECK trees`,
    load: async () => (await import('./policy-commands.js')).check,
  },
  {
    name: 'verify',
    words: { flags: VERIFY_FLAGS },
    reads: true,
    section: SECTIONS.log,
    help: `  verify [--strict]               check every line and the checksum chain (exit 1
${COLUMN}naming the first bad line), then audit the history
${COLUMN}under today's rules (findings listed; exit 3 with
${COLUMN}--strict)`,
    load: async () => (await import('./log-commands.js')).verify,
  },
  {
    name: 'repair',
    words: NO_WORDS,
    section: SECTIONS.log,
    help: '  repair                          cut a torn last line (a copy is kept); nothing else',
    load: async () => (await import('./log-commands.js')).repair,
  },
  {
    name: 'export',
    words: { flags: EXPORT_FLAGS },
    reads: true,
    section: SECTIONS.log,
    help: `  export [--out FILE|-]           the log as JSONL, every line as written, once every
${COLUMN}line is checked; from any store (import takes it)`,
    load: async () => (await import('./log-commands.js')).exportCommand,
  },
  {
    name: 'backtest',
    words: { flags: BACKTEST_FLAGS, args: ['DIR...'] },
    reads: true,
    section: SECTIONS.log,
    help: `  backtest [DIR...] [--set NAME=V ...] [--grid NAME=A..B ...]
${COLUMN}replay recorded sessions (DIR: a session folder, or
${COLUMN}one holding them; else this session) under other
${COLUMN}settings (init's: stall-threshold, max-rounds, …);
${COLUMN}per session and setting, where it would warn and
${COLUMN}stop against the record; writes nothing`,
    load: async () => (await import('./backtest.js')).backtest,
  },
  {
    name: 'fleet',
    words: { flags: FLEET_FLAGS, args: ['DIR...'] },
    reads: true,
    section: SECTIONS.fleet,
    help: `  fleet [DIR] [--store URL|DIR] [--json]
${COLUMN}every session under DIR (each .gapflow folder):
${COLUMN}state, round, open and weighted open, forecast,
${COLUMN}age of the last event, last reason; --json:
${COLUMN}{"sessions": [...]}`,
    load: async () => (await import('./fleet-commands.js')).fleet,
  },
  {
    name: 'trust',
    words: { flags: TRUST_FLAGS },
    reads: true,
    section: SECTIONS.trust,
    help: `  trust [--allow|--revoke]        the session's check command as written and whether you
${COLUMN}approved it here; --allow approves it (gapflow runs a
${COLUMN}check only when you set it at init on this machine or
${COLUMN}approved it), --revoke takes that back
  trust --folder                  use a session folder someone else owns or may write`,
    load: async () => (await import('./trust.js')).trust,
  },
  {
    name: 'inspect',
    words: { flags: PORT_FLAGS },
    reads: true,
    section: SECTIONS.reading,
    stays: true,
    help: `  inspect [--port P]              replay into a live actor for the Stately inspector,
${COLUMN}then follow the log (Ctrl-C stops; exit 0)`,
    load: async () => (await import('./inspect.js')).inspect,
  },
  {
    name: 'watch',
    words: { flags: PORT_FLAGS },
    reads: true,
    section: SECTIONS.reading,
    stays: true,
    help: `  watch [--json] [--port P]       follow the log: state, round table, last reason,
${COLUMN}redrawn as events arrive; --json: a JSON line per
${COLUMN}update; --port: also to WebSocket clients`,
    load: async () => (await import('./watch.js')).watch,
  },
  {
    name: 'serve',
    words: { flags: SERVE_FLAGS, args: ['DIR...'] },
    reads: true,
    section: SECTIONS.fleet,
    stays: true,
    help: `  serve [DIR] [--store URL|DIR] [--port P] [--host H]
${COLUMN}a live dashboard of them on loopback (port 7357),
${COLUMN}their JSON, an event feed and /metrics; prints
${COLUMN}the URL first (Ctrl-C stops; exit 0)`,
    load: async () => (await import('./fleet-commands.js')).serve,
  },
];
