import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { replay, type SessionView } from '../../src/index.js';
import {
  closedRoundCount,
  closedRounds,
  hookStep,
  lastClosedRound,
  loopStep,
  roundCount,
  standingStopRequest,
  viewForecast,
  type HookCall,
} from '../../src/core/index.js';
import { answersLoop, decodeHead, decodeHeadSummary, encodeHead, headOf, leavesGapsOut, LISTED_GAPS, summaryOf, SUMMARY_STATES } from '../../src/core/index.js';
import { hookVerdict, nextLine, renderPrompt } from '../../src/render/index.js';
import { fleetRow, warningsOf } from '../../src/fleet/index.js';
import { CONVERGENCE_STATES, EVENT_VERSION, type GapflowEvent, type Severity } from '../../events/index.js';
import { newSession } from '../support.js';
import { play, scriptArb, settingsArb } from '../session/model.js';

/*
 * The head of a view (what `next` and a stop hook read) must answer the
 * loop's questions exactly as the whole view does. Random sessions, cut at
 * random points, asked every question the loop asks: the next step, its
 * line, the decision prompt, and a stop hook's decision and words for each
 * kind of call, and the row a fleet shows of it (the fleet holds heads). The
 * head keeps only 2 rounds here, so most sessions are cut.
 */

const TIMEOUT = 120_000;
/** The model's settings with room for many rounds, so the head has rounds to leave out. */
const longSettings = fc.tuple(settingsArb, fc.integer({ min: 6, max: 40 })).map(([settings, maxRounds]) => ({ ...settings, maxRounds }));
const CALLS: HookCall[] = [
  { agentSession: 'agent-1', event: 'Stop', stopHookActive: false },
  { agentSession: 'agent-1', event: 'Stop', stopHookActive: true },
  { agentSession: 'agent-2', event: 'Stop', stopHookActive: false },
  { agentSession: 'agent-1', event: 'SubagentStop', stopHookActive: false },
];

/** Everything the loop asks of a view, as plain data. */
function answers(view: SessionView) {
  const step = loopStep(view, standingStopRequest(view));
  const hooks = CALLS.flatMap((call) =>
    [0, 4].map((blocks) => {
      const decided = hookStep(view, call, { blocks, maxBlocks: 5 });
      return {
        decision: decided.decision,
        record: decided.record,
        blocks: decided.blocks,
        words: hookVerdict(decided.view, call, decided.context, decided.decision),
      };
    }),
  );
  const row = fleetRow('s', view, Date.UTC(2026, 0, 12, 12));
  return { step, line: nextLine(step), prompt: renderPrompt(view), hooks, round: closedRounds(view).length, forecast: viewForecast(view), row };
}

/** The event with its round number moved up by 10 (round starts and closes, and metrics). */
function shiftRound(event: GapflowEvent): GapflowEvent {
  if (event.type !== 'round.started' && event.type !== 'round.closed') return event;
  return { ...event, data: { ...event.data, round: event.data.round + 10 } } as GapflowEvent;
}

const PADDING: Severity[] = ['LOW', 'CRITICAL', 'MEDIUM', 'HIGH', 'UNTRIAGED'];

/** `events` with `count` more gaps recorded at the baseline, just after the session started (seqs renumbered): an inventory past what a head keeps. */
function withInventory(events: readonly GapflowEvent[], count: number): GapflowEvent[] {
  const [started, ...rest] = events;
  const padding = Array.from(
    { length: count },
    (_, i) =>
      ({
        v: EVENT_VERSION,
        seq: 0,
        id: `pad-${i}`,
        at: '2026-01-12T09:00:00.000Z',
        type: 'gap.opened',
        data: { id: `PAD-${i}`, severity: PADDING[i % PADDING.length]!, title: `padding ${i}`, blocking: true },
      }) as GapflowEvent,
  );
  return [started!, ...padding, ...rest].map((event, i) => ({ ...event, seq: i + 1 }) as GapflowEvent);
}

/** A `session.bound` line at `seq`. */
function bindingEvent(seq: number, agentSession: string): GapflowEvent {
  return { v: EVENT_VERSION, seq, id: `bind-${seq}`, at: '2026-01-12T10:00:00.000Z', type: 'session.bound', data: { agentSession } };
}

describe("the summary in front of a head's text", () => {
  it("names the machine's states as the vocabulary does", () => {
    expect(SUMMARY_STATES).toEqual(CONVERGENCE_STATES);
  });

  it('is read without the view, and refused when it is not the shape a row shows, or the text is not a head', () => {
    const session = newSession();
    session.openGap('G-1', 'HIGH', { title: 'a title with ,"view": in it' });
    const text = encodeHead(session.view);
    expect(decodeHeadSummary(text)).toMatchObject({ state: 'CONVERGING', open: 1, weightedOpen: 4, eventCount: 2, lastEventAt: '2026-01-12T09:00:01.000Z' });
    // The view behind it is not parsed: a damaged view leaves the summary readable, and decodeHead refuses it.
    const damagedView = text.replace('"gaps":[', '"gaps":[}');
    expect(decodeHeadSummary(damagedView)).toMatchObject({ open: 1 });
    expect(decodeHead(damagedView)).toBeNull();
    for (const [field, value] of [
      ['state', '"<b>UP</b>"'],
      ['open', '-1'],
      ['weightedOpen', '"4"'],
      ['eventCount', '2.5'],
      ['lastReason', '7'],
      ['forecast', '"soon"'],
      ['roundOpen', 'null'],
      // A forecast of a reason the fleet's words do not know, or without its ranges, would break the table that shows it.
      ['forecast', '{"reason":"bogus","detail":"x","rounds":null,"finish":null,"window":4,"slope":null}'],
      ['forecast', '{"reason":"declining","detail":"x","window":4,"slope":-1}'],
      ['forecast', '{"reason":"declining","detail":"x","rounds":{"low":1},"finish":null,"window":4,"slope":-1}'],
      ['lastEventAt', '"yesterday"'],
    ] as const) {
      const summary = JSON.stringify({ ...summaryOf(session.view), [field]: JSON.parse(value) });
      const forged = text.replace(/"summary":\{.*?\},"view":/, `"summary":${summary},"view":`);
      expect(forged, field).not.toBe(text);
      expect(decodeHeadSummary(forged), field).toBeNull();
    }
    expect(decodeHeadSummary(text.replace('"summary":', '"summery":'))).toBeNull();
    expect(decodeHeadSummary(text.slice(0, text.indexOf(',"view":')))).toBeNull();
  });
});

describe('counting closed rounds without copying them', () => {
  it('closedRoundCount and lastClosedRound agree with closedRounds on whole views, heads, and a hand-made log that left a round open in the middle', () => {
    const session = newSession({ maxRounds: 40, stallThreshold: 30 });
    session.startRound();
    for (let r = 1; r <= 6; r++) {
      session.openGap(`R-${r}`, 'LOW');
      session.closeRound();
    }
    session.openGap('R-7', 'LOW');
    const events = session.log.read();
    // A second round.started with round 6's close dropped: round 6 stays open in the middle (replay applies it as recorded).
    const start = events.find((e) => e.type === 'round.started' && e.data.round === 7)!;
    const handMade = events
      .filter((e) => !(e.type === 'round.closed' && e.data.round === 6))
      .map((e, i) => ({ ...e, seq: i + 1 }) as GapflowEvent)
      .concat([{ ...start, id: 'again', seq: events.length, data: { round: 8 } } as GapflowEvent]);
    const views = [session.view, headOf(session.view, 2), decodeHead(encodeHead(session.view, 2))!, replay(handMade), replay(events.slice(0, -3))];
    const middleOpen = replay(handMade).rounds.filter((r) => r.openEnd === null).length;
    // Rounds 6 and 7 left open in the middle, 8 open at the end.
    expect(middleOpen).toBe(3);
    for (const view of views) {
      expect(closedRoundCount(view)).toBe(closedRounds(view).length);
      expect(lastClosedRound(view)).toBe(closedRounds(view).at(-1));
    }
  });
});

describe('the head of a view', () => {
  it(
    'answers next, the prompt and a stop hook as the whole view does, at any point of any session',
    () => {
      let cut = 0;
      let prompts = 0;
      let leftOut = 0;
      let gaveWay = 0;
      let warned = 0;
      fc.assert(
        fc.property(
          longSettings,
          scriptArb(160),
          fc.double({ min: 0.3, max: 1, noNaN: true }),
          fc.constantFrom(null, 'agent-1', 'agent-2'),
          fc.boolean(),
          fc.integer({ min: 0, max: 3 * LISTED_GAPS }),
          (settings, script, where, bound, shifted, extra) => {
            const { session } = play(settings, script);
            const played = session.log.read().slice(0, Math.max(1, Math.round(where * session.log.read().length)));
            // A log another tool wrote may number its rounds from 11: a decision's history entry then counts lower than the rounds before it.
            const events = shifted ? played.map(shiftRound) : played;
            // Bound to an agent or not: a stop hook answers its own agent and a foreign one differently.
            const view = replay(bound === null ? events : [...events, bindingEvent(events.length + 1, bound)]);
            // The warnings the fold counts are the ones the history shows (a head keeps only its last rounds' history).
            expect(view.warningsRaised).toBe(warningsOf(view).length);
            if (view.warningsRaised > 0) warned += 1;
            const head = headOf(view, 2);
            if (head.roundsBefore > 0) cut += 1;
            const expected = answers(view);
            if (expected.prompt !== null && head.roundsBefore > 0) prompts += 1;
            expect(answers(head)).toEqual(expected);
            expect(answers(decodeHead(encodeHead(view, 2))!)).toEqual(expected);
            // The summary in front of the head, read without its view, is the whole view's.
            expect(decodeHeadSummary(encodeHead(view, 2))).toEqual(summaryOf(view));
            // With more gaps than a head keeps (a large inventory's): the same answers while no decision is due.
            const large = replay(withInventory(bound === null ? events : [...events, bindingEvent(events.length + 1, bound)], extra));
            // Cut past 2 x LISTED_GAPS gaps, not HEAD_WHOLE_GAPS: the same cut, on sessions small enough to play 600 times.
            const cutLarge = headOf(large, 2, LISTED_GAPS, 2 * LISTED_GAPS);
            expect(decodeHeadSummary(encodeHead(large, 2, null, LISTED_GAPS, 2 * LISTED_GAPS))).toEqual(summaryOf(large));
            const expectedLarge = answers(large);
            if (leavesGapsOut(cutLarge)) leftOut += 1;
            if (answersLoop(cutLarge)) {
              expect(answers(cutLarge)).toEqual(expectedLarge);
              expect(answers(decodeHead(encodeHead(large, 2, null, LISTED_GAPS, 2 * LISTED_GAPS))!)).toEqual(expectedLarge);
            } else {
              gaveWay += 1;
              expect(expectedLarge.step.action).toBe('ask_user');
            }
          },
        ),
        { numRuns: 600 },
      );
      expect(leftOut).toBeGreaterThan(60);
      expect(gaveWay).toBeGreaterThan(0);
      expect(warned).toBeGreaterThan(10);
      // The property is about cut views: a good share of the random sessions (a fifth at least) must have been cut.
      expect(cut).toBeGreaterThan(60);
      console.log(
        `view head: ${cut} of 600 views cut, ${prompts} of them with a decision prompt; ${leftOut} leaving gaps out, ${gaveWay} of them giving way; ${warned} with warnings`,
      );
      expect(prompts).toBeGreaterThanOrEqual(3);
    },
    TIMEOUT,
  );

  it(
    'answers for sessions run by metric policies (atoms stop and redirect requests, quality scores) at every point',
    () => {
      const atoms = newSession({ policies: ['atoms'], maxRounds: 60 });
      for (let round = 1; round <= 30 && atoms.view.machine.state !== 'COMPLETE'; round++) {
        if (atoms.view.machine.state === 'DIVERGENCE_WARNING' || atoms.view.machine.state === 'STALLED') atoms.makeDecision('accept_complexity');
        atoms.recordMetrics('atoms', {
          pending: 40 - round + (round % 5 === 0 ? 6 : 0),
          resolved: round,
          stopRequested: round === 17,
          redirectRequested: round % 9 === 4,
        });
      }
      const quality = newSession({ policies: ['gaps', 'quality'], maxRounds: 60 });
      quality.openGap('Q-0', 'HIGH');
      for (let round = 1; round <= 25 && quality.view.machine.state !== 'COMPLETE'; round++) {
        if (quality.view.machine.state === 'DIVERGENCE_WARNING' || quality.view.machine.state === 'STALLED') quality.makeDecision('accept_complexity');
        quality.startRound();
        quality.openGap(`Q-${round}`, 'LOW');
        quality.moveGap(`Q-${round - 1}`, 'RESOLVED');
        quality.recordMetrics('quality', { score: 60 + ((round * 7) % 23) });
        quality.closeRound();
      }
      let compared = 0;
      for (const session of [atoms, quality]) {
        const events = session.log.read();
        expect(session.view.rounds.length).toBeGreaterThanOrEqual(8);
        for (let cut = 1; cut <= events.length; cut++) {
          const view = replay(events.slice(0, cut));
          expect(answers(headOf(view, 2))).toEqual(answers(view));
          compared += 1;
        }
      }
      expect(compared).toBeGreaterThan(60);
    },
    TIMEOUT,
  );

  it(
    'is small: closed gaps, old rounds and old history are left out',
    () => {
      fc.assert(
        fc.property(longSettings, scriptArb(160), (settings, script) => {
          const view = play(settings, script).session.view;
          const head = headOf(view, 2);
          // The rounds it leaves out are counted, not kept: no stand-in is held for them.
          expect(head.rounds.length).toBeLessThanOrEqual(2);
          expect(head.rounds.every((round) => !Number.isNaN(round.openStart))).toBe(true);
          expect(head.rounds).toEqual(view.rounds.slice(view.rounds.length - head.rounds.length));
          expect(roundCount(head)).toBe(view.rounds.length);
          expect(closedRoundCount(head)).toBe(closedRoundCount(view));
          // The head as its checkpoint stores it counts the same rounds before, and keeps the same ones.
          const decoded = decodeHead(encodeHead(view, 2))!;
          expect([decoded.roundsBefore, decoded.rounds]).toEqual([head.roundsBefore, head.rounds]);
          expect(head.gaps.size).toBeLessThanOrEqual(view.gaps.size);
          expect(head.history.length).toBeLessThanOrEqual(view.history.length);
        }),
        { numRuns: 50 },
      );
    },
    TIMEOUT,
  );

  it('keeps the same few kilobytes whatever the inventory: 2,000 or 20,000 gaps open, half of them opened in the open round', () => {
    const sizes = [2_000, 20_000].map((count) => {
      // Given: a session with that many gaps open, half at its baseline and half in its open round.
      const session = newSession({ maxRounds: 100 });
      session.startRound();
      const [started, roundStarted] = session.log.read();
      const half = count / 2;
      const baseline = withInventory([started!], half);
      const inRound = withInventory([roundStarted!], count - half).slice(1);
      const view = replay(
        [...baseline, roundStarted!, ...inRound.map((e, i) => ({ ...e, id: `r-${i}`, data: { ...e.data, id: `R-${i}` } }) as GapflowEvent)].map(
          (e, i) => ({ ...e, seq: i + 1 }) as GapflowEvent,
        ),
      );
      const head = headOf(view);
      // Then: the head keeps the first 2 x LISTED_GAPS and counts the rest, and the open round's lists are gone.
      expect(head.gaps.size).toBe(2 * LISTED_GAPS);
      expect([head.gapsLeftOut.open, head.gapsLeftOut.parked]).toEqual([count - 2 * LISTED_GAPS, 0]);
      expect(head.rounds.at(-1)!.newGaps).toEqual([]);
      expect(head.rounds.at(-1)!.new).toBe(half);
      return encodeHead(view).length;
    });
    expect(sizes[0]).toBeLessThan(60_000);
    // Twenty times the gaps, the same size but for the ids it keeps (other gaps come first) and the digits of the counts.
    expect(sizes[1]!).toBeLessThan(sizes[0]! * 1.2);
  });
});
