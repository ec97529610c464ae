export const HELP = `gapflow: is your refinement loop converging, flat, stalled, diverging, paused or complete?

Usage: gapflow <command> [options]

Session
  init [--preset simple|complex|large|auto] [--stall-threshold N]
       [--divergence-threshold D] [--max-rounds M] [--no-critical-override]
       [--agent-session ID]       (ID: the agent session whose stop hook drives it)
       [--policy gaps|questions|atoms|forge|quality[,...]] [--complete-when all|any]
       [--<policy>-<setting> VALUE ...]   e.g. --quality-min-score 85, --questions-preset aggressive
                                  create the session log (refuses if one exists)
Gaps (a gap event between rounds starts the next round)
  gap open ID --severity CRITICAL|HIGH|MEDIUM|LOW [--title TEXT]
       [--spawned-by ID] [--non-blocking]
  gap move ID STATE [--reason TEXT] [--blocked-by ID]
  gap severity ID SEVERITY
Rounds
  round start                     open the next round
  round close                     close it: figures, both nets, the new state and why
Decisions (between rounds)
  decide narrow-scope --gaps ID[,ID...]  | accept-complexity
  decide prioritize-critical [--gaps ID[,ID...]] | pause | resume
  decide force-complete | abandon | approve [--accept-critical] [--rationale TEXT]
Policies (one record per policy per round; without gaps a round closes itself)
  record questions --open N --high H --medium M
  record atoms --pending P --resolved R [--stop-requested] [--redirect-requested]
       [--verify "CMD"] [--verify-timeout S]
  record quality (--score S | --dimension NAME=S ...)
  record forge --json FILE|-      (every policy takes --json FILE|- instead of flags)
  check [--verbose]               each policy's verdict; --verbose: the CONVERGENCE CHECK trees
Reading
  state [--json] [--format frontmatter]  where the session stands
  status [--write]                status.md to stdout, or into the session folder
  prompt                          the decision prompt in DIVERGENCE_WARNING
  summary                         the final summary once COMPLETE
  replay                          read the whole log; print the event count and state
  viz [--format mermaid|dot]      the statechart, with the session's state marked
  inspect [--port P]              replay into a live actor for the Stately inspector
Loops
  next [--json]                   continue, ask_user or stop, why, the focus and open gaps
  append [--file F|-]             a JSONL batch ({"type","data","id"?} a line; stdin by
                                  default; at most 64 MiB), appended whole or not at all
  schema                          the JSON Schema of every event (events/schema.json)
  hook claude [--max-blocks N]    Claude Code Stop/SubagentStop hook: reads its JSON on
                                  stdin, prints the decision; always exits 0
Log
  verify [--strict]               check every line and the checksum chain (exit 1
                                  naming the first bad line), then audit the history
                                  under today's rules (findings listed; exit 3 with
                                  --strict)
  repair                          cut a torn last line (a copy is kept); nothing else

Options
  --dir DIR    session folder (else $GAPFLOW_DIR, else ./.gapflow)
  --expect-seq N  (writing commands) refuse unless the log ends at seq N
  --event-id ID   (writing commands) an id for the event; if it is already in
                  the log, nothing is appended and the original is shown
  --json       machine-readable output
  -h, --help   this text;  --version  the version

Exit codes: 0 done; 1 refused or invalid input (one line on stderr, nothing
written); 2 usage error.
`;
