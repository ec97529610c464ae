import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMachine, getMicrosteps } from 'xstate';
import { CONVERGENCE_STATES, convergence, leafOf, snapshotOf, VERDICTS, type ConvergenceEvent, type MachineState } from '../../machines/index.js';
import { diagramModel, toDot, toMermaid } from '../../src/render/index.js';
import { diagramFiles } from '../../visualizations/generate.js';
import { divergingAfterRoundOne, flatAfterRoundOne, Sandbox } from '../cli/helpers.js';

const convergenceMachine = convergence();

const config = { stallThreshold: 2, divergenceThreshold: 8, maxRounds: 10, criticalOverride: true };
const EVENTS: ConvergenceEvent[] = [
  ...VERDICTS.map((verdict) => ({ type: 'ROUND_CLOSED' as const, round: 1, verdict: { verdict, reason: 'test' } })),
  { type: 'ROUND_CLOSED', round: 1, verdict: { verdict: 'flat', reason: 'test' }, kind: 'review' },
  ...(['NARROW_SCOPE', 'ACCEPT_COMPLEXITY', 'PRIORITIZE_CRITICAL', 'PRIORITIZE', 'EXTEND_ROUNDS', 'PAUSE', 'RESUME', 'FORCE_COMPLETE', 'ABANDON'] as const).map(
    (type) => ({ type }),
  ),
  { type: 'APPROVE', openCriticalOrHigh: 0 },
  { type: 'APPROVE', openCriticalOrHigh: 1 },
];

/**
 * Every (source, target, event) step a session can take, found by running
 * each event from each state the log can record (flat counts on both sides
 * of the stall, each place a pause can return to), not by reading the
 * machine's definition as the diagram does.
 */
function stepsTaken(): Set<string> {
  const records: MachineState[] = [];
  // STALLED is passed through, never rested in (R4): no record holds it.
  for (const state of CONVERGENCE_STATES.filter((s) => s !== 'STALLED')) {
    for (const flatCount of [0, 1]) {
      const pauses = state === 'PAUSED' ? (['CONVERGING', 'FLAT', 'DIVERGENCE_WARNING'] as const) : [null];
      for (const pausedFrom of pauses) records.push({ state, flatCount, outcome: state === 'COMPLETE' ? 'ABANDONED' : null, pausedFrom });
    }
  }
  const found = new Set<string>();
  for (const record of records) {
    for (const event of EVENTS) {
      let snapshot = snapshotOf(record, config);
      if (!snapshot.can(event)) continue;
      getMicrosteps(convergenceMachine, snapshot, event).forEach(([next], i) => {
        found.add(`${leafOf(snapshot.value)} --> ${leafOf(next.value)} : ${i === 0 ? event.type : 'always'}`);
        snapshot = next;
      });
    }
  }
  return found;
}

describe('the committed diagrams', () => {
  it('are what the generator makes from the machine now (run `npm run viz` after changing the machine)', () => {
    for (const [name, text] of Object.entries(diagramFiles())) {
      expect(readFileSync(new URL(`../../visualizations/${name}`, import.meta.url), 'utf8'), `visualizations/${name} is stale`).toBe(text);
    }
  });

  it('would be stale after a change to the machine: one more transition changes both diagrams', () => {
    const states = convergenceMachine.config.states!;
    const changed = createMachine({
      ...convergenceMachine.config,
      states: { ...states, COMPLETE: { ...states.COMPLETE, type: 'atomic', on: { RESUME: '#CONVERGING' } } },
    });
    const model = diagramModel(changed);
    expect(toMermaid(null, model)).not.toBe(diagramFiles()['convergence.mmd']);
    expect(toDot(null, model)).not.toBe(diagramFiles()['convergence.dot']);
    expect(toMermaid(null, model)).toContain('COMPLETE --> CONVERGING : RESUME');
  });
});

describe('the diagrams are drawn from the machine', () => {
  const mermaid = toMermaid();
  const dot = toDot();
  it('draw every step a session can take, and no other', () => {
    const taken = stepsTaken();
    expect(taken.size).toBeGreaterThan(20);
    const drawn = mermaid.split('\n').filter((l) => l.includes(' --> ') && !l.includes('[*]'));
    expect(new Set(drawn.map((l) => l.trim().replace(/ \[\w+\]$/, '')))).toEqual(taken);
    const dotEdges = dot.split('\n').filter((l) => l.includes(' -> ') && !l.includes('__initial'));
    expect(dotEdges).toHaveLength(drawn.length);
  });

  it('name the guard of each guarded branch, in the order XState tries them', () => {
    const converging = mermaid.split('\n').filter((l) => l.trim().startsWith('CONVERGING --> ') && l.includes('ROUND_CLOSED'));
    const guards = converging.map((l) => /\[(\w+)\]/.exec(l)?.[1]);
    expect(guards).toEqual([
      'roundConverged',
      'stopRequested',
      'roundLimitReached',
      'roundDiverged',
      'roundProgressed',
      'flatRoundNotWork',
      'flatCountReachesStall',
      'else',
    ]);
  });

  it('start at the initial state and mark COMPLETE as final', () => {
    expect(mermaid).toContain('[*] --> CONVERGING');
    expect(mermaid).toContain('COMPLETE --> [*]');
    expect(dot).toMatch(/"COMPLETE" \[[^\]]*peripheries=2/);
  });

  it('mark the current state only when one is given', () => {
    expect(mermaid).not.toContain('class ');
    expect(toMermaid('FLAT')).toContain('class FLAT current');
    expect(toDot('FLAT')).toMatch(/"FLAT" \[[^\]]*fillcolor/);
    expect(toDot('FLAT').match(/fillcolor/g)).toHaveLength(1);
  });
});

describe('gapflow viz', () => {
  let box: Sandbox;
  beforeEach(() => {
    box = new Sandbox();
  });
  afterEach(() => {
    box.remove();
  });

  it('prints the Mermaid chart with the session state marked', () => {
    flatAfterRoundOne(box);
    const result = box.gf('viz');
    expect(result.code).toBe(0);
    expect(result.stdout.startsWith('stateDiagram-v2')).toBe(true);
    expect(result.stdout).toContain('class FLAT current');
  });

  it('prints DOT with --format dot, and the state in --json', () => {
    divergingAfterRoundOne(box);
    const dot = box.gf('viz', '--format', 'dot');
    expect(dot.stdout.startsWith('digraph')).toBe(true);
    expect(dot.stdout).toMatch(/"DIVERGENCE_WARNING" \[[^\]]*fillcolor/);
    const json = JSON.parse(box.gf('viz', '--format', 'DOT', '--json').stdout) as { format: string; state: string; diagram: string };
    expect(json).toMatchObject({ format: 'dot', state: 'DIVERGENCE_WARNING' });
    expect(json.diagram).toBe(dot.stdout);
  });

  it('prints the unmarked chart when the folder holds no session, and says so', () => {
    const result = box.gf('viz');
    expect(result.code).toBe(0);
    expect(result.stdout).not.toContain('class ');
    expect(result.stderr).toMatch(/no session in .*unmarked/);
  });

  it('refuses an unknown format as an invalid value (exit 1), naming the formats it draws', () => {
    const result = box.gf('viz', '--format', 'svg');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('"svg" is not one of mermaid, dot');
  });

  it('takes a format in any case', () => {
    const result = box.gf('viz', '--format', 'DOT');
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^digraph /);
  });
});
