import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EVENT_VERSION } from '../../events/index.js';
import { atBaseline, expectRefused, inRoundOne, runCli, Sandbox } from './helpers.js';

/*
 * The CLI of issue 15's gap moves: `gap move ID DUPLICATE --of OTHER`,
 * `gap split ID --into A:SEV,B:SEV`, `gap rename OLD NEW` and the UNTRIAGED
 * severity, each word in any spelling, the same through `append`.
 */

let box: Sandbox;
beforeEach(() => {
  box = new Sandbox();
});
afterEach(() => box.remove());

const lastEvent = () => JSON.parse(box.logLines().at(-1)!) as { v: number; type: string; data: Record<string, unknown> };

describe('gap move ID DUPLICATE --of OTHER', { timeout: 60_000 }, () => {
  it('withdraws the gap: the line says so, and the closed round shows it apart from resolved', () => {
    inRoundOne(box);
    const moved = box.ok('gap', 'move', 'GAP-M1', 'duplicate', '--of', 'GAP-H1');
    expect(moved.stdout).toBe('GAP-M1: OPEN -> DUPLICATE of GAP-H1 (withdrawn: counts as neither resolved nor new); open count 1\n');
    expect(lastEvent()).toMatchObject({ v: EVENT_VERSION, type: 'gap.moved', data: { id: 'GAP-M1', to: 'DUPLICATE', of: 'GAP-H1' } });
    box.ok('round', 'close');
    const [round] = box.stateJson().rounds;
    expect(round).toMatchObject({ resolved: 0, new: 0, withdrawn: 1, openStart: 2, openEnd: 1, state: 'FLAT' });
  });

  it('a CRITICAL duplicate reopened in the same round takes the withdrawal back: nothing withdrawn or new, no CRITICAL override', () => {
    box.ok('init');
    box.steps('gap open GAP-C1 --severity CRITICAL', 'gap open GAP-C2 --severity CRITICAL', 'gap open GAP-L1 --severity LOW', 'round start');
    box.steps('gap move GAP-C2 DUPLICATE --of GAP-C1', 'gap move GAP-C2 OPEN', 'gap move GAP-L1 RESOLVED');
    const closed = box.ok('round', 'close');
    expect(closed.stdout).toMatch(/^Round 1 closed: CONVERGING\n/);
    expect(closed.stdout).not.toContain('Withdrawn');
    const [round] = box.stateJson().rounds;
    // GAP-L1 (LOW, 1) resolved is the round's only figure: 3 open at the start, 2 at the end.
    expect(round).toMatchObject({ resolved: 1, new: 0, weightedResolved: 1, weightedNew: 0, openStart: 3, openEnd: 2, state: 'CONVERGING' });
    expect(round).not.toHaveProperty('withdrawn');
  });

  it('without --of it is a usage error and nothing is written', () => {
    inRoundOne(box);
    expectRefused(box, ['gap', 'move', 'GAP-M1', 'DUPLICATE'], ['gap move GAP-M1 DUPLICATE needs --of ID'], 2);
  });
});

describe('gap split ID --into A:SEV,B:SEV', { timeout: 60_000 }, () => {
  it('records one event with its parts, their severities in any spelling', () => {
    inRoundOne(box);
    const done = box.ok('gap', 'split', 'GAP-H1', '--into', 'GAP-H1.1:high,GAP-H1.2:Low');
    expect(done.stdout).toContain('GAP-H1: split into GAP-H1.1 (HIGH), GAP-H1.2 (LOW)');
    expect(lastEvent()).toMatchObject({
      type: 'gap.split',
      data: {
        id: 'GAP-H1',
        into: [
          { id: 'GAP-H1.1', severity: 'HIGH' },
          { id: 'GAP-H1.2', severity: 'LOW' },
        ],
      },
    });
    box.ok('round', 'close');
    // HIGH (4) into HIGH + LOW (5): one new gap, weighted new 1; no resolution.
    expect(box.stateJson().rounds[0]).toMatchObject({ new: 1, resolved: 0, weightedNew: 1, openEnd: 3 });
  });

  it("a split outside a chosen focus is flagged, and its weight lands in the parts' own severity rows", () => {
    box.ok('init');
    box.steps(
      'gap open GAP-H1 --severity HIGH',
      'gap open GAP-M1 --severity MEDIUM',
      'gap open GAP-L1 --severity LOW',
      'round start',
      'gap move GAP-L1 RESOLVED',
      'round close',
    );
    box.steps('decide prioritize --gaps GAP-M1', 'gap split GAP-H1 --into A:HIGH,B:MEDIUM,C:LOW');
    const closed = box.ok('round', 'close');
    expect(closed.stdout).toContain('Outside the focus: GAP-H1');
    const status = box.ok('status').stdout;
    // HIGH (4) into HIGH + MEDIUM + LOW: the HIGH row loses 4 and gains 4; MEDIUM gains 2, LOW 1; two new gaps, weighted net -3.
    expect(status).toContain('| HIGH | 0 | 0 | 0 |');
    expect(status).toContain('| MEDIUM | 0 | 1 | -2 |');
    expect(status).toContain('| LOW | 0 | 1 | -1 |');
    expect(status).toContain('| **Total** | **0** (weight: 0) | **2** (weight: 3) | **-3** |');
  });

  it('a part without a severity is refused naming it, and nothing is written', () => {
    inRoundOne(box);
    expectRefused(box, ['gap', 'split', 'GAP-H1', '--into', 'A,B:LOW'], ['--into', 'part "A" needs a severity']);
    expectRefused(box, ['gap', 'split', 'GAP-H1', '--into', 'A:HUGE,B:LOW'], ['--into', '"HUGE"', 'UNTRIAGED']);
  });
});

describe('gap rename OLD NEW', { timeout: 60_000 }, () => {
  it('renames the gap, counts nothing and retires the old id for good', () => {
    atBaseline(box);
    const done = box.ok('gap', 'rename', 'GAP-M1', 'RETRIES-1');
    expect(done.stdout).toBe('GAP-M1 is now RETRIES-1 (a rename counts nothing; GAP-M1 is never used again)\n');
    const state = box.stateJson();
    expect(state.gaps.map((g) => g.id)).toEqual(['GAP-H1', 'RETRIES-1']);
    expect(state).toMatchObject({ openGapCount: 2, renames: [{ from: 'GAP-M1', to: 'RETRIES-1', afterRound: 0 }] });
    expectRefused(box, ['gap', 'open', 'GAP-M1', '--severity', 'LOW'], ['id GAP-M1 was used before', 'ids are never reused']);
  });
});

describe('gap rename OLD NEW after a decision named the gap', { timeout: 60_000 }, () => {
  it('decisions.md, status.md, the prompt, check and state --json all name it by its id now', () => {
    atBaseline(box);
    box.steps('round start', 'gap open GAP-C1 --severity CRITICAL', 'round close', 'gap rename GAP-C1 SCHEMA-1');
    // Renamed while the warning waits for a decision: the prompt and the next step name it by its id now.
    const prompt = box.ok('prompt').stdout + box.ok('next').stdout;
    expect(prompt).not.toContain('GAP-C1');
    expect(prompt).toContain('triggered by CRITICAL introduction (SCHEMA-1)');
    box.steps('decide prioritize-critical --gaps SCHEMA-1 --rationale schema-first', 'round start', 'gap rename SCHEMA-1 SCHEMA-2');
    const outputs = {
      decisions: box.ok('status', '--decisions').stdout,
      status: box.ok('status').stdout,
      check: box.ok('check').stdout,
      state: JSON.stringify({ ...box.stateJson(), renames: [] }),
    };
    for (const [where, text] of Object.entries(outputs)) expect(text, where).not.toMatch(/GAP-C1|SCHEMA-1\b/);
    expect(outputs.decisions).toContain(
      '| prioritize critical | SCHEMA-2 | rationale: schema-first | user prioritized CRITICAL: focus on SCHEMA-2; flat_count reset to 0 |',
    );
    expect(outputs.status).toContain('triggered by CRITICAL introduction (SCHEMA-2)');
  });
});

describe('UNTRIAGED', { timeout: 60_000 }, () => {
  it('opens in any spelling, weighs 2 and is counted in the round close', () => {
    inRoundOne(box);
    box.ok('gap', 'open', 'U1', '--severity', 'untriaged');
    expect(box.stateJson()).toMatchObject({ weightedOpen: 4 + 2 + 2, untriagedGapCount: 1 });
    const closed = box.ok('round', 'close');
    expect(closed.stdout).toContain('Untriaged: 1 gap still without a severity');
  });
});

describe('append knows the new events and words', { timeout: 60_000 }, () => {
  it('takes gap.split, gap.renamed and a DUPLICATE move in any spelling and logs the canonical words', () => {
    inRoundOne(box);
    const lines = [
      {
        type: 'Gap.Split',
        data: {
          id: 'GAP-H1',
          into: [
            { id: 'A', severity: 'critical' },
            { id: 'B', severity: 'Untriaged' },
          ],
        },
      },
      { type: 'gap.moved', data: { id: 'B', to: 'duplicate', of: 'A' } },
      { type: 'GAP.RENAMED', data: { id: 'A', newId: 'A2' } },
    ];
    const result = runCli(['append', '--dir', box.dir], { cwd: box.root, stdin: lines.map((l) => `${JSON.stringify(l)}\n`).join('') });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const logged = box
      .logLines()
      .slice(-3)
      .map((line) => JSON.parse(line) as { type: string; data: unknown });
    expect(logged.map((e) => e.type)).toEqual(['gap.split', 'gap.moved', 'gap.renamed']);
    expect(logged[0]!.data).toMatchObject({ into: [{ severity: 'CRITICAL' }, { severity: 'UNTRIAGED' }] });
    expect(logged[1]!.data).toMatchObject({ to: 'DUPLICATE', of: 'A' });
  });
});
