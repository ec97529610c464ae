export const HELP = `gapflow: is your refinement loop converging, flat, stalled, diverging, paused or complete?

Usage: gapflow <command> [options]

Session
  init [--preset simple|complex|large|auto] [--stall-threshold N]
       [--divergence-threshold D] [--max-rounds M] [--no-critical-override]
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
Reading
  state [--json]                  where the session stands
  status [--write]                status.md to stdout, or into the session folder
  prompt                          the decision prompt in DIVERGENCE_WARNING
  summary                         the final summary once COMPLETE
  replay                          read the whole log; print the event count and state
Log
  verify                          check every line and the checksum chain; exit 1
                                  naming the first bad line
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
