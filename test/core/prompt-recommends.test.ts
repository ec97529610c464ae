import { describe, expect, it } from 'vitest';
import type { Severity } from '../../events/index.js';
import { decisionOptions, lastClosedRound } from '../../src/core/index.js';
import { optionEntries, renderPrompt } from '../../src/render/index.js';
import { WEIGHT } from '../support.js';
import { given, move, open, resolve, round, start } from './given.js';

/*
 * R28 on a worked Round 5 scenario, as the divergence prompt shows it:
 * round 5 of 10 resolves GAP-FLOW-003 (HIGH, accepted) and
 * GAP-UX-001 (MEDIUM), opens GAP-FLOW-020 (CRITICAL) and three MEDIUM gaps
 * spawned by the two it resolved, and ends with the scenario's inventory: 18
 * open (3 CRITICAL, 5 HIGH, 7 MEDIUM, 3 LOW), 1 HIGH in progress, 2
 * proposed (1 HIGH, 1 MEDIUM), 2 deferred. No gap carries a non-blocking
 * flag: the spawned ones are suggested because they were spawned this round.
 */

const titled = (id: string, severity: Severity, title: string, spawnedBy?: string) => {
  const body = open(id, severity, spawnedBy === undefined ? {} : { spawnedBy });
  return { ...body, data: { ...body.data, title } };
};
const many = (prefix: string, severity: Severity, n: number) => Array.from({ length: n }, (_, i) => open(`GAP-${prefix}-${i + 1}`, severity));

function roundFive(...alsoInRoundFive: ReturnType<typeof move>[]) {
  return given(
    start(),
    ...many('CRIT', 'CRITICAL', 2),
    ...many('HIGH', 'HIGH', 5),
    ...many('MED', 'MEDIUM', 4),
    ...many('LOW', 'LOW', 3),
    titled('GAP-FLOW-003', 'HIGH', 'Parser contract missing'),
    titled('GAP-UX-001', 'MEDIUM', 'Status format unclear'),
    open('GAP-WIP-1', 'HIGH'),
    move('GAP-WIP-1', 'IN_PROGRESS'),
    open('GAP-PROP-1', 'HIGH'),
    move('GAP-PROP-1', 'IN_PROGRESS'),
    move('GAP-PROP-1', 'PROPOSED'),
    open('GAP-PROP-2', 'MEDIUM'),
    move('GAP-PROP-2', 'IN_PROGRESS'),
    move('GAP-PROP-2', 'PROPOSED'),
    open('GAP-DEF-1', 'LOW'),
    move('GAP-DEF-1', 'USER_DEFERRED'),
    open('GAP-DEF-2', 'LOW'),
    move('GAP-DEF-2', 'USER_DEFERRED'),
    // Rounds 1-4: one LOW gap resolved each, steady progress.
    ...[1, 2, 3, 4].flatMap((n) => [open(`GAP-DONE-${n}`, 'LOW')]),
    ...[1, 2, 3, 4].flatMap((n) => round(n, resolve(`GAP-DONE-${n}`))),
    ...round(
      5,
      move('GAP-FLOW-003', 'IN_PROGRESS'),
      move('GAP-FLOW-003', 'PROPOSED'),
      move('GAP-FLOW-003', 'ACCEPTED'),
      resolve('GAP-UX-001'),
      titled('GAP-FLOW-020', 'CRITICAL', 'Parser validation undefined'),
      titled('GAP-COMM-010', 'MEDIUM', 'Retry contract', 'GAP-FLOW-003'),
      titled('GAP-COMM-011', 'MEDIUM', 'Timeout contract', 'GAP-FLOW-003'),
      titled('GAP-UX-010', 'MEDIUM', 'Status colours', 'GAP-UX-001'),
      ...alsoInRoundFive,
    ),
  );
}

describe('R28 on the worked Round 5 scenario', () => {
  it("given the scenario's figures, when round 5 closes, then the round and the inventory are the scenario's, recomputed", () => {
    const { view } = roundFive();
    const r = lastClosedRound(view)!;
    expect(view.machine.state).toBe('DIVERGENCE_WARNING');
    expect([r.round, r.resolved, r.new]).toEqual([5, 2, 4]);
    expect(r.weightedResolved).toBe(WEIGHT.HIGH + WEIGHT.MEDIUM);
    expect(r.weightedNew).toBe(WEIGHT.CRITICAL + 3 * WEIGHT.MEDIUM);
    expect(r.weightedNet).toBe(WEIGHT.HIGH + WEIGHT.MEDIUM - WEIGHT.CRITICAL - 3 * WEIGHT.MEDIUM);
    // The scenario's lifecycle count: 18 open + 1 in progress + 2 proposed + 0.5 x 2 deferred.
    expect(view.open.count).toBe(18 + 1 + 2 + 0.5 * 2);
  });

  it('given the scenario figures, then prioritize CRITICAL is recommended for GAP-FLOW-020, and narrow scope suggests the gaps spawned this round without any non-blocking flag', () => {
    const options = decisionOptions(roundFive().view);
    expect(options.filter((o) => o.recommended !== null).map((o) => [o.kind, o.recommended])).toEqual([['prioritize_critical', 'critical']]);
    expect(options.find((o) => o.kind === 'prioritize_critical')!.gaps.map((g) => g.id)).toEqual(['GAP-CRIT-1', 'GAP-CRIT-2', 'GAP-FLOW-020']);
    const narrow = options.find((o) => o.kind === 'narrow_scope')!;
    // R28 lists every MEDIUM/LOW gap spawned this round; GAP-UX-010 (spawned by GAP-UX-001) is one of them.
    expect(narrow.event).toEqual({ type: 'decision.made', data: { kind: 'narrow_scope', gaps: ['GAP-COMM-010', 'GAP-COMM-011', 'GAP-UX-010'] } });
    expect(narrow.fallback).toBeUndefined();
  });

  it("given a gap that waits on GAP-UX-010, then the suggestion is exactly the scenario's: GAP-COMM-010 and GAP-COMM-011", () => {
    const { view } = roundFive(move('GAP-HIGH-1', 'IN_PROGRESS'), move('GAP-HIGH-1', 'BLOCKED', { blockedBy: 'GAP-UX-010' }));
    expect(decisionOptions(view).find((o) => o.kind === 'narrow_scope')!.event!.data.gaps).toEqual(['GAP-COMM-010', 'GAP-COMM-011']);
  });

  it('then the prompt marks the recommended option and says why, naming the CRITICAL the round introduced', () => {
    const { view } = roundFive();
    const prompt = renderPrompt(view)!;
    expect(prompt).toContain('Session Progress: Round 5 of max 10');
    expect(prompt).toContain('Open: 18 (3 CRITICAL, 5 HIGH, 7 MEDIUM, 3 LOW)');
    expect(prompt).toContain('Suggestion: Defer GAP-COMM-010, GAP-COMM-011, GAP-UX-010 (MEDIUM/LOW, spawned this round or marked non-blocking');
    expect(prompt).toContain('3. Prioritize CRITICAL - Focus next round exclusively on GAP-CRIT-1, GAP-CRIT-2, GAP-FLOW-020 [RECOMMENDED]');
    expect(prompt).toContain('   Recommended because round 5 introduced CRITICAL GAP-FLOW-020');
    expect(prompt.match(/\[RECOMMENDED\]/g)).toHaveLength(1);
    expect(prompt.match(/Recommended because/g)).toHaveLength(1);
    const entries = optionEntries(view);
    expect(entries.filter((e) => e.recommended).map((e) => e.kind)).toEqual(['prioritize_critical']);
  });
});
