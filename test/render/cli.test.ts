import { describe, expect, it } from 'vitest';
import type { Remedy } from '../../src/index.js';
import {
  claudeHookAnswer,
  type HookVerdict,
  gapMovedLine,
  initLines,
  recordPolicyProblem,
  refusalLine,
  REMEDY_HINT,
  stateLines,
} from '../../src/render/index.js';
import { newSession } from '../support.js';

describe('cli renderer: a move says what it counted as, as the core judged it', () => {
  it('a move to a closed state inside a round counts as resolved; a move back counts as new', () => {
    const s = newSession();
    s.openGap('G1', 'HIGH');
    s.startRound();
    const open = s.view;
    s.moveGap('G1', 'RESOLVED');
    expect(gapMovedLine(open, s.view, 'G1')).toContain('G1: OPEN -> RESOLVED (counts as resolved)');
    const resolved = s.view;
    s.moveGap('G1', 'OPEN');
    expect(gapMovedLine(resolved, s.view, 'G1')).toContain('(reopened: counts as new)');
  });

  it('a baseline move (no round open) counts as nothing, and says nothing of it', () => {
    const s = newSession();
    s.openGap('G1', 'HIGH');
    const before = s.view;
    s.moveGap('G1', 'RESOLVED');
    expect(s.view.roundOpen).toBe(false);
    const line = gapMovedLine(before, s.view, 'G1');
    expect(line).toContain('G1: OPEN -> RESOLVED;');
    expect(line).not.toContain('counts as');
  });

  it('a move within the open states counts as nothing', () => {
    const s = newSession();
    s.openGap('G1', 'HIGH');
    s.startRound();
    const before = s.view;
    s.moveGap('G1', 'IN_PROGRESS');
    expect(gapMovedLine(before, s.view, 'G1')).not.toContain('counts as');
  });
});

describe('cli renderer: the gap policy decides which lines a session gets', () => {
  it('a gaps session is told to record the baseline and start a round; a metrics-only session to record each iteration', () => {
    const gaps = newSession();
    expect(initLines('/tmp/s', gaps.view)).toContain('gapflow round start');
    const metrics = newSession({ policies: ['quality'] });
    expect(initLines('/tmp/s', metrics.view)).toContain('gapflow record POLICY');
    expect(initLines('/tmp/s', metrics.view)).not.toContain('round start');
  });

  it('state shows the open counts only with the gap policy, and a line per metric policy, never one for gaps', () => {
    const mixed = newSession({ policies: ['gaps', 'quality'] });
    const lines = stateLines(mixed.view).split('\n');
    expect(lines.some((l) => l.startsWith('Open count:'))).toBe(true);
    expect(lines.filter((l) => l.startsWith('Policy '))).toEqual(['Policy quality: no iteration recorded yet']);
    const metricsOnly = newSession({ policies: ['questions', 'atoms'] });
    const only = stateLines(metricsOnly.view).split('\n');
    expect(only.some((l) => l.startsWith('Open count:'))).toBe(false);
    expect(only.filter((l) => l.startsWith('Policy ')).map((l) => l.split(':')[0])).toEqual(['Policy questions', 'Policy atoms']);
  });
});

describe('cli renderer: refusals', () => {
  it('a refusal with a remedy ends with what to type; one without ends with the message', () => {
    const remedies = Object.keys(REMEDY_HINT) as Remedy[];
    for (const remedy of remedies) {
      expect(REMEDY_HINT[remedy].trim()).not.toBe('');
      expect(refusalLine('x: no', remedy)).toMatch(/^gapflow: refused: x: no \(.+\)\n$/);
    }
    expect(refusalLine('x: no', undefined)).toBe('gapflow: refused: x: no\n');
  });

  it('stays one line whatever the message holds', () => {
    const line = refusalLine('gap A\nB\u2028C: unknown', 'start_round');
    expect(line.endsWith('\n')).toBe(true);
    expect(line.slice(0, -1)).not.toMatch(/[\n\r\u2028\u2029]/);
  });

  it('`record` of the gap policy points at the gap commands, as the core says (a remedy, not a name check)', () => {
    expect(recordPolicyProblem('gaps', ['quality'], 'record_gap_events')).toMatch(/^gaps are recorded with gapflow gap/);
    expect(recordPolicyProblem('frob', ['quality'], undefined)).toMatch(/^unknown policy "frob"; record takes quality$/);
  });
});

describe('cli renderer: the Claude Code Stop hook answer', () => {
  const verdict = (over: Partial<HookVerdict>): HookVerdict => ({
    block: false,
    rule: 'continue',
    reason: 'r',
    systemMessage: null,
    blocks: 0,
    bind: false,
    ...over,
  });
  const answer = (v: HookVerdict | null) => JSON.parse(claudeHookAnswer(v)) as unknown;

  it('blocks with the reason for the agent, lets it stop with a message for the user, or says nothing', () => {
    expect(answer(verdict({ block: true, reason: 'keep going' }))).toEqual({ decision: 'block', reason: 'keep going' });
    expect(answer(verdict({ systemMessage: 'done' }))).toEqual({ systemMessage: 'done' });
    expect(answer(verdict({}))).toEqual({});
    expect(answer(null)).toEqual({});
  });
});
