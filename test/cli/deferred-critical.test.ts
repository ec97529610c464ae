import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { atBaseline, Sandbox } from './helpers.js';

/*
 * R29 through the CLI: a deferred gap escalated to CRITICAL moves
 * only its half weight and raises no warning; when it comes back to OPEN as
 * CRITICAL, the round that brings it back warns.
 */

let box: Sandbox;
beforeEach(() => {
  box = new Sandbox();
});
afterEach(() => box.remove());

describe('a deferred gap escalated to CRITICAL', () => {
  it('warns only when it returns to OPEN', () => {
    atBaseline(box);
    box.steps('gap open GAP-L1 --severity LOW --title Typo', 'gap open GAP-L2 --severity LOW --title Spacing', 'gap move GAP-M1 USER_DEFERRED');
    const before = box.stateJson() as { weightedOpen: number };
    box.steps('round start', 'gap move GAP-L1 RESOLVED', 'gap severity GAP-M1 CRITICAL', 'round close');
    expect(box.stateJson()).toMatchObject({ state: 'CONVERGING', round: 1 });
    const after = box.stateJson() as { weightedOpen: number };
    // GAP-L1 (LOW, 1) resolved; GAP-M1 deferred counts half, MEDIUM (2) to CRITICAL (16).
    expect(after.weightedOpen).toBe(before.weightedOpen - 1 + 0.5 * (16 - 2));
    box.steps('round start', 'gap move GAP-L2 RESOLVED', 'gap move GAP-M1 OPEN', 'round close');
    expect(box.stateJson()).toMatchObject({ state: 'DIVERGENCE_WARNING', round: 2 });
    expect(box.ok('prompt').stdout).toContain('PRIMARY: CRITICAL gap introduced (GAP-M1)');
  });
});
