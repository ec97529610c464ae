import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { expectOneLineError, Sandbox } from './helpers.js';

let box: Sandbox;
beforeEach(() => {
  box = new Sandbox();
});
afterEach(() => box.remove());

describe('session settings in a session without the gap policy', () => {
  it('an explicit --max-rounds ends it at that round unless it converged there (R12), as for gaps', () => {
    box.ok('init', '--policy', 'quality', '--max-rounds', '3');
    for (const score of ['50', '55']) box.ok('record', 'quality', '--score', score);
    expect(box.stateJson().state).toBe('CONVERGING');
    box.ok('record', 'quality', '--score', '60');
    expect(box.stateJson()).toMatchObject({ state: 'COMPLETE', outcome: 'MAX_ROUNDS', round: 3 });
  });

  it("without --max-rounds, the policy's own maximum rules: atoms goes past the session default of 10", () => {
    box.ok('init', '--policy', 'atoms');
    for (let pending = 30; pending > 18; pending--) box.ok('record', 'atoms', '--pending', String(pending), '--resolved', String(30 - pending));
    expect(box.stateJson()).toMatchObject({ state: 'CONVERGING', round: 12 });
  });

  it('settings only the gap policy reads are refused rather than silently ignored', () => {
    for (const flags of [['--divergence-threshold', '4'], ['--no-critical-override']]) {
      expectOneLineError(box.gf('init', '--policy', 'quality', ...flags), 1, ['gap policy']);
    }
    box.ok('init', '--policy', 'gaps,quality', '--divergence-threshold', '4');
  });

  it("a preset still sets the stall threshold that every policy's flat verdicts count toward (R13: large is N = 4)", () => {
    box.ok('init', '--policy', 'quality', '--preset', 'large');
    expect(box.stateJson().config.stallThreshold).toBe(4);
  });

  it('status.md and state claim no round limit that does not apply, and show one that does', () => {
    box.ok('init', '--policy', 'atoms');
    box.ok('record', 'atoms', '--pending', '5', '--resolved', '0');
    const free = box.ok('status').stdout;
    expect(free).not.toMatch(/of max \d/);
    expect(free).toMatch(/\| max_rounds \| none/);
    expect(free).not.toContain('divergence_threshold');
    expect(box.ok('state').stdout).not.toMatch(/of max \d/);
    const limited = new Sandbox();
    try {
      limited.ok('init', '--policy', 'atoms', '--max-rounds', '3');
      limited.ok('record', 'atoms', '--pending', '5', '--resolved', '0');
      expect(limited.ok('status').stdout).toContain('of max 3');
    } finally {
      limited.remove();
    }
  });
});
