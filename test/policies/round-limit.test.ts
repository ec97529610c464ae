import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { POLICY_NAMES, policyNamed } from '../../src/policies/index.js';
import { SEVERITIES, type Session } from '../../src/index.js';
import { toStateJson } from '../../src/core/index.js';
import { newSession } from '../support.js';

/*
 * R12 for every combination of policies: with a round limit, no
 * session closes more rounds than max_rounds, and with gaps tracked a round
 * that empties the inventory ends it, whatever its policies say in what
 * order and whatever the user decides on each warning.
 */

/** One iteration's metrics for each metric policy, drawn from a few knobs so verdicts of every kind come up. */
const metricsFor: Record<string, (knob: number, flag: boolean) => Record<string, unknown>> = {
  questions: (knob) => ({ open: knob % 5, high: knob % 3, medium: knob % 2 }),
  atoms: (knob, flag) => ({ pending: knob % 4, resolved: 1, stopRequested: flag && knob % 7 === 0, redirectRequested: flag && knob % 5 === 0 }),
  quality: (knob) => ({ score: 40 + ((knob * 13) % 61) }),
  forge: (knob) => ({
    critiques: [{ participant: 'a', score: 40 + ((knob * 7) % 61) }],
    draft: `draft ${knob % 3}`,
    votes: [{ participant: 'a', reply: knob % 2 === 0 ? 'CONVERGED' : 'CONTINUE' }],
  }),
  budget: (knob) => ({ cost: knob % 4, tokens: knob * 100 }),
};

type Step = { knob: number; flag: boolean; gapMoves: number; decision: 'accept_complexity' | 'narrow_scope' | 'force_complete' | 'pause' };

/** Plays one round: gap events when a gap-reading policy runs, each metric policy's metrics, then the close. */
function playRound(s: Session, step: Step, gapIds: string[]): void {
  const enabled = s.view.policies.enabled;
  const tracksGaps = enabled.includes('gaps');
  if (tracksGaps) {
    s.startRound();
    for (let i = 0; i < step.gapMoves; i++) {
      if ((step.knob + i) % 3 === 0 && gapIds.length > 0) s.moveGap(gapIds.shift()!, 'RESOLVED');
      else {
        const id = `G-${s.view.gaps.size + 1}`;
        s.openGap(id, SEVERITIES[(step.knob + i) % SEVERITIES.length]!);
        gapIds.push(id);
      }
    }
  }
  for (const name of enabled) {
    const metrics = metricsFor[name];
    if (metrics && s.view.machine.state !== 'COMPLETE') s.recordMetrics(name, metrics(step.knob, step.flag));
  }
  if (tracksGaps && s.view.roundOpen) s.closeRound();
}

describe('R12: the round limit holds for every combination of policies', () => {
  it('no session closes more rounds than max_rounds, nor runs a round after COMPLETE', { timeout: 120_000 }, () => {
    fc.assert(
      fc.property(
        // A guard (budget) is refused alone: every combination holds a policy that judges progress.
        fc.subarray([...POLICY_NAMES], { minLength: 1 }).filter((names) => names.some((name) => !policyNamed(name)?.guard)),
        fc.integer({ min: 1, max: 4 }),
        fc.constantFrom('all', 'any' as const),
        fc.array(
          fc.record({
            knob: fc.integer({ min: 0, max: 40 }),
            flag: fc.boolean(),
            gapMoves: fc.integer({ min: 0, max: 3 }),
            decision: fc.constantFrom('accept_complexity', 'narrow_scope', 'force_complete', 'pause' as const),
          }),
          { minLength: 1, maxLength: 8 },
        ),
        (policies, maxRounds, completeWhen, steps) => {
          const s = newSession({ policies, maxRounds, completeWhen });
          const gapIds: string[] = [];
          if (policies.includes('gaps')) {
            for (let i = 0; i < 3; i++) s.openGap(`B-${i}`, 'HIGH');
            gapIds.push('B-0', 'B-1', 'B-2');
          }
          for (const step of steps) {
            const state = s.view.machine.state;
            if (state === 'COMPLETE') break;
            if (state === 'PAUSED') s.makeDecision('resume');
            else if (state === 'DIVERGENCE_WARNING') {
              if (step.decision === 'narrow_scope' && gapIds.length > 0) s.makeDecision('narrow_scope', { gaps: [gapIds.shift()!] });
              else if (step.decision === 'pause') s.makeDecision('pause');
              else s.makeDecision(step.decision === 'narrow_scope' ? 'accept_complexity' : step.decision);
            } else playRound(s, step, gapIds);
            const json = toStateJson(s.view);
            expect(json.round, `${policies.join('+')}, max_rounds ${maxRounds}`).toBeLessThanOrEqual(maxRounds);
            if (json.round === maxRounds && !json.roundOpen) expect(json.state).toBe('COMPLETE');
            // R12's other half: with gaps tracked, a round that closes with nothing open ends the session as CONVERGED.
            const last = json.rounds.at(-1);
            if (policies.includes('gaps') && last?.openEnd === 0 && !json.roundOpen) expect(json).toMatchObject({ state: 'COMPLETE', outcome: 'CONVERGED' });
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
