import { GATE_DEFAULT_TIMEOUT_SECONDS, GATE_FLAG, GATE_TIMEOUT_FLAG, stateFormatNames } from '../core/index.js';
import { metricPolicies, POLICY_NAMES, type AnyPolicy, type FlagSpec } from '../policies/index.js';

const WIDTH = 80;

/** `head`, then `words` wrapped at word breaks to `WIDTH`; each line after the first starts with `indent`. */
function wrap(head: string, words: readonly string[], indent: string): string[] {
  const lines = [head];
  for (const word of words) {
    const last = lines.at(-1)!;
    if (last.trim() !== '' && last.length + 1 + word.length > WIDTH) lines.push(`${indent}${word}`);
    else lines[lines.length - 1] = last.trim() === '' ? `${last}${word}` : `${last} ${word}`;
  }
  return lines;
}

/** A command and what it does, the text in the column the others use when the command leaves room. */
function column(command: string, text: string): string {
  return command.length < 34 ? `${command.padEnd(34)}${text}` : `${command}  ${text}`;
}

function flagUsage(flag: string, spec: FlagSpec): string {
  if (spec.type === 'boolean') return `--${flag}`;
  return `--${flag} ${spec.placeholder ?? 'VALUE'}${spec.multiple ? ' ...' : ''}`;
}

/** `record <policy>`'s flags as --help shows them: alternatives in parentheses, booleans and the command flag in brackets. */
function recordUsage(policy: AnyPolicy): string[] {
  const flags = Object.entries(policy.recordFlags);
  const oneOf = flags.filter(([, spec]) => spec.type === 'string' && spec.oneOf);
  const parts: string[] = [];
  for (const [flag, spec] of flags) {
    if (spec.type === 'string' && spec.oneOf) {
      if (flag === oneOf[0]![0]) parts.push(`(${oneOf.map(([f, s]) => flagUsage(f, s)).join(' | ')})`);
    } else parts.push(spec.type === 'boolean' ? `[${flagUsage(flag, spec)}]` : flagUsage(flag, spec));
  }
  const command = policy.recordCommand;
  if (command) parts.push(`[--${command.flag} "CMD"]`, `[--${command.timeoutFlag} S]`);
  if (parts.length === 0) parts.push('--json FILE|-');
  return wrap(`  record ${policy.name}`, parts, '       ');
}

/** Each policy: how to record it, what it is, and the settings `init` takes for it. */
function policyLines(): string[] {
  return metricPolicies().flatMap((policy) => {
    const settings = Object.keys(policy.settingFlags);
    return [
      ...recordUsage(policy),
      ...wrap('     ', policy.summary.split(' '), '     '),
      ...(settings.length > 0
        ? wrap(
            `     init --${policy.name}-SETTING:`,
            settings.map((s, i) => (i < settings.length - 1 ? `${s},` : s)),
            '       ',
          )
        : []),
    ];
  });
}

/** `round close` with the record flags of each policy that takes them there. */
function closeLines(): string[] {
  return metricPolicies()
    .filter((policy) => policy.recordOnClose)
    .flatMap((policy) => [
      ...wrap(
        '  round close',
        Object.entries(policy.recordFlags).map(([flag, spec]) => `[${flagUsage(flag, spec)}]`),
        '       ',
      ),
      `                                  with ${policy.name} enabled: its record, appended with the close`,
    ]);
}

const formats = stateFormatNames();
const stateUsage = `  state [--json]${formats.length > 0 ? ` [--format ${formats.join('|')}]` : ''}`;

/** The whole `--help` text; the policies' part comes from the registry, so it names each one as it is. */
export const HELP = `gapflow: is your refinement loop converging, flat, stalled, diverging, paused or complete?

Usage: gapflow <command> [options]

Session
  init [--preset simple|complex|large|auto] [--stall-threshold N]
       [--divergence-threshold D] [--max-rounds M] [--no-critical-override]
       [--agent-session ID]       (ID: the agent session whose stop hook drives it)
       [--write-status]           rewrite status.md after every command that records
       [--ping-pong N]            name a gap reopened N times after a resolve (2)
       [--${GATE_FLAG} CMD [--${GATE_TIMEOUT_FLAG} S]]   CMD must pass (run then, S seconds
                                  at most, ${GATE_DEFAULT_TIMEOUT_SECONDS}) to complete as converged or approved
       [--policy ${POLICY_NAMES.join('|')}[,...]] [--complete-when all|any]
       [--<policy>-<setting> VALUE ...]   each policy's settings (under Policies)
                                  create the session log (refuses if one exists)
Gaps (a gap event between rounds starts the next round)
  gap open ID --severity CRITICAL|HIGH|MEDIUM|LOW|UNTRIAGED [--title TEXT]
       [--spawned-by ID] [--non-blocking]   (UNTRIAGED weighs as MEDIUM)
  gap move ID STATE [--reason TEXT] [--blocked-by ID]
  gap move ID DUPLICATE --of ID   withdrawn: neither resolved nor new
  gap severity ID SEVERITY
  gap split ID --into ID:SEV,ID:SEV[,...] [--reason TEXT]
  gap rename OLD NEW              counts nothing; OLD is never used again
Rounds
  round start [--kind work|review|consolidation]
                                  open the next round (a flat review or consolidation
                                  round leaves the flat count as it was)
  round close                     close it: figures, both nets, the new state and why
${closeLines().join('\n')}
Decisions (between rounds)
  decide narrow-scope --gaps ID[,ID...]  | accept-complexity
  decide prioritize-critical [--gaps ID[,ID...]] | pause | resume
  decide prioritize --gaps ID[,ID...]    focus on any open gaps; moves outside it are flagged
  decide extend-rounds N          raise max_rounds by N (any time before COMPLETE)
  decide force-complete | abandon | approve [--accept-critical] [--rationale TEXT]
Policies (one record per policy per round; without gaps a round closes itself)
${policyLines().join('\n')}
  record POLICY --json FILE|-     any policy's metrics as JSON, instead of its flags
  check [--verbose]               each policy's verdict; --verbose: the CONVERGENCE CHECK trees
Reading
${column(stateUsage, 'where the session stands')}
  status [--write]                status.md to stdout, or into the session folder
                                  (with decisions.md beside it)
  status --decisions              decisions.md: every decision, its gaps, grounds, effect
  status --format github          a GitHub Actions job summary (chart and round table,
                                  under GitHub's 1 MiB cap), appended to
                                  $GITHUB_STEP_SUMMARY when set, else printed
  prompt                          the decision prompt in DIVERGENCE_WARNING
  summary                         the final summary once COMPLETE
  replay                          read the whole log; print the event count and state
  viz [--format mermaid|dot]      the statechart, with the session's state marked
  inspect [--port P]              replay into a live actor for the Stately inspector,
                                  then follow the log (Ctrl-C stops; exit 0)
  watch [--json] [--port P]       follow the log: state, round table, last reason,
                                  redrawn as events arrive; --json: a JSON line per
                                  update; --port: also to WebSocket clients
Fleet (many sessions: DIR or --store URL|DIR, else $GAPFLOW_STORE, else here)
  fleet [DIR] [--store URL|DIR] [--json]
                                  every session under DIR (each .gapflow folder):
                                  state, round, open and weighted open, forecast,
                                  age of the last event, last reason; --json:
                                  {"sessions": [...]}
  serve [DIR] [--store URL|DIR] [--port P] [--host H]
                                  a live dashboard of them on loopback (port 7357),
                                  their JSON, an event feed and /metrics; prints
                                  the URL first (Ctrl-C stops; exit 0)
Loops
  next [--json]                   continue, ask_user or stop, why, the focus and open gaps;
                                  --json: the gaps with their state and title, and in
                                  ask_user the options, each with the line that takes it
  append [--file F|-]             a JSONL batch ({"type","data","id"?} a line; stdin by
                                  default; at most 64 MiB), appended whole or not at all;
                                  a round's number may be left out
  import FILE|DIR|-               a log that export wrote (or a session folder): a new
                                  session with the same lines and checksums; or a recorded
                                  session with its dates: append's lines, each with "at"
                                  (ISO 8601, never going backwards nor in the future);
                                  made whole or not at all
  schema                          the JSON Schema of every event (events/schema.json)
  hook claude [--max-blocks N] [--agent-type TYPE[,TYPE...]]
                                  Claude Code Stop/SubagentStop hook: reads its JSON on
                                  stdin, prints the decision; always exits 0 (with
                                  --agent-type, other subagents stop untouched)
Trust (what runs, and whose folders are used: docs/security.md)
  trust [--allow|--revoke]        the session's check command as written and whether you
                                  approved it here; --allow approves it (gapflow runs a
                                  check only when you set it at init on this machine or
                                  approved it), --revoke takes that back
  trust --folder                  use a session folder someone else owns or may write
Log
  verify [--strict]               check every line and the checksum chain (exit 1
                                  naming the first bad line), then audit the history
                                  under today's rules (findings listed; exit 3 with
                                  --strict)
  repair                          cut a torn last line (a copy is kept); nothing else
  export [--out FILE|-]           the log as JSONL, every line as written, once every
                                  line is checked; from any store (import takes it)
  backtest [DIR...] [--set NAME=V ...] [--grid NAME=A..B ...]
                                  replay recorded sessions (DIR: a session folder, or
                                  one holding them; else this session) under other
                                  settings (init's: stall-threshold, max-rounds, …);
                                  per session and setting, where it would warn and
                                  stop against the record; writes nothing

Options
  --dir DIR    session folder (else $GAPFLOW_DIR, else the nearest .gapflow
               holding a session, from here upward)
  --store URL|DIR --session NAME
               a session in a store of many: a PostgreSQL database
               (postgres://user:pass@host:5432/db) or a folder (NAME's session in
               DIR/NAME/.gapflow); else $GAPFLOW_STORE and $GAPFLOW_SESSION
  --expect-seq N  (writing commands) refuse unless the log ends at seq N
  --event-id ID   (writing commands) an id for the event; if it is already in
                  the log, nothing is appended and the original is shown
  --json       machine-readable output; a failure is then one JSON line on
               stderr: {"code","message","remedy"} (same exit code)
  -h, --help   this text;  --version  the version

Words from a list (severities, states, decisions, presets, policies) may be
written in any case, with - or _: in-progress, IN_PROGRESS and In_Progress are
one state, here and in append.

Exit codes: 0 done; 1 refused or invalid input (one line on stderr, nothing
written); 2 usage error (unknown command or option, missing argument).
`;
