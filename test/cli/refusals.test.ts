import { existsSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EVENT_VERSION } from '../../events/index.js';
import {
  atBaseline,
  completeAfterRoundOne,
  convergingAfterRoundOne,
  divergingAfterRoundOne,
  expectRefused,
  expectRefusedAsJson,
  flatAfterRoundOne,
  inRoundOne,
  pausedAfterRoundOne,
  resealed,
  Sandbox,
  word,
  words,
} from './helpers.js';

/*
 * Every refused input of issue 2's acceptance list, through `run()` against a
 * real file session: exit 1 (2 for usage errors), one `gapflow: ` line on
 * stderr naming what was refused and why, nothing on stdout, and
 * events.jsonl byte-for-byte as it was.
 */

let box: Sandbox;
beforeEach(() => {
  box = new Sandbox();
});
afterEach(() => {
  box.remove();
});

/** R10: the moves allowed out of each state, as the ruling lists them. */
const ALLOWED_FROM = {
  OPEN: ['IN_PROGRESS', 'RESOLVED', 'USER_DEFERRED', 'WONT_FIX'],
  IN_PROGRESS: ['PROPOSED', 'BLOCKED', 'RESOLVED', 'USER_DEFERRED', 'WONT_FIX'],
  BLOCKED: ['IN_PROGRESS', 'RESOLVED', 'USER_DEFERRED', 'WONT_FIX'],
  USER_DEFERRED: ['OPEN', 'WONT_FIX'],
  RESOLVED: ['OPEN', 'NEEDS_REVISION', 'WONT_FIX'],
  WONT_FIX: ['OPEN', 'NEEDS_REVISION'],
} as const;

describe('unknown gaps', () => {
  it('moving a gap that was never opened is refused, naming the gap', () => {
    inRoundOne(box);
    expectRefused(box, ['gap', 'move', 'GAP-NOPE', 'IN_PROGRESS'], [word('GAP-NOPE'), /unknown|no such|not found|does not exist/i]);
  });

  it('changing the severity of a gap that was never opened is refused, naming the gap', () => {
    inRoundOne(box);
    expectRefused(box, ['gap', 'severity', 'GAP-NOPE', 'LOW'], [word('GAP-NOPE'), /unknown|no such|not found|does not exist/i]);
  });

  it('opening a gap spawned by an unknown gap is refused, naming the unknown parent', () => {
    inRoundOne(box);
    expectRefused(
      box,
      ['gap', 'open', 'GAP-N1', '--severity', 'LOW', '--spawned-by', 'GAP-NOPE'],
      [word('GAP-NOPE'), /unknown|no such|not found|does not exist/i],
    );
  });

  it('narrowing scope to an unknown gap is refused, naming the gap', () => {
    divergingAfterRoundOne(box);
    expectRefused(box, ['decide', 'narrow-scope', '--gaps', 'GAP-NOPE'], [word('GAP-NOPE'), /unknown|no such|not found|does not exist/i]);
  });
});

describe('illegal gap moves (R10)', () => {
  const cases: { from: keyof typeof ALLOWED_FROM; setup: string[]; to: string }[] = [
    { from: 'OPEN', setup: [], to: 'ACCEPTED' },
    { from: 'OPEN', setup: [], to: 'PROPOSED' },
    { from: 'BLOCKED', setup: ['IN_PROGRESS', 'BLOCKED'], to: 'PROPOSED' },
    { from: 'USER_DEFERRED', setup: ['USER_DEFERRED'], to: 'IN_PROGRESS' },
    { from: 'RESOLVED', setup: ['RESOLVED'], to: 'ACCEPTED' },
  ];

  it.each(cases)('$from -> $to is refused, naming the gap, its state and the moves allowed from it', ({ from, setup, to }) => {
    inRoundOne(box);
    for (const state of setup) box.ok('gap', 'move', 'GAP-M1', state);
    expectRefused(box, ['gap', 'move', 'GAP-M1', to], [word('GAP-M1'), word(from), ...words(...ALLOWED_FROM[from])]);
  });

  it.each(['OPEN', 'IN_PROGRESS', 'WONT_FIX'] as const)(
    'a move from %s to the state it is already in is refused, naming the gap, the state and the moves allowed',
    (state) => {
      inRoundOne(box);
      if (state === 'IN_PROGRESS') box.ok('gap', 'move', 'GAP-M1', 'IN_PROGRESS');
      if (state === 'WONT_FIX') box.ok('gap', 'move', 'GAP-M1', 'WONT_FIX');
      expectRefused(box, ['gap', 'move', 'GAP-M1', state], [word('GAP-M1'), word(state), ...words(...ALLOWED_FROM[state])]);
    },
  );

  it('a move to a state that does not exist is refused, listing the real states', () => {
    inRoundOne(box);
    expectRefused(box, ['gap', 'move', 'GAP-M1', 'FINISHED'], [/gap[. ]mov/, ...words('OPEN', 'IN_PROGRESS', 'USER_DEFERRED', 'WONT_FIX')]);
  });

  it('--json reports a refusal as one JSON object on stderr, with the same exit code and nothing on stdout', () => {
    inRoundOne(box);
    const failure = expectRefusedAsJson(box, ['gap', 'move', 'GAP-M1', 'OPEN', '--json'], 1, [word('GAP-M1'), word('OPEN')]);
    expect(failure.code).toBe('refused');
  });

  it('a refused gap event between rounds leaves no auto-started round behind', () => {
    convergingAfterRoundOne(box);
    const linesBefore = box.logLines().length;
    expectRefused(box, ['gap', 'move', 'GAP-H1', 'ACCEPTED'], [word('GAP-H1'), word('OPEN')]);
    expect(box.logLines()).toHaveLength(linesBefore);
    expect(box.stateJson()).toMatchObject({ round: 1, roundOpen: false });
  });
});

describe('gap ids, severities and text', () => {
  it('opening a gap id that exists at baseline is refused, naming the gap', () => {
    atBaseline(box);
    expectRefused(box, ['gap', 'open', 'GAP-M1', '--severity', 'LOW'], [word('GAP-M1'), /already|exists|duplicate/i]);
  });

  it('opening a gap id that exists, inside a round and after it closed, is refused, naming the gap', () => {
    convergingAfterRoundOne(box);
    // GAP-M1 is RESOLVED now: a closed gap still owns its id.
    expectRefused(box, ['gap', 'open', 'GAP-M1', '--severity', 'HIGH'], [word('GAP-M1'), /already|exists|duplicate/i]);
    box.ok('round', 'start');
    expectRefused(box, ['gap', 'open', 'GAP-H1', '--severity', 'HIGH'], [word('GAP-H1'), /already|exists|duplicate/i]);
  });

  it('opening a gap with a severity outside CRITICAL|HIGH|MEDIUM|LOW is refused, saying which are valid', () => {
    inRoundOne(box);
    expectRefused(box, ['gap', 'open', 'GAP-N1', '--severity', 'URGENT'], [word('GAP-N1'), /severity/i, ...words('CRITICAL', 'HIGH', 'MEDIUM', 'LOW')]);
  });

  it('changing a severity to one outside CRITICAL|HIGH|MEDIUM|LOW is refused, saying which are valid', () => {
    inRoundOne(box);
    expectRefused(box, ['gap', 'severity', 'GAP-M1', 'URGENT'], [word('GAP-M1'), /severity/i, ...words('CRITICAL', 'HIGH', 'MEDIUM', 'LOW')]);
  });

  it('changing a severity to the one the gap already has is refused, naming the gap and severity', () => {
    inRoundOne(box);
    expectRefused(box, ['gap', 'severity', 'GAP-H1', 'HIGH'], [word('GAP-H1'), word('HIGH')]);
  });

  it('changing the severity of a closed gap is refused, naming the gap and its state', () => {
    inRoundOne(box);
    box.ok('gap', 'move', 'GAP-M1', 'RESOLVED');
    expectRefused(box, ['gap', 'severity', 'GAP-M1', 'HIGH'], [word('GAP-M1'), word('RESOLVED')]);
  });

  it('a gap id that could be Markdown or a path is refused, saying what an id may hold', () => {
    inRoundOne(box);
    expectRefused(box, ['gap', 'open', '../etc', '--severity', 'LOW'], [/\bid\b/i]);
  });

  it('a title with a newline in it is refused, naming the title', () => {
    inRoundOne(box);
    expectRefused(box, ['gap', 'open', 'GAP-N1', '--severity', 'LOW', '--title', 'two\nlines'], [/title/i]);
  });
});

describe('decisions in a state where they make no sense (R11)', () => {
  it('narrow-scope while CONVERGING is refused, naming the decision and the state', () => {
    convergingAfterRoundOne(box);
    expectRefused(box, ['decide', 'narrow-scope', '--gaps', 'GAP-H1'], [/narrow[-_ ]scope/i, word('CONVERGING')]);
  });

  it('accept-complexity while FLAT is refused, naming the decision and the state', () => {
    flatAfterRoundOne(box);
    expectRefused(box, ['decide', 'accept-complexity'], [/accept[-_ ]complexity/i, word('FLAT')]);
  });

  it('prioritize-critical while FLAT is refused, naming the decision and the state', () => {
    flatAfterRoundOne(box);
    expectRefused(box, ['decide', 'prioritize-critical'], [/prioritize[-_ ]critical/i, word('FLAT')]);
  });

  it('force-complete while CONVERGING is refused, naming the decision and the state', () => {
    convergingAfterRoundOne(box);
    expectRefused(box, ['decide', 'force-complete'], [/force[-_ ]complete/i, word('CONVERGING')]);
  });

  it('resume when the session is not paused is refused, naming the decision and the state', () => {
    convergingAfterRoundOne(box);
    expectRefused(box, ['decide', 'resume'], [/resume/i, word('CONVERGING')]);
  });

  it('resume in DIVERGENCE_WARNING is refused, naming the decision and the state', () => {
    divergingAfterRoundOne(box);
    expectRefused(box, ['decide', 'resume'], [/resume/i, word('DIVERGENCE_WARNING')]);
  });

  it('approve in DIVERGENCE_WARNING is refused, naming the decision and the state', () => {
    divergingAfterRoundOne(box);
    expectRefused(box, ['decide', 'approve', '--accept-critical', '--rationale', 'ship it'], [/approv/i, word('DIVERGENCE_WARNING')]);
  });

  it('approve while PAUSED is refused, naming the decision and the state', () => {
    pausedAfterRoundOne(box);
    expectRefused(box, ['decide', 'approve', '--rationale', 'ship it'], [/approv/i, word('PAUSED')]);
  });

  it('narrow-scope without naming gaps is refused, saying to name them', () => {
    divergingAfterRoundOne(box);
    expectRefused(box, ['decide', 'narrow-scope'], [/--gaps|name the gaps/i]);
  });

  it('narrow-scope over a closed gap is refused, naming the gap and its state', () => {
    divergingAfterRoundOne(box);
    box.ok('decide', 'accept-complexity');
    box.steps('round start', 'gap move GAP-M1 RESOLVED', 'gap open GAP-C2 --severity CRITICAL', 'round close');
    expect(box.stateJson().state).toBe('DIVERGENCE_WARNING');
    expectRefused(box, ['decide', 'narrow-scope', '--gaps', 'GAP-M1'], [word('GAP-M1'), word('RESOLVED')]);
  });

  it('prioritize-critical naming a gap that is not CRITICAL is refused, naming the gap and its severity', () => {
    divergingAfterRoundOne(box);
    expectRefused(box, ['decide', 'prioritize-critical', '--gaps', 'GAP-M1'], [word('GAP-M1'), word('MEDIUM')]);
  });
});

describe('approval over severe open gaps (R11)', () => {
  it('approve over an open CRITICAL gap without --accept-critical is refused, naming the gap', () => {
    box.ok('init');
    box.steps('gap open GAP-C1 --severity CRITICAL', 'gap open GAP-L1 --severity LOW');
    expectRefused(box, ['decide', 'approve'], [word('GAP-C1'), word('CRITICAL'), /--accept-critical|acknowledg/]);
  });

  it('a rationale is not an acknowledgment: approve over open CRITICAL with only --rationale is refused', () => {
    box.ok('init');
    box.ok('gap', 'open', 'GAP-C1', '--severity', 'CRITICAL');
    expectRefused(box, ['decide', 'approve', '--rationale', 'we know'], [word('GAP-C1'), word('CRITICAL')]);
  });

  it('approve over an open HIGH gap without --rationale is refused, naming the gap and asking for a rationale', () => {
    atBaseline(box);
    expectRefused(box, ['decide', 'approve'], [word('GAP-H1'), word('HIGH'), /rationale/i]);
  });

  it('approve over open CRITICAL and HIGH gaps with --accept-critical but no rationale is refused over the HIGH gap', () => {
    box.ok('init');
    box.steps('gap open GAP-C1 --severity CRITICAL', 'gap open GAP-H1 --severity HIGH');
    expectRefused(box, ['decide', 'approve', '--accept-critical'], [word('GAP-H1'), word('HIGH'), /rationale/i]);
  });

  it('an empty rationale is no rationale: approve over open HIGH with --rationale "" is refused', () => {
    atBaseline(box);
    expectRefused(box, ['decide', 'approve', '--rationale', ''], [word('GAP-H1'), /rationale/i]);
  });

  it('a blank rationale is no rationale: approve over open HIGH with --rationale "   " is refused', () => {
    atBaseline(box);
    expectRefused(box, ['decide', 'approve', '--rationale', '   '], [word('GAP-H1'), /rationale/i]);
  });
});

describe('nothing is accepted after COMPLETE (R12)', () => {
  const attempts: string[][] = [
    ['gap', 'open', 'GAP-N1', '--severity', 'LOW'],
    ['gap', 'move', 'GAP-H1', 'IN_PROGRESS'],
    ['gap', 'severity', 'GAP-H1', 'LOW'],
    ['round', 'start'],
    ['round', 'close'],
    ['decide', 'approve', '--accept-critical', '--rationale', 'late'],
    ['decide', 'abandon'],
    ['decide', 'pause'],
    ['decide', 'resume'],
    ['decide', 'accept-complexity'],
  ];

  it.each(attempts)('`%s %s` after an abandon is refused, saying the session is COMPLETE', (...argv) => {
    completeAfterRoundOne(box);
    expectRefused(box, argv, [word('COMPLETE')]);
  });

  it('a gap event after the max_rounds stop is refused, saying the session is COMPLETE', () => {
    box.ok('init', '--max-rounds', '1');
    box.steps('gap open GAP-H1 --severity HIGH', 'round start', 'round close');
    expect(box.stateJson()).toMatchObject({ state: 'COMPLETE', outcome: 'MAX_ROUNDS' });
    expectRefused(box, ['gap', 'open', 'GAP-N1', '--severity', 'LOW'], [word('COMPLETE')]);
    expectRefused(box, ['round', 'start'], [word('COMPLETE')]);
  });

  it('a gap event after CONVERGED (open count 0) is refused, saying the session is COMPLETE', () => {
    box.ok('init');
    box.steps('gap open GAP-L1 --severity LOW', 'round start', 'gap move GAP-L1 RESOLVED', 'round close');
    expect(box.stateJson()).toMatchObject({ state: 'COMPLETE', outcome: 'CONVERGED' });
    expectRefused(box, ['gap', 'move', 'GAP-L1', 'OPEN'], [word('COMPLETE')]);
  });
});

describe('gap events and round starts while a decision or a resume is due (R8)', () => {
  it.each([
    [['gap', 'open', 'GAP-N1', '--severity', 'LOW'], 'GAP-N1'],
    [['gap', 'move', 'GAP-H1', 'IN_PROGRESS'], 'GAP-H1'],
    [['gap', 'severity', 'GAP-H1', 'MEDIUM'], 'GAP-H1'],
  ])('`%s` in DIVERGENCE_WARNING is refused, naming the gap and that a decision comes first', (argv, gapId) => {
    divergingAfterRoundOne(box);
    expectRefused(box, argv, [word(gapId), word('DIVERGENCE_WARNING'), /decision|decide/i]);
  });

  it('round start in DIVERGENCE_WARNING is refused, saying a decision comes first', () => {
    divergingAfterRoundOne(box);
    expectRefused(box, ['round', 'start'], [word('DIVERGENCE_WARNING'), /decision|decide/i]);
  });

  it.each([
    [['gap', 'open', 'GAP-N1', '--severity', 'LOW'], 'GAP-N1'],
    [['gap', 'move', 'GAP-H1', 'IN_PROGRESS'], 'GAP-H1'],
    [['gap', 'severity', 'GAP-H1', 'MEDIUM'], 'GAP-H1'],
  ])('`%s` while PAUSED is refused, naming the gap and saying to resume first', (argv, gapId) => {
    pausedAfterRoundOne(box);
    expectRefused(box, argv, [word(gapId), word('PAUSED'), /resume/i]);
  });

  it('round start while PAUSED is refused, saying to resume first', () => {
    pausedAfterRoundOne(box);
    expectRefused(box, ['round', 'start'], [word('PAUSED'), /resume/i]);
  });
});

describe('rounds and decisions out of turn', () => {
  it.each([['approve', '--accept-critical', '--rationale', 'done'], ['accept-complexity']])(
    'decide %s while round 1 is open is refused: decisions are made between rounds',
    (...kind) => {
      inRoundOne(box);
      expectRefused(box, ['decide', ...kind], [/round 1/i, /\bopen\b/i, /decision|decide/i]);
    },
  );

  it('pause may interrupt an open round; while PAUSED the round can neither change nor close', () => {
    inRoundOne(box);
    box.ok('decide', 'pause');
    expect(box.stateJson()).toMatchObject({ state: 'PAUSED', roundOpen: true });
    expectRefused(box, ['gap', 'move', 'GAP-M1', 'RESOLVED'], [word('GAP-M1'), word('PAUSED'), /resume/i]);
    expectRefused(box, ['round', 'close'], [word('PAUSED'), /resume/i]);
    box.ok('decide', 'resume');
    expect(box.stateJson()).toMatchObject({ state: 'CONVERGING', roundOpen: true });
  });

  it("abandon in the middle of a round is refused, so the round's work is counted first", () => {
    inRoundOne(box);
    expectRefused(box, ['decide', 'abandon'], [/round 1/i, /\bopen\b/i, /close it first/]);
    box.ok('round', 'close');
    box.ok('decide', 'abandon');
    expect(box.stateJson()).toMatchObject({ state: 'COMPLETE', outcome: 'ABANDONED', round: 1, roundOpen: false });
  });

  it('a pause during a round is recorded as made during that round', () => {
    inRoundOne(box);
    box.ok('decide', 'pause');
    expect(box.ok('status').stdout).toContain('- During round 1: CONVERGING -> PAUSED (user paused the session)');
  });

  it('round close before any round started is refused, saying no round is open', () => {
    atBaseline(box);
    expectRefused(box, ['round', 'close'], [/round/i, /no round|not open|none is open/i]);
  });

  it('round close right after a round closed is refused, saying no round is open', () => {
    convergingAfterRoundOne(box);
    expectRefused(box, ['round', 'close'], [/no round|not open|none is open/i]);
  });

  it('round start while round 1 is open is refused, naming the open round', () => {
    inRoundOne(box);
    expectRefused(box, ['round', 'start'], [/round 1/i, /\bopen\b/i]);
  });
});

describe('init and a missing session', () => {
  it('init where a log exists is refused, naming the log, and leaves it as it was', () => {
    atBaseline(box);
    expectRefused(box, ['init'], [box.logPath, /already|exists/i]);
  });

  it('init with flags where a log exists is refused too (the flags change nothing)', () => {
    atBaseline(box);
    expectRefused(box, ['init', '--preset', 'large', '--no-critical-override'], [box.logPath, /already|exists/i]);
  });

  it.each([
    [['--preset', 'huge'], /preset/i],
    [['--stall-threshold', 'two'], /stall[-_ ]?threshold/i],
    [['--stall-threshold', '0'], /stall[-_ ]?threshold/i],
    [['--max-rounds', '0'], /max[-_ ]?rounds/i],
    [['--divergence-threshold=-3'], /divergence[-_ ]?threshold/i],
  ])('init %s is refused as invalid input and creates no log', (flags, mention) => {
    expectRefused(box, ['init', ...flags], [mention]);
    expect(existsSync(box.logPath)).toBe(false);
  });

  it.each([['state'], ['status'], ['replay'], ['gap', 'open', 'GAP-N1', '--severity', 'LOW'], ['round', 'start'], ['decide', 'pause']])(
    '`%s` with no session is refused, pointing to init, and creates nothing',
    (...argv) => {
      expectRefused(box, argv, [/init/]);
      expect(existsSync(box.dir)).toBe(false);
    },
  );
});

describe('usage errors exit 2', () => {
  it('an unknown command is a usage error naming the command', () => {
    atBaseline(box);
    expectRefused(box, ['frobnicate'], [word('frobnicate')], 2);
  });

  it('an unknown option is a usage error naming the option', () => {
    atBaseline(box);
    expectRefused(box, ['state', '--verbose'], [/--verbose/], 2);
  });

  it('an unknown option on a writing command is a usage error and writes nothing', () => {
    atBaseline(box);
    expectRefused(box, ['gap', 'open', 'GAP-N1', '--severity', 'LOW', '--colour', 'red'], [/--colour/], 2);
  });

  it('a missing positional is a usage error naming what is missing', () => {
    inRoundOne(box);
    expectRefused(box, ['gap', 'move', 'GAP-H1'], [/STATE/], 2);
  });

  it('gap open without --severity is a usage error naming --severity', () => {
    inRoundOne(box);
    expectRefused(box, ['gap', 'open', 'GAP-N1'], [/--severity/], 2);
  });

  it('an unknown gap subcommand is a usage error naming it', () => {
    inRoundOne(box);
    expectRefused(box, ['gap', 'close', 'GAP-H1'], [word('close')], 2);
  });

  it('an extra positional is a usage error naming it', () => {
    atBaseline(box);
    expectRefused(box, ['state', 'everything'], [word('everything')], 2);
  });

  it.each([
    [['round'], ['start', 'close']],
    [['gap'], ['open', 'move', 'severity']],
    [['decide'], ['narrow-scope', 'pause', 'approve']],
  ])('`%s` with no subcommand (and --dir given) is a usage error listing the subcommands, not blaming --dir', (argv, choices) => {
    atBaseline(box);
    const result = expectRefused(box, argv, words(...choices), 2);
    expect(result.stderr).not.toContain('"--dir"');
    expect(result.stderr).not.toContain(box.dir);
  });
});

describe('a malformed log: every command exits 1 naming the line', () => {
  /*
   * The log these corruptions start from (built through the CLI):
   *   1 session.started  2 gap.opened GAP-H1 (HIGH)  3 gap.opened GAP-L1 (LOW)
   *   4 round.started 1  5 gap.moved GAP-H1 -> IN_PROGRESS
   */
  function buildLog(): string[] {
    box.ok('init');
    box.steps('gap open GAP-H1 --severity HIGH', 'gap open GAP-L1 --severity LOW', 'round start', 'gap move GAP-H1 IN_PROGRESS');
    const lines = box.logLines();
    expect(lines).toHaveLength(5);
    expect(lines[4]).toContain('"to":"IN_PROGRESS"');
    return lines;
  }
  const joined = resealed;
  const event = (seq: number, type: string, data: Record<string, unknown>) =>
    JSON.stringify({ v: EVENT_VERSION, seq, id: `hand-${seq}`, at: '2026-01-12T10:00:00.000Z', type, data });

  const corruptions: { name: string; line: number; mentions: RegExp[]; corrupt: (lines: string[]) => string }[] = [
    {
      name: 'a line that is not JSON',
      line: 3,
      mentions: [/JSON/i],
      corrupt: (l) => joined([l[0]!, l[1]!, 'GAP-L1 LOW opened by hand', l[3]!, l[4]!]),
    },
    {
      name: 'a JSON line cut short',
      line: 4,
      mentions: [/JSON/i],
      corrupt: (l) => joined([l[0]!, l[1]!, l[2]!, l[3]!.slice(0, 25), l[4]!]),
    },
    {
      name: 'a valid JSON line with a bad severity',
      line: 3,
      mentions: [/severity/i],
      corrupt: (l) => joined(l.map((line, i) => (i === 2 ? line.replace('"LOW"', '"URGENT"') : line))),
    },
    {
      name: 'a valid JSON line of an unknown event type',
      line: 2,
      mentions: [/type/i],
      corrupt: (l) => joined(l.map((line, i) => (i === 1 ? line.replace('"gap.opened"', '"gap.invented"') : line))),
    },
    {
      name: 'an event version this gapflow does not read',
      line: 2,
      mentions: [/version/i],
      corrupt: (l) => joined(l.map((line, i) => (i === 1 ? line.replace(`"v":${EVENT_VERSION}`, `"v":${EVENT_VERSION + 1}`) : line))),
    },
    {
      name: 'a seq gap (line 3 deleted)',
      line: 3,
      mentions: [/seq/i],
      corrupt: (l) => joined([l[0]!, l[1]!, l[3]!, l[4]!]),
    },
    {
      name: 'a repeated seq',
      line: 4,
      mentions: [/seq/i],
      corrupt: (l) => joined(l.map((line, i) => (i === 3 ? line.replace('"seq":4', '"seq":3') : line))),
    },
    {
      name: 'a last line with no newline (a torn write)',
      line: 5,
      mentions: [],
      corrupt: (l) => `${joined(l.slice(0, 4))}${l[4]!.slice(0, 30)}`,
    },
  ];

  const commands: string[][] = [
    ['state'],
    ['state', '--json'],
    ['status'],
    ['status', '--write'],
    ['prompt'],
    ['summary'],
    ['replay'],
    ['gap', 'open', 'GAP-N1', '--severity', 'LOW'],
    ['gap', 'move', 'GAP-L1', 'IN_PROGRESS'],
    ['gap', 'severity', 'GAP-L1', 'MEDIUM'],
    ['round', 'start'],
    ['round', 'close'],
    ['decide', 'pause'],
    ['decide', 'approve', '--accept-critical', '--rationale', 'done'],
  ];

  describe.each(corruptions)('$name', ({ line, mentions, corrupt }) => {
    beforeEach(() => {
      box.writeLog(corrupt(buildLog()));
    });

    it.each(commands)('`%s %s` exits 1 naming line ' + String(line), (...argv) => {
      const named = [new RegExp(`line ${line}\\b`), /events\.jsonl/, ...mentions];
      if (argv.includes('--json')) expect(expectRefusedAsJson(box, argv, 1, named).code).toBe('log_error');
      else expectRefused(box, argv, named);
    });

    it('status --write writes no status.md', () => {
      expectRefused(box, ['status', '--write'], [new RegExp(`line ${line}\\b`)]);
      expect(existsSync(box.statusPath)).toBe(false);
    });
  });

  /*
   * Sealed lines that break today's rules are history, not damage (rule
   * R19): the log opens as it was recorded, and `verify` names each line
   * today's rules would refuse, without failing.
   */
  const ruleBreaks: { name: string; line: number; mentions: RegExp[]; corrupt: (lines: string[]) => string }[] = [
    {
      name: 'a hand-edited gap.moved to a state the gap cannot reach (OPEN -> ACCEPTED)',
      line: 5,
      mentions: [word('GAP-H1'), word('OPEN')],
      corrupt: (l) => joined(l.map((line, i) => (i === 4 ? line.replace('"to":"IN_PROGRESS"', '"to":"ACCEPTED"') : line))),
    },
    {
      name: 'a hand-added gap.opened for an id that exists',
      line: 6,
      mentions: [word('GAP-L1'), /already exists/],
      corrupt: (l) => joined([...l, event(6, 'gap.opened', { id: 'GAP-L1', severity: 'HIGH', title: '', blocking: true })]),
    },
    {
      name: 'a hand-added round.closed for a round that is not open',
      line: 7,
      mentions: [/no round is open/],
      corrupt: (l) => joined([...l, event(6, 'round.closed', { round: 1 }), event(7, 'round.closed', { round: 1 })]),
    },
  ];

  describe.each(ruleBreaks)('$name', ({ line, mentions, corrupt }) => {
    beforeEach(() => {
      box.writeLog(corrupt(buildLog()));
    });

    it.each(commands.filter(([name]) => !['gap', 'round', 'decide', 'summary'].includes(name!)))('`%s %s` reads the log as recorded (exit 0)', (...argv) => {
      const result = box.gf(...argv);
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
    });

    it(`verify exits 0 and names line ${line} as a finding; --strict exits 3`, () => {
      const result = box.ok('verify');
      const finding = result.stdout.split('\n').find((text) => text.startsWith(`  line ${line}: `));
      expect(finding, result.stdout).toBeDefined();
      for (const mention of mentions) expect(finding).toMatch(mention);
      expect(box.gf('verify', '--strict').code).toBe(3);
    });
  });

  it('init over a malformed log is refused (a log exists) and leaves it as it was', () => {
    box.writeLog(joined([...buildLog(), 'not json']));
    expectRefused(box, ['init'], [box.logPath]);
  });

  it('an empty log is refused by every reading command, naming the log', () => {
    box.writeLog('');
    for (const argv of [['state'], ['replay'], ['round', 'start']]) expectRefused(box, argv, [/events\.jsonl/, /empty|session\.started/i]);
  });
});
