import { describe, expect, it } from 'vitest';
import { Refusal } from '../../src/index.js';
import { renderPrompt, renderRoundReport, renderStatus, renderSummary } from '../../src/render/index.js';
import { toStateJson } from '../../src/core/index.js';
import { baseline, expectedWeightedNet, newSession, playRound, WEIGHT } from '../support.js';

describe('R1: a stall counts N rounds, not N+1', () => {
  it('with N = 2 the first flat round is FLAT (flat_count 1) and the second stalls', () => {
    const s = newSession();
    baseline(s, 'HIGH', 5);
    expect(playRound(s, {})).toMatchObject({ state: 'FLAT', flatCount: 1 });
    expect(playRound(s, {}).state).toBe('DIVERGENCE_WARNING');
    expect(s.view.history.map((h) => h.to)).toEqual(['FLAT', 'STALLED', 'DIVERGENCE_WARNING']);
  });

  it('with N = 3 the third consecutive flat round stalls', () => {
    const s = newSession({ stallThreshold: 3 });
    baseline(s, 'HIGH', 5);
    expect([playRound(s, {}), playRound(s, {})].map((r) => r.flatCount)).toEqual([1, 2]);
    expect(playRound(s, {}).state).toBe('DIVERGENCE_WARNING');
    expect(s.view.machine.flatCount).toBe(3);
  });
});

describe('R2: divergence is strict', () => {
  it('a round at exactly -D is FLAT; one below it diverges', () => {
    const s = newSession();
    baseline(s, 'LOW', 3);
    const atD = playRound(s, {
      open: [
        ['H1', 'HIGH'],
        ['H2', 'HIGH'],
      ],
    });
    expect(atD.weightedNet).toBe(expectedWeightedNet([], ['HIGH', 'HIGH']));
    expect(atD.weightedNet).toBe(-8);
    expect(atD.state).toBe('FLAT');

    const t = newSession();
    baseline(t, 'LOW', 3);
    const below = playRound(t, {
      open: [
        ['H1', 'HIGH'],
        ['H2', 'HIGH'],
        ['L1', 'LOW'],
      ],
    });
    expect(below.weightedNet).toBe(-9);
    expect(below.state).toBe('DIVERGENCE_WARNING');
  });
});

describe('R3: numbers are computed from events', () => {
  it('the worked round 3 (new CRITICAL, 2 HIGH, 2 MEDIUM; one MEDIUM resolved) nets -26', () => {
    const s = newSession();
    baseline(s, 'MEDIUM', 1, 'M');
    const round = playRound(s, {
      resolve: ['M-1'],
      open: [
        ['C1', 'CRITICAL'],
        ['H1', 'HIGH'],
        ['H2', 'HIGH'],
        ['M2', 'MEDIUM'],
        ['M3', 'MEDIUM'],
      ],
    });
    const expected = expectedWeightedNet(['MEDIUM'], ['CRITICAL', 'HIGH', 'HIGH', 'MEDIUM', 'MEDIUM']);
    expect(expected).toBe(2 - 28);
    expect(round.weightedNet).toBe(expected);
    expect(round.unweightedNet).toBe(1 - 5);
    expect(round.bySeverity.CRITICAL.weightedNew).toBe(WEIGHT.CRITICAL);
  });
});

describe('R4: STALLED is transient but recorded', () => {
  it('history shows FLAT -> STALLED -> DIVERGENCE_WARNING and the round table shows no flat count', () => {
    const s = newSession();
    baseline(s, 'HIGH', 2);
    playRound(s, {});
    const stalled = playRound(s, {});
    expect(stalled.flatCount).toBeNull();
    const steps = s.view.history.filter((h) => h.round === 2).map((h) => `${h.from}->${h.to}`);
    expect(steps).toEqual(['FLAT->STALLED', 'STALLED->DIVERGENCE_WARNING']);
    expect(renderStatus(s.view)).toMatch(/\| 2 \|.*\| DIVERGENCE_WARNING \| - \|/);
  });
});

describe('R5: critical override', () => {
  it('a CRITICAL opened and resolved again in the same round still warns', () => {
    const s = newSession();
    baseline(s, 'HIGH', 5);
    s.startRound();
    s.openGap('C1', 'CRITICAL');
    s.moveGap('C1', 'RESOLVED');
    for (const id of ['B-HIGH-1', 'B-HIGH-2']) s.moveGap(id, 'RESOLVED');
    s.closeRound();
    const round = s.view.rounds[0]!;
    expect(round.weightedNet).toBe(expectedWeightedNet(['CRITICAL', 'HIGH', 'HIGH'], ['CRITICAL']));
    expect(round.weightedNet).toBeGreaterThan(0);
    expect(round.state).toBe('DIVERGENCE_WARNING');
  });

  it('an escalation to CRITICAL warns', () => {
    const s = newSession();
    baseline(s, 'HIGH', 3);
    s.startRound();
    s.moveGap('B-HIGH-1', 'RESOLVED');
    s.moveGap('B-HIGH-2', 'RESOLVED');
    s.moveGap('B-HIGH-3', 'RESOLVED');
    s.openGap('M1', 'MEDIUM');
    s.changeSeverity('M1', 'CRITICAL');
    s.closeRound();
    expect(s.view.rounds[0]!.state).toBe('DIVERGENCE_WARNING');
    expect(s.view.rounds[0]!.criticalIntroduced).toEqual(['M1']);
  });

  it('a CRITICAL reopened warns', () => {
    const s = newSession();
    baseline(s, 'CRITICAL', 1, 'C');
    baseline(s, 'HIGH', 4);
    playRound(s, { resolve: ['C-1'] });
    s.startRound();
    s.moveGap('C-1', 'OPEN');
    for (const id of ['B-HIGH-1', 'B-HIGH-2', 'B-HIGH-3', 'B-HIGH-4']) s.moveGap(id, 'RESOLVED');
    s.closeRound();
    expect(s.view.rounds[1]).toMatchObject({ state: 'DIVERGENCE_WARNING', criticalIntroduced: ['C-1'] });
  });

  it('with the override off a CRITICAL only counts by weight', () => {
    const s = newSession({ criticalOverride: false });
    baseline(s, 'HIGH', 6);
    const round = playRound(s, {
      resolve: ['B-HIGH-1', 'B-HIGH-2', 'B-HIGH-3', 'B-HIGH-4', 'B-HIGH-5'],
      open: [['C1', 'CRITICAL']],
    });
    expect(round.weightedNet).toBe(expectedWeightedNet(['HIGH', 'HIGH', 'HIGH', 'HIGH', 'HIGH'], ['CRITICAL']));
    expect(round.state).toBe('CONVERGING');
  });
});

describe('R6: what counts as resolved and new', () => {
  it('each move into ACCEPTED, RESOLVED or WONT_FIX counts as resolved at the current weight', () => {
    const s = newSession();
    const [a, b, c] = baseline(s, 'MEDIUM', 4);
    s.startRound();
    s.moveGap(a!, 'IN_PROGRESS');
    s.moveGap(a!, 'PROPOSED');
    s.moveGap(a!, 'ACCEPTED');
    s.moveGap(a!, 'RESOLVED'); // between closed states: nothing
    s.moveGap(b!, 'WONT_FIX');
    s.changeSeverity(c!, 'HIGH');
    s.moveGap(c!, 'RESOLVED');
    s.closeRound();
    const round = s.view.rounds[0]!;
    expect(round.resolved).toBe(3);
    // c was escalated MEDIUM -> HIGH (+2 weighted new, R7) and then resolved at HIGH.
    expect(round.weightedResolved).toBe(WEIGHT.MEDIUM * 2 + WEIGHT.HIGH);
    expect(round.weightedNew).toBe(WEIGHT.HIGH - WEIGHT.MEDIUM);
  });

  it('a reopen counts as new; moves between open states and through USER_DEFERRED count as neither', () => {
    const s = newSession();
    const [a, b, c] = baseline(s, 'HIGH', 4);
    playRound(s, { resolve: [a!] });
    s.startRound();
    s.moveGap(a!, 'NEEDS_REVISION');
    s.moveGap(b!, 'IN_PROGRESS');
    s.moveGap(b!, 'BLOCKED');
    s.moveGap(c!, 'USER_DEFERRED');
    s.moveGap(c!, 'OPEN');
    s.closeRound();
    expect(s.view.rounds[1]).toMatchObject({ resolved: 0, new: 1, weightedNew: WEIGHT.HIGH, weightedResolved: 0 });
  });
});

describe('R7: severity changes move only the weighted figures', () => {
  it('an escalation adds to weighted new, a de-escalation to weighted resolved', () => {
    const s = newSession();
    baseline(s, 'MEDIUM', 2, 'M');
    baseline(s, 'CRITICAL', 1, 'C');
    s.startRound();
    s.changeSeverity('M-1', 'HIGH');
    s.changeSeverity('C-1', 'LOW');
    s.closeRound();
    const round = s.view.rounds[0]!;
    expect(round).toMatchObject({ resolved: 0, new: 0, unweightedNet: 0 });
    expect(round.weightedNew).toBe(WEIGHT.HIGH - WEIGHT.MEDIUM);
    expect(round.weightedResolved).toBe(WEIGHT.CRITICAL - WEIGHT.LOW);
    expect(round.weightedNet).toBe(WEIGHT.CRITICAL - WEIGHT.LOW - (WEIGHT.HIGH - WEIGHT.MEDIUM));
  });
});

describe('R8: baseline and rounds', () => {
  it('gaps before round 1 are baseline, not new; Open Start counts them', () => {
    const s = newSession();
    baseline(s, 'LOW', 3);
    s.startRound();
    expect(s.view.rounds[0]).toMatchObject({ round: 1, openStart: 3, new: 0 });
  });

  it('a gap event between rounds starts the next round as its own event', () => {
    const s = newSession();
    baseline(s, 'HIGH', 3);
    playRound(s, { resolve: ['B-HIGH-1'] });
    const { events } = s.openGap('N1', 'LOW');
    expect(events.map((e) => e.type)).toEqual(['round.started', 'gap.opened']);
    expect(events[0]!.data).toEqual({ round: 2 });
    expect(s.view.rounds[1]).toMatchObject({ round: 2, new: 1 });
  });

  it("a decision between rounds shows in the next round's Open Start", () => {
    const s = newSession();
    baseline(s, 'MEDIUM', 4);
    playRound(s, { open: [['C1', 'CRITICAL']] });
    s.makeDecision('narrow_scope', { gaps: ['B-MEDIUM-1', 'B-MEDIUM-2'] });
    s.startRound();
    // 5 open, two deferred at half: 3 + 0.5 × 2
    expect(s.view.rounds[1]!.openStart).toBe(3 + 0.5 * 2);
  });

  it('no round can start, and no gap event happen, in DIVERGENCE_WARNING or PAUSED', () => {
    const s = newSession();
    baseline(s, 'HIGH', 3);
    playRound(s, { open: [['C1', 'CRITICAL']] });
    expect(() => s.startRound()).toThrow(/DIVERGENCE_WARNING.*decision is due/);
    expect(() => s.openGap('X', 'LOW')).toThrow(/DIVERGENCE_WARNING/);
    s.makeDecision('pause');
    expect(() => s.moveGap('B-HIGH-1', 'RESOLVED')).toThrow(/PAUSED.*resume/);
    expect(() => s.startRound()).toThrow(Refusal);
  });
});

describe('R9: open count', () => {
  it('counts open states 1, USER_DEFERRED 0.5 and closed 0, weighted by severity', () => {
    const s = newSession();
    baseline(s, 'HIGH', 2, 'H');
    baseline(s, 'LOW', 3, 'L');
    s.moveGap('H-1', 'USER_DEFERRED');
    s.moveGap('L-1', 'IN_PROGRESS');
    s.moveGap('L-1', 'BLOCKED');
    s.moveGap('L-2', 'WONT_FIX');
    const state = toStateJson(s.view);
    expect(state.openGapCount).toBe(1 + 2 + 0.5);
    expect(state.weightedOpen).toBe(WEIGHT.HIGH + 0.5 * WEIGHT.HIGH + 2 * WEIGHT.LOW);
  });

  it('prints one decimal only when fractional', () => {
    const s = newSession();
    baseline(s, 'HIGH', 3);
    s.startRound();
    s.moveGap('B-HIGH-1', 'USER_DEFERRED');
    s.closeRound();
    expect(renderStatus(s.view)).toMatch(/\| 1 \| 3 \| 0 \| 0 \| 2\.5 \|/);
    expect(renderStatus(s.view)).not.toMatch(/\| 3\.0 \|/);
  });
});

describe('R10: gap lifecycle', () => {
  it('refuses a move the lifecycle does not allow, naming the gap, its state and the moves allowed', () => {
    const s = newSession();
    baseline(s, 'HIGH', 1);
    expect(() => s.moveGap('B-HIGH-1', 'ACCEPTED')).toThrow(
      'gap.moved B-HIGH-1: gap B-HIGH-1 is OPEN; moves allowed from OPEN: IN_PROGRESS, RESOLVED, USER_DEFERRED, WONT_FIX',
    );
    expect(() => s.moveGap('B-HIGH-1', 'OPEN')).toThrow(/is already OPEN/);
  });

  it('allows the workflow moves, the shortcuts and any state to WONT_FIX', () => {
    const s = newSession();
    baseline(s, 'LOW', 1);
    const path = [
      'IN_PROGRESS',
      'BLOCKED',
      'IN_PROGRESS',
      'PROPOSED',
      'NEEDS_REVISION',
      'BLOCKED',
      'IN_PROGRESS',
      'PROPOSED',
      'ACCEPTED',
      'RESOLVED',
      'NEEDS_REVISION',
      'PROPOSED',
      'NEEDS_REVISION',
      'USER_DEFERRED',
      'OPEN',
      'WONT_FIX',
      'OPEN',
    ] as const;
    for (const to of path) s.moveGap('B-LOW-1', to);
    expect(s.view.gaps.get('B-LOW-1')!.state).toBe('OPEN');
  });

  it('a move between closed states counts as nothing', () => {
    const s = newSession();
    baseline(s, 'HIGH', 2);
    s.startRound();
    s.moveGap('B-HIGH-1', 'RESOLVED');
    s.moveGap('B-HIGH-1', 'WONT_FIX');
    s.closeRound();
    expect(s.view.rounds[0]).toMatchObject({ resolved: 1, new: 0 });
  });

  it('a blocked gap carries what it waits on and shows as blocked', () => {
    const s = newSession();
    baseline(s, 'HIGH', 2);
    s.moveGap('B-HIGH-1', 'IN_PROGRESS');
    s.moveGap('B-HIGH-1', 'BLOCKED', { blockedBy: 'B-HIGH-2', reason: 'needs the schema' });
    expect(renderStatus(s.view)).toMatch(/\| B-HIGH-1 \| BLOCKED \|.*blocked by B-HIGH-2; needs the schema/);
  });
});

describe('R11: user decisions', () => {
  function warned() {
    const s = newSession();
    baseline(s, 'HIGH', 2);
    s.startRound();
    s.openGap('C1', 'CRITICAL');
    s.openGap('M1', 'MEDIUM', { spawnedBy: 'B-HIGH-1', blocking: false });
    s.openGap('M2', 'MEDIUM', { spawnedBy: 'B-HIGH-1' });
    s.closeRound();
    return s;
  }

  it('narrow scope defers the named gaps, resets flat_count and goes to CONVERGING', () => {
    const s = warned();
    s.makeDecision('narrow_scope', { gaps: ['M1'] });
    expect(s.view.gaps.get('M1')!.state).toBe('USER_DEFERRED');
    expect(s.view.machine).toMatchObject({ state: 'CONVERGING', flatCount: 0 });
  });

  it('the prompt suggests deferring the MEDIUM and LOW gaps spawned this round, flagged non-blocking or not (R28)', () => {
    expect(renderPrompt(warned().view)).toContain('Suggestion: Defer M1, M2 (');
  });

  it('accept complexity records a new baseline of the open count and weighted open', () => {
    const s = warned();
    s.makeDecision('accept_complexity');
    expect(s.view.baseline).toEqual({ afterRound: 1, openCount: 5, weightedOpen: 2 * WEIGHT.HIGH + WEIGHT.CRITICAL + 2 * WEIGHT.MEDIUM });
    expect(s.view.machine.state).toBe('CONVERGING');
  });

  it('prioritize critical focuses on all open CRITICAL gaps until they close', () => {
    const s = warned();
    s.makeDecision('prioritize_critical');
    expect(s.view.focus).toEqual(['C1']);
    playRound(s, { resolve: ['C1'] });
    expect(s.view.focus).toEqual([]);
  });

  it('pause remembers where it was and resume goes back there', () => {
    const s = warned();
    s.makeDecision('pause');
    expect(s.view.machine.state).toBe('PAUSED');
    s.makeDecision('resume');
    expect(s.view.machine.state).toBe('DIVERGENCE_WARNING');
  });

  it('force complete ends as STALL_EXIT and lists the open gaps, CRITICAL first, as Known Limitations', () => {
    const s = warned();
    s.makeDecision('force_complete');
    expect(s.view.machine.outcome).toBe('STALL_EXIT');
    const limits = renderSummary(s.view)!.split('## Known Limitations')[1]!;
    expect(limits.indexOf('C1 (CRITICAL')).toBeLessThan(limits.indexOf('B-HIGH-1 (HIGH'));
  });

  it('abandon is possible from any state but COMPLETE', () => {
    const s = newSession();
    baseline(s, 'LOW', 1);
    s.makeDecision('abandon');
    expect(s.view.machine.outcome).toBe('ABANDONED');
    expect(() => s.makeDecision('abandon')).toThrow(/COMPLETE/);
  });

  it('approve with no CRITICAL or HIGH open is GOOD_ENOUGH', () => {
    const s = newSession();
    baseline(s, 'LOW', 2);
    playRound(s, { resolve: ['B-LOW-1'] });
    s.makeDecision('approve');
    expect(s.view.machine.outcome).toBe('GOOD_ENOUGH');
  });

  it('approve over open CRITICAL needs the acknowledgment, over open HIGH a rationale; both are recorded', () => {
    const s = newSession();
    baseline(s, 'CRITICAL', 1, 'C');
    baseline(s, 'HIGH', 2);
    playRound(s, { resolve: ['B-HIGH-1'] });
    expect(() => s.makeDecision('approve')).toThrow(/CRITICAL gaps are not closed \(C-1\).*acknowledgment of that risk/);
    expect(() => s.makeDecision('approve', { acceptCritical: true })).toThrow(/HIGH gaps are not closed \(B-HIGH-2\).*rationale/);
    const [event] = s.makeDecision('approve', { acceptCritical: true, rationale: 'ship the MVP' }).events;
    expect(event!.data).toMatchObject({ kind: 'approve', acknowledgment: 'critical_risk', rationale: 'ship the MVP', gaps: ['C-1', 'B-HIGH-2'] });
    expect(s.view.machine.outcome).toBe('USER_APPROVED');
  });

  it('refuses each decision in a state where it makes no sense', () => {
    const s = newSession();
    baseline(s, 'HIGH', 2);
    for (const kind of ['narrow_scope', 'accept_complexity', 'prioritize_critical', 'resume', 'force_complete'] as const) {
      expect(() => s.makeDecision(kind, { gaps: ['B-HIGH-1'] })).toThrow(/not possible in CONVERGING/);
    }
    const w = warned();
    expect(() => w.makeDecision('approve')).toThrow(/approve is not possible in DIVERGENCE_WARNING/);
  });
});

describe('R12: automatic completion', () => {
  it('a round that closes with open count 0 is CONVERGED, even when it would have warned', () => {
    const s = newSession();
    baseline(s, 'HIGH', 1);
    s.startRound();
    s.openGap('C1', 'CRITICAL');
    s.moveGap('C1', 'RESOLVED');
    s.moveGap('B-HIGH-1', 'RESOLVED');
    s.closeRound();
    expect(s.view.machine).toMatchObject({ state: 'COMPLETE', outcome: 'CONVERGED' });
  });

  it('closing round max_rounds ends as MAX_ROUNDS; nothing is accepted after', () => {
    const s = newSession({ maxRounds: 3 });
    baseline(s, 'HIGH', 5);
    playRound(s, { resolve: ['B-HIGH-1'] });
    playRound(s, { resolve: ['B-HIGH-2'] });
    expect(s.view.machine.state).toBe('CONVERGING');
    playRound(s, { resolve: ['B-HIGH-3'] });
    expect(s.view.machine).toMatchObject({ state: 'COMPLETE', outcome: 'MAX_ROUNDS' });
    expect(() => s.openGap('X', 'LOW')).toThrow(/COMPLETE \(MAX_ROUNDS\)/);
    expect(() => s.startRound()).toThrow(/COMPLETE/);
  });
});

describe('R13: threshold presets', () => {
  const cases = [
    { preset: 'simple', n: 2, d: 8 },
    { preset: 'complex', n: 3, d: 12 },
    { preset: 'large', n: 4, d: 16 },
  ] as const;
  for (const { preset, n, d } of cases) {
    it(`${preset} sets N=${n}, D=${d}`, () => {
      expect(toStateJson(newSession({ preset }).view).config).toMatchObject({ stallThreshold: n, divergenceThreshold: d, maxRounds: 10 });
    });
  }

  it('auto picks by baseline size when round 1 starts, with max_rounds = max(10, ceil(0.6 × baseline))', () => {
    for (const [count, n, d] of [
      [9, 2, 8],
      [10, 3, 12],
      [29, 3, 12],
      [30, 4, 16],
      [40, 4, 16],
    ] as const) {
      const s = newSession({ preset: 'auto' });
      baseline(s, 'LOW', count);
      s.startRound();
      expect(toStateJson(s.view).config).toEqual({
        stallThreshold: n,
        divergenceThreshold: d,
        maxRounds: Math.max(10, Math.ceil(0.6 * count)),
        criticalOverride: true,
      });
    }
  });

  it('explicit settings beat a preset; without one the defaults are N=2, D=8, 10 rounds, override on', () => {
    expect(toStateJson(newSession({ preset: 'large', stallThreshold: 5 }).view).config.stallThreshold).toBe(5);
    expect(toStateJson(newSession().view).config).toEqual({ stallThreshold: 2, divergenceThreshold: 8, maxRounds: 10, criticalOverride: true });
  });
});

describe('R14: both nets shown', () => {
  it('a round summary shows both nets and says the weighted one decides when their signs disagree', () => {
    const s = newSession();
    baseline(s, 'LOW', 6);
    baseline(s, 'HIGH', 1);
    playRound(s, { resolve: ['B-LOW-1', 'B-LOW-2', 'B-LOW-3'], open: [['H2', 'HIGH']] });
    const report = renderRoundReport(s.view);
    expect(report).toContain(`Unweighted net: +${3 - 1}`);
    expect(report).toContain(`Weighted net: ${expectedWeightedNet(['LOW', 'LOW', 'LOW'], ['HIGH'])}`);
    expect(report).toMatch(/disagree.*weighted net decides/);
  });

  it('no disagreement note when both nets agree', () => {
    const s = newSession();
    baseline(s, 'HIGH', 3);
    playRound(s, { resolve: ['B-HIGH-1'] });
    expect(renderRoundReport(s.view)).not.toMatch(/disagree/);
  });
});

describe('rulings at their edges', () => {
  it('R29 (over R5): escalating a deferred gap to CRITICAL does not warn; its return to OPEN as CRITICAL does', () => {
    const s = newSession();
    baseline(s, 'HIGH', 2);
    baseline(s, 'LOW', 1, 'L');
    s.startRound();
    s.moveGap('L-1', 'USER_DEFERRED');
    s.changeSeverity('L-1', 'CRITICAL');
    s.moveGap('B-HIGH-1', 'RESOLVED');
    s.closeRound();
    const round = s.view.rounds[0]!;
    // R7: a parked gap's severity moves no weighted figure; only the resolve counts.
    expect(round.weightedNet).toBe(WEIGHT.HIGH);
    expect(round.criticalIntroduced).toEqual([]);
    expect(round.state).toBe('CONVERGING');
    s.startRound();
    s.moveGap('B-HIGH-2', 'RESOLVED');
    s.moveGap('L-1', 'OPEN');
    s.closeRound();
    expect(s.view.rounds[1]!.criticalIntroduced).toEqual(['L-1']);
    expect(s.view.rounds[1]!.state).toBe('DIVERGENCE_WARNING');
  });

  it('R11: a deferred CRITICAL or HIGH gap still needs its acknowledgment to approve over', () => {
    const s = newSession();
    baseline(s, 'CRITICAL', 1, 'C');
    baseline(s, 'LOW', 2, 'L');
    playRound(s, { resolve: ['L-1'] });
    s.makeDecision('pause');
    s.makeDecision('resume');
    s.startRound();
    s.moveGap('C-1', 'USER_DEFERRED');
    s.closeRound();
    expect(() => s.makeDecision('approve')).toThrow(/CRITICAL gaps are not closed \(C-1\)/);
    s.makeDecision('approve', { acceptCritical: true });
    expect(s.view.machine.outcome).toBe('USER_APPROVED');
  });

  it('R11: an approval records the severe gaps it accepts; a caller cannot name others', () => {
    const s = newSession();
    baseline(s, 'HIGH', 1);
    baseline(s, 'LOW', 1, 'L');
    playRound(s, { resolve: ['L-1'] });
    expect(() => s.makeDecision('approve', { rationale: 'ok', gaps: ['L-1'] })).toThrow(/records the CRITICAL and HIGH gaps it accepts itself \(B-HIGH-1\)/);
    expect(() => s.makeDecision('approve', { rationale: '   ' })).toThrow(/needs a rationale/);
  });

  it('R13: auto counts baseline gaps, a deferred one included, as whole gaps', () => {
    const s = newSession({ preset: 'auto' });
    baseline(s, 'LOW', 10);
    s.moveGap('B-LOW-10', 'USER_DEFERRED');
    s.startRound();
    expect(s.view.baselineGapCount).toBe(10);
    expect(toStateJson(s.view).config.stallThreshold).toBe(3);
    expect(renderStatus(s.view)).toContain('| preset | auto: complex (10 baseline gaps) |');
  });

  it('R11: a prioritized gap leaves the focus as soon as it closes', () => {
    const s = newSession();
    baseline(s, 'HIGH', 2);
    playRound(s, {
      open: [
        ['C1', 'CRITICAL'],
        ['C2', 'CRITICAL'],
      ],
    });
    s.makeDecision('prioritize_critical');
    expect(s.view.focus).toEqual(['C1', 'C2']);
    s.moveGap('C1', 'RESOLVED');
    expect(s.view.focus).toEqual(['C2']);
    expect(renderStatus(s.view)).toContain('**Focus:** C2 (');
  });

  it('after a pause and resume in DIVERGENCE_WARNING, the next step still names the real trigger', () => {
    const s = newSession();
    baseline(s, 'HIGH', 2);
    playRound(s, { open: [['C1', 'CRITICAL']] });
    s.makeDecision('pause');
    s.makeDecision('resume');
    expect(toStateJson(s.view).decision).toMatchObject({ action: 'ask_user' });
    expect(toStateJson(s.view).decision.reason).toContain('triggered by CRITICAL introduction (C1)');
  });

  it('narrowing scope clears what a deferred gap was blocked by', () => {
    const s = newSession();
    baseline(s, 'MEDIUM', 2);
    s.moveGap('B-MEDIUM-1', 'IN_PROGRESS');
    s.moveGap('B-MEDIUM-1', 'BLOCKED', { blockedBy: 'B-MEDIUM-2' });
    playRound(s, { open: [['C1', 'CRITICAL']] });
    s.makeDecision('narrow_scope', { gaps: ['B-MEDIUM-1'] });
    expect(s.view.gaps.get('B-MEDIUM-1')).toMatchObject({ state: 'USER_DEFERRED', blockedBy: null });
  });

  it('the round that ends a session shows no flat count', () => {
    const s = newSession({ maxRounds: 2 });
    baseline(s, 'HIGH', 3);
    playRound(s, {});
    expect(playRound(s, {})).toMatchObject({ state: 'COMPLETE', flatCount: null });
    expect(s.view.machine.outcome).toBe('MAX_ROUNDS');
  });
});
