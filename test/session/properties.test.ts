import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import {
  LogError,
  Refusal,
  replay,
  type GapflowEvent,
  type GapState,
  type Session,
  type SessionSettings,
  type SessionView,
  type Severity,
} from '../../src/index.js';
import { parseLines, formatLines } from '../../src/log/index.js';
import { renderStatus } from '../../src/render/index.js';
import { decodeView, encodeView, toStateJson } from '../../src/core/index.js';
import { renderPrompt } from '../../src/render/index.js';
import { catchUp } from '../../src/session/writes.js';
import { newSession, WEIGHT } from '../support.js';
import { applyCommand, FACTOR, invalidCommands, isClosed, play, scriptArb, seen, settingsArb, tally, type Model, type Played } from './model.js';

/*
 * Properties over random valid sessions (issue 3, point 2). Every figure is
 * recomputed here from the commands issued or the events logged, with the
 * rulings' own formulas, never read back from the code under test.
 */

const TIMEOUT = 120_000;
const sessions = fc.tuple(settingsArb, scriptArb());

afterAll(() => {
  const states = [...seen.states].sort().join(', ');
  const outcomes = [...seen.outcomes].sort().join(', ');
  console.log(`property suite: ${seen.sessions} sessions, ${seen.commands} commands, ${seen.events} events; states reached: ${states}; outcomes: ${outcomes}`);
});

/** R9: one decimal only when the count is fractional. */
const format = (n: number) => (Number.isInteger(n) ? String(n) : n.toFixed(1));

/** R9 over an inventory: each gap counts its state's factor, weighted by its severity. */
function r9(gaps: Iterable<{ state: GapState; severity: Severity }>): { count: number; weighted: number } {
  let count = 0;
  let weighted = 0;
  for (const gap of gaps) {
    count += FACTOR[gap.state];
    weighted += FACTOR[gap.state] * WEIGHT[gap.severity];
  }
  return { count, weighted };
}

/** The way `gapflow replay` reads a log: JSONL text, parsed, then replayed. */
function replayFromLines(events: readonly GapflowEvent[]): SessionView {
  return replay(parseLines(formatLines(events).text, 'log'));
}

describe('property: random valid sessions', () => {
  it(
    'the view after each command equals a fresh replay of that prefix of the log',
    () => {
      fc.assert(
        fc.property(sessions, ([settings, script]) => {
          const checkPrefix = ({ session: s }: Played) => {
            const replayed = replay(s.log.read());
            expect(replayed).toStrictEqual(s.view);
            expect(renderStatus(replayed)).toBe(renderStatus(s.view));
          };
          const played = play(settings, script, checkPrefix);
          // The whole log once more the way `gapflow replay` reads it: JSONL text, parsed, replayed.
          const s = played.session;
          const fromLines = replayFromLines(s.log.read());
          expect(fromLines).toStrictEqual(s.view);
          expect(renderStatus(fromLines)).toBe(renderStatus(s.view));
          tally(played);
        }),
        { numRuns: 200 },
      );
    },
    TIMEOUT,
  );

  it(
    'a checkpoint of any prefix, read back and caught up with the rest of the log, is the view a replay builds',
    () => {
      fc.assert(
        fc.property(sessions, fc.double({ min: 0, max: 1, noNaN: true }), ([settings, script], where) => {
          const { session: s } = play(settings, script);
          const events = s.log.read();
          const cut = Math.max(1, Math.round(where * events.length));
          const checkpoint = decodeView(encodeView(replay(events.slice(0, cut))));
          expect(checkpoint).not.toBeNull();
          const resumed = cut < events.length ? catchUp(checkpoint!, events.slice(cut)).view : checkpoint!;
          // toEqual, not toStrictEqual: JSON keeps no undefined field, and none of them shows.
          expect(resumed).toEqual(s.view);
          expect(renderStatus(resumed)).toBe(renderStatus(s.view));
          expect(renderPrompt(resumed)).toBe(renderPrompt(s.view));
          expect(JSON.stringify(toStateJson(resumed))).toBe(JSON.stringify(toStateJson(s.view)));
        }),
        { numRuns: 150 },
      );
    },
    TIMEOUT,
  );

  it('moves the last seq and its time past a close that cannot be judged (an old line with no round open), in replay and in a catch-up alike', () => {
    // Given a session, and an old round close (recorded before outcomes were) with no round open: settled as nothing.
    const session = newSession();
    session.openGap('G-1', 'LOW');
    const events = session.log.read();
    const close = {
      v: 3,
      seq: events.length + 1,
      id: 'old-close',
      at: '2026-01-12T10:00:00.000Z',
      type: 'round.closed',
      data: { round: 1 },
    } as unknown as GapflowEvent;
    // When it is folded by replay, and caught up on from the view before it,
    const replayed = replay([...events, close]);
    const caughtUp = catchUp(replay(events), [close]).view;
    // Then both count it and take its time, and nothing else changed.
    for (const view of [replayed, caughtUp]) {
      expect(view).toMatchObject({ lastSeq: events.length + 1, lastAt: '2026-01-12T10:00:00.000Z', roundOpen: false });
      expect(view.gaps).toEqual(session.view.gaps);
    }
  });

  it(
    'the open count and weighted open equal R9 over the inventory the commands left',
    () => {
      const check = ({ session: s, model }: Played) => {
        const view = s.view;
        const inventory = [...view.gaps.values()].map(({ id, state, severity }) => [id, { state, severity }]);
        expect(Object.fromEntries(inventory)).toEqual(Object.fromEntries(model.gaps));
        const { count, weighted } = r9(model.gaps.values());
        expect(view.open).toEqual({ count, weighted });
      };
      fc.assert(
        fc.property(sessions, ([settings, script]) => {
          const played = play(settings, script, check);
          check(played);
          // state --json and status.md once per session: rendering them at every step would dominate the run.
          const { count, weighted } = r9(played.model.gaps.values());
          expect(toStateJson(played.session.view)).toMatchObject({ openGapCount: count, weightedOpen: weighted });
          expect(renderStatus(played.session.view)).toContain(`Open count: ${format(count)} (weighted ${format(weighted)})`);
          tally(played);
        }),
        { numRuns: 1000 },
      );
    },
    TIMEOUT,
  );

  it(
    "each round's Open End is its Open Start plus its events, and the next Open Start adds the decisions between",
    () => {
      fc.assert(
        fc.property(sessions, ([settings, script]) => {
          const played = play(settings, script);
          checkRounds(played.session);
          tally(played);
        }),
        { numRuns: 400 },
      );
    },
    TIMEOUT,
  );

  it(
    'flatCount never exceeds the stall threshold N',
    () => {
      fc.assert(
        fc.property(sessions, ([settings, script]) => {
          const played = play(settings, script, ({ session: s, model }) => checkFlatCount(s.view, settings, model));
          tally(played);
        }),
        { numRuns: 400 },
      );
    },
    TIMEOUT,
  );

  it(
    'COMPLETE absorbs everything: every later command is refused and the log stays as it was',
    () => {
      const after = fc.array(fc.tuple(fc.nat(), fc.nat(), fc.constantFrom(...(Object.keys(WEIGHT) as Severity[]))), { minLength: 1, maxLength: 6 });
      fc.assert(
        fc.property(sessions, fc.nat(), after, ([settings, script], ending, attempts) => {
          const played = play(settings, script);
          complete(played.session, ending);
          const s = played.session;
          expect(s.view.machine.state).toBe('COMPLETE');
          for (const [a, b, severity] of attempts) {
            for (const body of anything(played.model, a, b, severity)) expectRefusedUnchanged(s, body);
          }
          tally(played);
        }),
        { numRuns: 200 },
      );
    },
    TIMEOUT,
  );

  it(
    'random invalid commands are refused (Refusal or LogError only) and change nothing',
    () => {
      fc.assert(
        fc.property(sessions, fc.array(fc.nat(), { minLength: 40, maxLength: 40 }), ([settings, script], choices) => {
          let i = 0;
          const tryInvalid = ({ session: s, model }: Played) => {
            const candidates = invalidCommands(s.view, model, choices[i % choices.length]!);
            expectRefusedUnchanged(s, candidates[choices[(i + 1) % choices.length]! % candidates.length]!);
            i += 1;
          };
          const played = play(settings, script, tryInvalid);
          tryInvalid(played);
          tally(played);
        }),
        { numRuns: 250 },
      );
    },
    TIMEOUT,
  );
});

/** Records `body` raw and expects a one-line Refusal or LogError with the log and view exactly as before. */
function expectRefusedUnchanged(s: Session, body: unknown): void {
  const view = s.view;
  const events = s.log.read();
  const text = formatLines(events).text;
  let thrown: unknown = null;
  try {
    // Malformed on purpose: the library must refuse whatever a caller passes.
    s.record(body as Parameters<Session['record']>[0]);
  } catch (error) {
    thrown = error;
  }
  const shown = JSON.stringify(body);
  expect(thrown, `accepted: ${shown}`).not.toBeNull();
  expect(thrown instanceof Refusal || thrown instanceof LogError, `${String(thrown)} for ${shown}`).toBe(true);
  expect((thrown as Error).message).toMatch(/^[^\n]+$/);
  expect(s.view).toBe(view);
  expect(s.log.read()).toEqual(events);
  expect(formatLines(s.log.read()).text).toBe(text);
}

/** Ends a session the way the step asks: closes an open round, then approves, forces or abandons. */
function complete(s: Session, ending: number): void {
  if (s.view.machine.state === 'PAUSED') s.makeDecision('resume');
  if (s.view.roundOpen) s.closeRound();
  const state = s.view.machine.state;
  if (state === 'COMPLETE') return;
  const choices = state === 'DIVERGENCE_WARNING' ? ['abandon', 'force_complete'] : ['abandon', 'approve'];
  const kind = choices[ending % choices.length]!;
  if (kind === 'approve') s.makeDecision('approve', { acceptCritical: true, rationale: 'done' });
  else applyCommand(s, { t: 'decide', kind: kind as 'abandon' | 'force_complete' });
}

/** Every kind of request, most of which a session before COMPLETE would take. */
function anything(model: Model, a: number, b: number, severity: Severity): unknown[] {
  const ids = [...model.gaps.keys()];
  const id = ids.length > 0 ? ids[a % ids.length]! : 'G-1';
  const to = (Object.keys(FACTOR) as GapState[])[b % 9]!;
  return [
    { type: 'gap.opened', data: { id: `N-${a}`, severity } },
    { type: 'gap.moved', data: { id, to } },
    { type: 'gap.severity_changed', data: { id, to: severity } },
    { type: 'round.started', data: { round: (a % 12) + 1 } },
    { type: 'round.closed', data: { round: (b % 12) + 1 } },
    { type: 'decision.made', data: { kind: ['pause', 'resume', 'abandon', 'accept_complexity', 'force_complete'][a % 5] } },
    { type: 'decision.made', data: { kind: 'approve', acknowledgment: 'critical_risk', rationale: 'again' } },
    { type: 'decision.made', data: { kind: 'narrow_scope', gaps: [id] } },
    { type: 'session.started', data: {} },
  ];
}

/**
 * Recomputes each round's figures from the log with R6, R7, R9 and R10:
 * what every event does to the open count, which moves count as resolved or
 * new, and how a severity change moves the weighted figures.
 */
function checkRounds(s: Session): void {
  const view = s.view;
  const gaps = new Map<string, { state: GapState; severity: Severity }>();
  let drift = { count: 0, weighted: 0 };
  let previousEnd = { count: 0, weighted: 0 };
  let figures = { resolved: 0, new: 0, weightedResolved: 0, weightedNew: 0 };
  let inRound = false;
  const shift = (state: GapState, to: GapState, severity: Severity) => {
    const change = FACTOR[to] - FACTOR[state];
    drift = { count: drift.count + change, weighted: drift.weighted + change * WEIGHT[severity] };
  };
  for (const event of s.log.read()) {
    switch (event.type) {
      case 'round.started': {
        const round = view.rounds[event.data.round - 1]!;
        expect([round.openStart, round.weightedOpenStart]).toEqual([previousEnd.count + drift.count, previousEnd.weighted + drift.weighted]);
        drift = { count: 0, weighted: 0 };
        figures = { resolved: 0, new: 0, weightedResolved: 0, weightedNew: 0 };
        inRound = true;
        break;
      }
      case 'round.closed': {
        const round = view.rounds[event.data.round - 1]!;
        expect([round.openEnd, round.weightedOpenEnd]).toEqual([round.openStart + drift.count, round.weightedOpenStart + drift.weighted]);
        expect(round).toMatchObject({
          ...figures,
          unweightedNet: figures.resolved - figures.new,
          weightedNet: figures.weightedResolved - figures.weightedNew,
        });
        previousEnd = { count: round.openEnd!, weighted: round.weightedOpenEnd! };
        drift = { count: 0, weighted: 0 };
        inRound = false;
        break;
      }
      case 'gap.opened': {
        const { id, severity } = event.data;
        gaps.set(id, { state: 'OPEN', severity });
        drift = { count: drift.count + 1, weighted: drift.weighted + WEIGHT[severity] };
        if (inRound) figures = { ...figures, new: figures.new + 1, weightedNew: figures.weightedNew + WEIGHT[severity] };
        break;
      }
      case 'gap.moved': {
        const gap = gaps.get(event.data.id)!;
        const { to } = event.data;
        shift(gap.state, to, gap.severity);
        const weight = WEIGHT[gap.severity];
        if (inRound && isClosed(to) && !isClosed(gap.state)) {
          figures = { ...figures, resolved: figures.resolved + 1, weightedResolved: figures.weightedResolved + weight };
        } else if (inRound && isClosed(gap.state) && !isClosed(to)) {
          figures = { ...figures, new: figures.new + 1, weightedNew: figures.weightedNew + weight };
        }
        gap.state = to;
        break;
      }
      case 'gap.severity_changed': {
        const gap = gaps.get(event.data.id)!;
        const delta = WEIGHT[event.data.to] - WEIGHT[gap.severity];
        drift = { ...drift, weighted: drift.weighted + FACTOR[gap.state] * delta };
        if (inRound && FACTOR[gap.state] === 1) {
          if (delta > 0) figures = { ...figures, weightedNew: figures.weightedNew + delta };
          else figures = { ...figures, weightedResolved: figures.weightedResolved - delta };
        }
        gap.severity = event.data.to;
        break;
      }
      case 'decision.made':
        if (event.data.kind === 'narrow_scope') {
          for (const id of event.data.gaps ?? []) {
            const gap = gaps.get(id)!;
            shift(gap.state, 'USER_DEFERRED', gap.severity);
            gap.state = 'USER_DEFERRED';
          }
        }
        break;
      case 'session.started':
        break;
    }
  }
  // A round still open, or the time after the last close: the live count carries the same drift.
  const from = inRound ? view.rounds.at(-1)! : null;
  const start = from ? { count: from.openStart, weighted: from.weightedOpenStart } : previousEnd;
  expect(view.open).toEqual({ count: start.count + drift.count, weighted: start.weighted + drift.weighted });
}

/** R13: the stall threshold from explicit settings, else the preset (auto sized by the baseline), else 2. */
function stallThreshold(settings: SessionSettings, baselineGaps: number): number {
  if (settings.stallThreshold !== undefined) return settings.stallThreshold;
  const byPreset = { simple: 2, complex: 3, large: 4 } as const;
  if (settings.preset === 'auto') return byPreset[baselineGaps < 10 ? 'simple' : baselineGaps < 30 ? 'complex' : 'large'];
  return settings.preset ? byPreset[settings.preset] : 2;
}

/** R1 and R4: flatCount counts flat rounds up to N; CONVERGING has none, FLAT fewer than N. */
function checkFlatCount(view: SessionView, settings: SessionSettings, model: Model): void {
  if (model.baselineGaps === null) {
    expect(view.machine.flatCount).toBe(0);
    return;
  }
  const n = stallThreshold(settings, model.baselineGaps);
  const { state, flatCount } = view.machine;
  expect(flatCount).toBeLessThanOrEqual(n);
  for (const round of view.rounds) expect(round.flatCount ?? 0).toBeLessThanOrEqual(n);
  if (state === 'CONVERGING') expect(flatCount).toBe(0);
  if (state === 'FLAT') {
    expect(flatCount).toBeGreaterThanOrEqual(1);
    expect(flatCount).toBeLessThan(n);
  }
}
