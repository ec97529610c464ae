import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { VERDICTS } from '../../machines/index.js';
import { combine, type NamedVerdict } from '../../src/policies/index.js';
import { replay } from '../../src/index.js';
import { toStateJson } from '../../src/core/index.js';
import { newSession } from '../support.js';

const VERDICT = fc.constantFrom(...VERDICTS);

describe('policies: properties', () => {
  it('replaying the log of any quality + questions session rebuilds the live state, verdicts included', { timeout: 60_000 }, () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 100 }), fc.integer({ min: 0, max: 12 }), fc.integer({ min: 0, max: 12 })), { minLength: 1, maxLength: 12 }),
        fc.constantFrom('all', 'any' as const),
        (iterations, completeWhen) => {
          const s = newSession({ policies: ['quality', 'questions'], completeWhen });
          for (const [score, open, high] of iterations) {
            const state = s.view.machine.state;
            if (state === 'COMPLETE') break;
            if (state === 'DIVERGENCE_WARNING') s.makeDecision('accept_complexity');
            s.recordMetrics('quality', { score });
            s.recordMetrics('questions', { open, high, medium: 1 });
          }
          expect(toStateJson(replay(s.log.read()))).toEqual(toStateJson(s.view));
        },
      ),
      { numRuns: 60 },
    );
  });

  it("the combined verdict is always one of the policies' own verdicts, and diverging whenever any diverges", { timeout: 60_000 }, () => {
    fc.assert(
      fc.property(fc.array(VERDICT, { minLength: 1, maxLength: 5 }), fc.constantFrom('all', 'any' as const), (verdicts, when) => {
        const named: NamedVerdict[] = verdicts.map((verdict, i) => ({ policy: `p${i}`, verdict, reason: 'r', detail: 'd', figures: {} }));
        const c = combine(named, when);
        expect(verdicts).toContain(c.verdict);
        if (verdicts.includes('diverging')) expect(c.verdict).toBe('diverging');
        if (c.verdict === 'converged' && when === 'all') expect(verdicts.every((v) => v === 'converged')).toBe(true);
      }),
    );
  });
});
