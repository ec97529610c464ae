import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { replay, type SessionView } from '../../src/index.js';
import { closedRounds, hookStep, loopStep, standingStopRequest, type HookCall } from '../../src/core/index.js';
import { decodeHead, encodeHead, headOf } from '../../src/core/index.js';
import { hookVerdict, nextLine, renderPrompt } from '../../src/render/index.js';
import { play, scriptArb, settingsArb } from '../session/model.js';

/*
 * The head of a view (what `next` and a stop hook read) must answer the
 * loop's questions exactly as the whole view does. Random sessions, cut at
 * random points, asked every question the loop asks: the next step, its
 * line, the decision prompt, and a stop hook's decision and words for each
 * kind of call. The head keeps only 2 rounds here, so most sessions are cut.
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
      return { decision: decided.decision, record: decided.record, blocks: decided.blocks, words: hookVerdict(decided.view, call, decided.context, decided.decision) };
    }),
  );
  return { step, line: nextLine(step), prompt: step.action === 'ask_user' ? renderPrompt(view) : renderPrompt(view), hooks, round: closedRounds(view).length };
}

describe('the head of a view', () => {
  it('answers next, the prompt and a stop hook as the whole view does, at any point of any session', () => {
    let cut = 0;
    let prompts = 0;
    fc.assert(
      fc.property(longSettings, scriptArb(160), fc.double({ min: 0.3, max: 1, noNaN: true }), (settings, script, where) => {
        const { session } = play(settings, script);
        const events = session.log.read();
        const view = replay(events.slice(0, Math.max(1, Math.round(where * events.length))));
        const head = headOf(view, 2);
        if (head.rounds.length > 0 && head.rounds[0]!.openStart !== head.rounds[0]!.openStart) cut += 1;
        const expected = answers(view);
        if (expected.prompt !== null && head.rounds.some((round) => Number.isNaN(round.openStart))) prompts += 1;
        expect(answers(head)).toEqual(expected);
        expect(answers(decodeHead(encodeHead(view, 2))!)).toEqual(expected);
      }),
      { numRuns: 400 },
    );
    // The property is about cut views: a good share of the random sessions (a fifth at least) must have been cut.
    expect(cut).toBeGreaterThan(60);
    console.log(`view head: ${cut} of 400 views cut, ${prompts} of them with a decision prompt`);
    expect(prompts).toBeGreaterThan(10);
  }, TIMEOUT);

  it('is small: closed gaps, old rounds and old history are left out', () => {
    fc.assert(
      fc.property(longSettings, scriptArb(160), (settings, script) => {
        const view = play(settings, script).session.view;
        const head = headOf(view, 2);
        const kept = head.rounds.filter((round) => !Number.isNaN(round.openStart));
        expect(kept.length).toBeLessThanOrEqual(2);
        expect(head.rounds.length).toBe(view.rounds.length);
        expect(head.gaps.size).toBeLessThanOrEqual(view.gaps.size);
        expect(head.history.length).toBeLessThanOrEqual(view.history.length);
      }),
      { numRuns: 50 },
    );
  }, TIMEOUT);
});
