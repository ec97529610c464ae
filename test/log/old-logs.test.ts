import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { openFileSession, Refusal, verifyFileSession, type GapflowEvent, type Session } from '../../src/index.js';
import { type StateJson, toStateJson } from '../../src/core/index.js';
import { renderStatus, terminalMarkdown } from '../../src/render/index.js';
import { runCli } from '../cli/helpers.js';

/*
 * Logs written by released versions of gapflow (test/fixtures/old-logs/README.md):
 * whatever the code becomes, each must open with the figures that version
 * printed, and take the next event. The fixtures are never regenerated.
 */

const OLD_LOGS = fileURLToPath(new URL('../fixtures/old-logs', import.meta.url));
/** Written before 843e0be with a setting today's rules refuse: it opens all the same (R19), and verify names the line. */
const PRE_843E0BE = 'pre-843e0be-atoms-divergence-threshold';

/** Folders of each later event version, written by the same commands.sh (v3: round closes and decisions carry their outcome; v4: every round close carries its combined verdict; v5: the gap moves of issue 15, with `gap-moves` of its own; v6: the ping-pong setting and the verification gate, the v5 sessions made again). */
const VERSIONED = ['v3', 'v4', 'v5', 'v6'];

const folders = (under: string) =>
  readdirSync(join(OLD_LOGS, under), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name);
const fixtures = [
  ...folders('.').filter((name) => !VERSIONED.includes(name)),
  ...VERSIONED.flatMap((version) => folders(version).map((name) => `${version}/${name}`)),
].sort();
const opening = fixtures.filter((name) => name !== PRE_843E0BE);
/** The session a fixture plays: `v3/mixed` is `mixed` made again by a later version. */
const playOf = (name: string) => name.replace(/^v\d+\//, '');

/** A live session's next request, as its user would make it, and what it must lead to. */
interface NextStep {
  append: (session: Session, dir: string) => readonly GapflowEvent[];
  expect: (state: StateJson) => void;
}

/** Appends through the CLI (`gapflow … --dir DIR`) and returns the events it reports. */
function viaCli(dir: string, ...argv: string[]): readonly GapflowEvent[] {
  const result = runCli([...argv, '--dir', dir, '--json'], { cwd: dir });
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  return (JSON.parse(result.stdout) as { events: GapflowEvent[] }).events;
}

/**
 * What each fixture takes next, keyed by the session it plays, or by its folder where the version that made it
 * recorded that session differently. Nothing is accepted after COMPLETE (R12), so a COMPLETE log must refuse the
 * next event with the session's outcome and stay byte for byte as it was.
 */
const NEXT: Record<string, NextStep | { complete: string }> = {
  'gaps-converged': { complete: 'CONVERGED' },
  'gaps-divergence-decisions': { complete: 'USER_APPROVED' },
  'gaps-max-rounds': { complete: 'MAX_ROUNDS' },
  questions: { complete: 'CONVERGED' },
  atoms: { complete: 'CONVERGED' },
  forge: { complete: 'CONVERGED' },
  quality: { complete: 'CONVERGED' },
  abandoned: { complete: 'ABANDONED' },
  'duplicate-reopened': {
    // Recorded as withdrawn and new in round 1 (the older rule); a move now opens round 2 as any other.
    append: (_session, dir) => viaCli(dir, 'gap', 'move', 'A-3', 'RESOLVED'),
    expect: (state) => {
      expect(state).toMatchObject({ state: 'CONVERGING', round: 1, roundOpen: true, openGapCount: 1 });
      expect(state.rounds[0]).toMatchObject({ withdrawn: 1, new: 1 });
    },
  },
  'v6/duplicate-reopened': {
    // Made after the rule changed: round 1 took the withdrawal back (nothing withdrawn, nothing new); a move opens round 2.
    append: (_session, dir) => viaCli(dir, 'gap', 'move', 'A-3', 'RESOLVED'),
    expect: (state) => {
      expect(state).toMatchObject({ state: 'CONVERGING', round: 1, roundOpen: true, openGapCount: 1 });
      expect(state.rounds[0]).toMatchObject({ new: 0 });
      expect(state.rounds[0]).not.toHaveProperty('withdrawn');
    },
  },
  'gap-moves': {
    // Round 3 closed with the focus standing; one more resolution opens round 4 under the raised limit.
    append: (_session, dir) => viaCli(dir, 'gap', 'move', 'GAP-4', 'RESOLVED'),
    expect: (state) => {
      expect(state).toMatchObject({ state: 'CONVERGING', round: 3, roundOpen: true, openGapCount: 1, config: { maxRounds: 13 } });
    },
  },
  mixed: {
    // Round 5 is open, waiting for quality: 84 -> 85.5 converges only if the earlier iterations count.
    append: (session) => session.recordMetrics('quality', { score: 85.5 }).events,
    expect: (state) => {
      expect(state).toMatchObject({ state: 'CONVERGING', round: 4, roundOpen: true });
      expect(state.policies.find((p) => p.name === 'quality')).toMatchObject({ verdict: 'converged', iterations: 5 });
    },
  },
  'hook-bound': {
    // Paused after a flat round 2; resume returns there. Through the CLI, as the user would.
    append: (_session, dir) => viaCli(dir, 'decide', 'resume'),
    expect: (state) => {
      expect(state).toMatchObject({ state: 'FLAT', flatCount: 1, pausedFrom: null, agentSession: '9b2d7e41-0c6a-4f1e-b8d3-5a7c9e2f1b60' });
    },
  },
  'policies-flat': {
    // Round 4 was flat for all three; questions recording first opens round 5 and judges 6 -> 4 against the history.
    append: (session) => session.recordMetrics('questions', { open: 4, high: 6, medium: 4 }).events,
    expect: (state) => {
      expect(state).toMatchObject({ state: 'FLAT', round: 4, roundOpen: true, flatCount: 1 });
      expect(state.policies.find((p) => p.name === 'questions')).toMatchObject({ verdict: 'progress', iterations: 5 });
    },
  },
};

const copies: string[] = [];
/** A fresh copy of a fixture folder: tests never write into the committed one. */
function copyOf(name: string): string {
  const root = mkdtempSync(join(tmpdir(), 'gapflow-old-logs-'));
  copies.push(root);
  const dir = join(root, name);
  cpSync(join(OLD_LOGS, name), dir, { recursive: true });
  return dir;
}
afterEach(() => {
  for (const root of copies.splice(0)) rmSync(root, { recursive: true, force: true });
});

function committed(name: string, file: string): string {
  return readFileSync(join(OLD_LOGS, name, file), 'utf8');
}

/*
 * What may differ from what an older version printed, and nothing else:
 * status.md's State Diagram is drawn from the machine this version runs (a
 * picture of the rules, not a figure of the session); and since event
 * version 4 every closed round in state.json carries the combined verdict
 * that drove the machine, which a gaps-only round before it did not show;
 * and since event version 5 a forge round's status.md lists the remaining
 * issues (the concerns of the votes that did not agree), which the older
 * versions kept in the log but did not show; and since issue 16 a gap
 * session that is still live shows its forecast (a line under the round
 * table, and the trend in the chart), and state.json carries it (null once
 * COMPLETE, or without the gap policy). The fixtures themselves are never
 * edited: what this version adds is taken out of its own output.
 */
const DIAGRAM = /(### State Diagram[^\n]*\n\n```mermaid\n)[\s\S]*?\n```\n/;
const REMAINING_ISSUES = /\nRemaining issues \(the concerns of the votes that did not agree\):\n\n(?:- [^\n]*\n)+/g;
const FORECAST_LINE = /\*\*Forecast:\*\* [^\n]*\n\n/;
const TREND_CHART =
  / {2}title "Open count \(first line\), weighted open \(bars\) and its trend \(second line\)"\n {2}x-axis \[([^\]]*)\]\n {2}y-axis "Gaps" 0 --> [^\n]*\n {2}bar \[([^\]]*)\]\n {2}line \[([^\]]*)\]\n {2}line \[[^\]]*\]/;
/** The open chart without the forecast's trend: its line and the rounds ahead taken out, the y-axis fitted to what is left. */
function withoutTrend(status: string): string {
  return status.replace(TREND_CHART, (_, labels: string, bars: string, counts: string) => {
    const kept = labels.split(', ').filter((label) => !label.endsWith('?"')).length;
    const cut = (list: string) => list.split(', ').slice(0, kept);
    const top = Math.max(1, ...[...cut(bars), ...cut(counts)].map(Number));
    return [
      '  title "Open count (line) and weighted open (bars)"',
      `  x-axis [${cut(labels).join(', ')}]`,
      `  y-axis "Gaps" 0 --> ${top}`,
      `  bar [${cut(bars).join(', ')}]`,
      `  line [${cut(counts).join(', ')}]`,
    ].join('\n');
  });
}
/**
 * Since d06bbde (issue 15 item 12e) `gapflow status` prints the terminal's spelling of <, > and & (backslash
 * escapes; the file `status --write` writes keeps the entities), so the status.md commands.sh kept from a version
 * after it (v6 on) holds that spelling: the library's document is compared with it in that spelling.
 */
const PRINTED_FOR_TERMINAL = ['v6'];
const asSpelt = (name: string, status: string) => (PRINTED_FOR_TERMINAL.includes(name.split('/')[0]!) ? terminalMarkdown(status) : status);
const withoutDiagram = (status: string) =>
  withoutTrend(status.replace(DIAGRAM, '$1(drawn from the machine)\n```\n').replace(REMAINING_ISSUES, '').replace(FORECAST_LINE, ''));

/**
 * What `verify`'s audit says of a fixture whose rules changed since (R19:
 * the log opens with what it recorded; the audit says where today's rules
 * would have decided otherwise). Every other fixture has no finding.
 */
const AUDIT: Record<string, unknown[]> = {
  // Round 1 counted a duplicate reopened in its round as withdrawn and new; today's rule takes the withdrawal back.
  'v5/duplicate-reopened': [{ kind: 'decided_differently', line: 9, type: 'round.closed' }],
};

type Round = StateJson['rounds'][number];
/**
 * The rounds as the older version printed them, once each added verdict is checked to be the round's one policy verdict;
 * the forecast is kept where that version printed one (event version 6 on), and compared like every other figure.
 */
function asPrinted(withForecast: StateJson, printed: { rounds: Round[] }): StateJson {
  const { forecast, ...state } = withForecast;
  expect(forecast === null || state.state !== 'COMPLETE', 'a forecast for a COMPLETE session').toBe(true);
  const rounds = state.rounds.map((round, i) => {
    if (printed.rounds[i] === undefined || 'verdict' in printed.rounds[i]!) return round;
    const { verdict, ...rest } = round;
    const [only] = round.verdicts;
    expect(round.verdicts, `round ${round.round}: a verdict added where one policy decided`).toHaveLength(1);
    expect(verdict).toEqual({ verdict: only!.verdict, reason: only!.reason, policies: [only!.policy] });
    return rest as Round;
  });
  return { ...state, ...('forecast' in printed ? { forecast } : {}), rounds } as StateJson;
}

describe('old logs: the released versions’ logs open with the figures they printed, and take the next event', () => {
  it('every fixture folder holds its four files, and every one but the pre-843e0be log has a next step here', () => {
    expect(fixtures).toContain(PRE_843E0BE);
    for (const name of fixtures) {
      const files = readdirSync(join(OLD_LOGS, name));
      expect(files, name).toEqual(expect.arrayContaining(['commands.sh', 'events.jsonl', 'state.json', 'status.md']));
    }
    expect(
      Object.keys(NEXT)
        .filter((key) => !key.includes('/'))
        .sort(),
    ).toEqual([...new Set(opening.map(playOf))].sort());
    for (const key of Object.keys(NEXT).filter((key) => key.includes('/'))) expect(opening, key).toContain(key);
    for (const version of VERSIONED) expect(folders(version).length, version).toBeGreaterThan(0);
  });

  describe.each(opening)('%s', (name) => {
    it('opens with the committed state.json and status.md (library and CLI)', { timeout: 30_000 }, () => {
      const dir = copyOf(name);
      const session = openFileSession(dir);
      const printed = JSON.parse(committed(name, 'state.json')) as StateJson;
      expect(asPrinted(toStateJson(session.view), printed)).toEqual(printed);
      expect(withoutDiagram(asSpelt(name, renderStatus(session.view)))).toBe(withoutDiagram(committed(name, 'status.md')));
      const state = runCli(['state', '--json', '--dir', dir], { cwd: dir });
      expect({ ...state, stdout: asPrinted(JSON.parse(state.stdout) as StateJson, printed) }).toEqual({ code: 0, stdout: printed, stderr: '' });
      // Printed, the same document with the terminal's spelling of <, > and & (backslash escapes, not the file's entities).
      const status = runCli(['status', '--dir', dir], { cwd: dir });
      expect({ ...status, stdout: withoutDiagram(status.stdout) }).toEqual({
        code: 0,
        stdout: withoutDiagram(terminalMarkdown(committed(name, 'status.md'))),
        stderr: '',
      });
      expect(verifyFileSession(dir)).toMatchObject({ problem: null, findings: AUDIT[name] ?? [] });
    });

    it('takes the next event its state allows, appended after the old lines', { timeout: 30_000 }, () => {
      const dir = copyOf(name);
      const log = join(dir, 'events.jsonl');
      const before = readFileSync(log);
      const session = openFileSession(dir);
      const count = toStateJson(session.view).eventCount;
      const next = NEXT[name] ?? NEXT[playOf(name)]!;

      if ('complete' in next) {
        expect(toStateJson(session.view)).toMatchObject({ state: 'COMPLETE', outcome: next.complete });
        expect(() => session.makeDecision('pause')).toThrow(Refusal);
        expect(() => session.makeDecision('pause')).toThrow(`decision.made pause: the session is COMPLETE (${next.complete}); nothing more can be recorded`);
        expect(readFileSync(log).equals(before)).toBe(true);
        return;
      }

      const appended = next.append(session, dir);
      expect(appended.length).toBeGreaterThan(0);
      expect(appended[0]!.seq).toBe(count + 1);
      const after = readFileSync(log);
      expect(after.subarray(0, before.length).equals(before), 'the old lines are kept byte for byte').toBe(true);
      expect(verifyFileSession(dir).problem).toBeNull();
      const reopened = toStateJson(openFileSession(dir).view);
      expect(reopened.eventCount).toBe(count + appended.length);
      next.expect(reopened);
    });
  });
});

describe(`old logs: ${PRE_843E0BE}`, () => {
  const refusal = committed(PRE_843E0BE, 'released-refusal.txt');
  /** The recorded line names the log where it was made; the rest must match word for word. */
  const withoutPath = (line: string) => line.replace(/^gapflow: .*?events\.jsonl line /, 'gapflow: <log> line ');

  it('the recorded refusal is one line naming line 1 and the gap-only setting', () => {
    expect(refusal.endsWith('\n')).toBe(true);
    expect(refusal.slice(0, -1)).not.toContain('\n');
    expect(withoutPath(refusal)).toBe(
      'gapflow: <log> line 1: session.started: divergenceThreshold: a setting of the gap policy, which this session does not enable (add gaps to --policy, or leave it out)\n',
    );
  });

  it("opens with the figures the version that wrote it printed; verify lists today's refusal as a finding, exit 0; it takes the next record", {
    timeout: 30_000,
  }, () => {
    const dir = copyOf(PRE_843E0BE);
    const log = join(dir, 'events.jsonl');
    const before = readFileSync(log);
    // An atoms session has no forecast: the key this version adds is null, and the rest is as printed.
    const state = runCli(['state', '--json', '--dir', dir], { cwd: dir });
    expect(state.stdout).toContain('\n  "forecast": null,\n');
    expect({ ...state, stdout: state.stdout.replace('\n  "forecast": null,\n', '\n') }).toEqual({
      code: 0,
      stdout: committed(PRE_843E0BE, 'state.json'),
      stderr: '',
    });
    const verified = runCli(['verify', '--dir', dir], { cwd: dir });
    expect(verified.code).toBe(0);
    // Today's rules refuse it for the same reason; the way out is worded by the CLI (a remedy code), not by the rule.
    const reason = withoutPath(refusal)
      .replace('gapflow: <log> line 1: ', '')
      .replace(/ \(add gaps to --policy, or leave it out\)\n$/, '');
    expect(verified.stdout).toContain(`  line 1: session.started: today's rules refuse it: ${reason}\n`);
    expect(runCli(['verify', '--strict', '--dir', dir], { cwd: dir }).code).toBe(3);
    expect(readFileSync(log).equals(before)).toBe(true);
    const appended = openFileSession(dir).recordMetrics('atoms', { pending: 3, resolved: 2 }).events;
    expect(appended.map((e) => e.type)).toEqual(['round.started', 'metrics.recorded', 'round.closed']);
    expect(toStateJson(openFileSession(dir).view)).toMatchObject({ state: 'CONVERGING', round: 3 });
  });
});

describe('version 4 lines on a version 5 reader', () => {
  it('get the quick look a current line gets: a sealed gap line of a v4 log is never parsed against the schema on a read', async () => {
    const { EVENT_VERSION, GapflowEvent: schema } = await import('../../events/index.js');
    const { scanBytes } = await import('../../src/log/lines.js');
    const bytes = readFileSync(join(OLD_LOGS, 'v4', 'gaps-converged', 'events.jsonl'));
    const gapLines = bytes
      .toString('utf8')
      .split('\n')
      .filter((line) => /"type":"gap\.(opened|moved|severity_changed)"/.test(line)).length;
    expect(gapLines).toBeGreaterThan(10);
    const parse = vi.spyOn(schema, 'safeParse');
    try {
      const scan = scanBytes(bytes);
      expect(scan.fault).toBeNull();
      // Only the rarer lines that carry nested structure (a start, a decision) get the full parse; a round close is looked at whole.
      const full = scan.events.filter(
        (event) => !['gap.opened', 'gap.moved', 'gap.severity_changed', 'round.started', 'round.closed', 'session.bound'].includes(event.type),
      ).length;
      expect(scan.events.some((event) => event.type === 'round.closed')).toBe(true);
      expect(parse.mock.calls.length).toBe(full);
      // Read as the current version's, as upcast reads it.
      expect(new Set(scan.events.map((event) => event.v))).toEqual(new Set([EVENT_VERSION]));
    } finally {
      parse.mockRestore();
    }
  });
});
