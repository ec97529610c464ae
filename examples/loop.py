#!/usr/bin/env python3
"""A refinement loop in Python that drives a gapflow session with two commands.

Everything goes through `gapflow append` (events in, as JSON lines; the first
batch starts the session with a session.started line) and `gapflow next
--json` (what to do now). When gapflow says the
user must decide (`ask_user`), the options come as data: each one carries the
exact event that takes it, which goes back through `append` as it is.

Run it in an empty folder with `gapflow` on the PATH:

    python3 examples/loop.py

The "agents" here are a script: round 1 resolves the HIGH gap but finds a
CRITICAL one, which makes gapflow ask the user; the user takes the recommended
option (prioritize the CRITICAL gap); the next rounds resolve one gap each
until none is open and the session completes as CONVERGED.
"""

import json
import subprocess
import sys


class GapflowError(Exception):
    """A failed gapflow call: with --json, its stderr is one JSON object {code, message, remedy, ...}."""

    def __init__(self, exit_code, failure):
        super().__init__(f"{failure['code']} (exit {exit_code}): {failure['message']}")
        self.exit_code = exit_code
        self.failure = failure


def gapflow(*args, stdin=None):
    """Runs `gapflow ARGS --json`; returns its JSON answer, or raises GapflowError with gapflow's own report."""
    done = subprocess.run(["gapflow", *args, "--json"], input=stdin, capture_output=True, text=True)
    if done.returncode != 0:
        raise GapflowError(done.returncode, json.loads(done.stderr))
    return json.loads(done.stdout)


def append(*events):
    """Writes a batch of events, one JSON object a line: all of them, or none."""
    return gapflow("append", stdin="".join(json.dumps(event) + "\n" for event in events))


def next_step():
    return gapflow("next")


def choose(options):
    """What a user would pick; here the recommended option, or else the first one that needs nothing more."""
    takeable = [option for option in options if option["event"] is not None]
    return next((option for option in takeable if option["recommended"]), takeable[0])


def work(round_number, step):
    """The agents' work in one round, as the events that record it (the round numbers are gapflow's to give)."""
    open_gaps = [gap for gap in step["gaps"] if gap["state"] != "USER_DEFERRED"]
    focus = [gap for gap in open_gaps if gap["id"] in step["focus"]]
    todo = (focus or open_gaps)[0]
    events = [{"type": "gap.moved", "data": {"id": todo["id"], "to": "resolved"}}]
    if round_number == 1:
        # Resolving the parser turns up a CRITICAL problem: the loop must ask the user what to do.
        events.append({"type": "gap.opened", "data": {"id": "GAP-4", "severity": "critical", "title": "Auth bypass in the parser"}})
    return [{"type": "round.started", "data": {}}, *events, {"type": "round.closed", "data": {}}]


def main():
    # The session starts with the first batch (as `gapflow init` would start it), its baseline gaps with it.
    # Words in any spelling: "high", "High" and "HIGH" are all HIGH.
    append(
        {"type": "session.started", "data": {}},
        {"type": "gap.opened", "data": {"id": "GAP-1", "severity": "high", "title": "Parser contract missing"}},
        {"type": "gap.opened", "data": {"id": "GAP-2", "severity": "Medium", "title": "Retry policy"}},
        {"type": "gap.opened", "data": {"id": "GAP-3", "severity": "LOW", "title": "Glossary"}},
    )

    # A value gapflow does not take is refused with what it takes and the nearest word.
    try:
        append({"type": "gap.opened", "data": {"id": "GAP-9", "severity": "URGNT", "title": "Typo in a severity"}})
    except GapflowError as error:
        print(f"refused as expected: {error.failure['message']} ({error.failure['remedy']})")

    rounds = 0
    while True:
        step = next_step()
        titles = ", ".join(f"{gap['id']} {gap['state']} '{gap['title']}'" for gap in step["gaps"]) or "none"
        print(f"{step['state']}: {step['action']} (open: {titles})")
        if step["action"] == "stop":
            print(step["reason"])
            break
        if step["action"] == "ask_user":
            for option in step["options"]:
                mark = "*" if option["recommended"] else " "
                print(f"  {mark} {option['label']}: {option['effect']}")
            option = choose(step["options"])
            print(f"taking {option['kind']}: {option['why'] or option['label']}")
            append(option["event"])
            continue
        rounds += 1
        append(*work(rounds, step))
        if rounds > 20:
            sys.exit("the loop did not end in 20 rounds")


if __name__ == "__main__":
    main()
