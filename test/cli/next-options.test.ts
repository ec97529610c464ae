import { cpSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { atBaseline, divergingAfterRoundOne, runCli, Sandbox } from './helpers.js';

/*
 * `next --json` for a loop in any language (issue 14): the gaps with their
 * state and title, and in ask_user the user's options, each with the line
 * `append` takes to choose it.
 */

interface Option {
  kind: string;
  label: string;
  recommended: boolean;
  gaps: { id: string; severity: string; state: string; title: string }[];
  effect: string;
  requires: string[];
  event: { type: string; data: Record<string, unknown> } | null;
  why: string | null;
}
interface Next {
  action: string;
  openGaps: Record<string, string[]>;
  gaps: { id: string; severity: string; state: string; title: string }[];
  options: Option[];
  prompt: string | null;
}

let box: Sandbox;
beforeEach(() => {
  box = new Sandbox();
});
afterEach(() => box.remove());

const next = (dir = box.dir): Next => {
  const result = runCli(['next', '--json', '--dir', dir], { cwd: box.root });
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as Next;
};

describe('next --json', () => {
  it('lists every gap not closed with id, severity, state and title; no options while the loop goes on', () => {
    atBaseline(box);
    box.steps('round start', 'gap move GAP-M1 IN_PROGRESS');
    const step = next();
    expect(step.action).toBe('continue');
    expect(step.gaps).toEqual([
      { id: 'GAP-H1', severity: 'HIGH', state: 'OPEN', title: 'Parser' },
      { id: 'GAP-M1', severity: 'MEDIUM', state: 'IN_PROGRESS', title: 'Retries' },
    ]);
    expect(step.openGaps).toEqual({ CRITICAL: [], HIGH: ['GAP-H1'], MEDIUM: ['GAP-M1'], LOW: [], UNTRIAGED: [] });
    expect(step.options).toEqual([]);
  });

  it('in ask_user, carries the options: each labelled, with its effect and gaps, one recommended with why', () => {
    divergingAfterRoundOne(box);
    const step = next();
    expect(step.action).toBe('ask_user');
    expect(step.options.map((o) => o.kind)).toEqual(['narrow_scope', 'accept_complexity', 'prioritize_critical', 'pause', 'force_complete', 'abandon']);
    expect(step.options.filter((o) => o.recommended).map((o) => o.kind)).toEqual(['prioritize_critical']);
    const critical = step.options.find((o) => o.kind === 'prioritize_critical')!;
    expect(critical).toMatchObject({
      label: 'Prioritize CRITICAL',
      gaps: [{ id: 'GAP-C1', severity: 'CRITICAL', state: 'OPEN', title: 'Schema' }],
      requires: [],
    });
    expect(critical.why).toContain('GAP-C1');
    expect(step.options.filter((o) => !o.recommended).every((o) => o.why === null)).toBe(true);
    for (const option of step.options) expect(option.effect.length, option.kind).toBeGreaterThan(10);
    // No gap spawned this round or marked non-blocking: narrow scope falls back to the open MEDIUM/LOW gaps none waits on.
    expect(step.options[0]).toMatchObject({
      kind: 'narrow_scope',
      requires: [],
      gaps: [{ id: 'GAP-M1' }],
      event: { type: 'decision.made', data: { kind: 'narrow_scope', gaps: ['GAP-M1'] } },
    });
    expect(step.options[0]!.effect).toContain('none was spawned this round or marked non-blocking');
  });

  it('R28: gaps spawned this round, with no --non-blocking flag, are what narrow scope (recommended) names; prompt and next --json agree', () => {
    atBaseline(box);
    box.steps(
      'round start',
      'gap open GAP-H2 --severity HIGH --title Cache',
      'gap open GAP-H3 --severity HIGH --title Auth',
      'gap open GAP-S1 --severity MEDIUM --title Backoff --spawned-by GAP-H1',
      'gap open GAP-S2 --severity LOW --title Jitter --spawned-by GAP-H1',
      'round close',
    );
    // Weighted net: nothing resolved, 2 HIGH + 1 MEDIUM + 1 LOW new, below the default divergence threshold of -8.
    expect(-(2 * 4 + 2 + 1)).toBeLessThan(-8);
    const step = next();
    expect(step.action).toBe('ask_user');
    const chosen = step.options.filter((o) => o.recommended);
    expect(chosen.map((o) => o.kind)).toEqual(['narrow_scope']);
    expect(chosen[0]!.event).toEqual({ type: 'decision.made', data: { kind: 'narrow_scope', gaps: ['GAP-S1', 'GAP-S2'] } });
    expect(chosen[0]!.why).toContain('GAP-S1, GAP-S2 are MEDIUM/LOW, spawned in round 1');
    const prompt = box.ok('prompt').stdout;
    expect(prompt).toContain('1. Narrow scope - Remove non-blocking gaps from focus [RECOMMENDED]');
    expect(prompt).toContain('Suggestion: Defer GAP-S1, GAP-S2 (MEDIUM/LOW, spawned this round or marked non-blocking');
    expect(prompt).toContain(`   Recommended because ${chosen[0]!.why}`);
    expect(prompt.match(/\[RECOMMENDED\]/g)).toHaveLength(1);
  });

  it.each([
    ['accept_complexity', { state: 'CONVERGING' }],
    ['prioritize_critical', { state: 'CONVERGING', focus: ['GAP-C1'] }],
    ['pause', { state: 'PAUSED' }],
    ['force_complete', { state: 'COMPLETE', outcome: 'STALL_EXIT' }],
    ['abandon', { state: 'COMPLETE', outcome: 'ABANDONED' }],
  ])("the %s option's event, sent to append as one JSONL line, takes it", (kind, after) => {
    divergingAfterRoundOne(box);
    const option = next().options.find((o) => o.kind === kind)!;
    const copy = join(box.root, `copy-${kind}`);
    cpSync(box.dir, copy, { recursive: true });
    const result = runCli(['append', '--dir', copy], { cwd: box.root, stdin: `${JSON.stringify(option.event)}\n` });
    expect(result.code, result.stderr).toBe(0);
    const state = JSON.parse(runCli(['state', '--json', '--dir', copy], { cwd: box.root }).stdout) as Record<string, unknown>;
    expect(state).toMatchObject(after);
  });
});
