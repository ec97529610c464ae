import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMachine, type AnyStateMachine } from 'xstate';
import { convergenceMachine } from '../../src/index.js';
import { diagramModel, toDot, toMermaid } from '../../src/render/index.js';
import { diagramFiles } from '../../visualizations/generate.js';
import { divergingAfterRoundOne, flatAfterRoundOne, Sandbox } from '../cli/helpers.js';

/** Every (source, event, target) the machine can take, read straight from its state nodes. */
function transitionsOf(machine: AnyStateMachine): string[] {
  const found: string[] = [];
  for (const node of Object.values(machine.root.states)) {
    for (const [event, branches] of node.transitions) {
      for (const branch of branches) for (const target of branch.target ?? []) found.push(`${node.key} --> ${target.key} : ${event}`);
    }
    for (const branch of node.always ?? []) for (const target of branch.target ?? []) found.push(`${node.key} --> ${target.key} : always`);
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
    const changed = createMachine({
      ...convergenceMachine.config,
      states: {
        ...convergenceMachine.config.states,
        PAUSED: { on: { ...convergenceMachine.config.states?.PAUSED?.on, FORCE_COMPLETE: 'COMPLETE' } },
      },
    });
    const model = diagramModel(changed);
    expect(toMermaid(null, model)).not.toBe(diagramFiles()['convergence.mmd']);
    expect(toDot(null, model)).not.toBe(diagramFiles()['convergence.dot']);
    expect(toMermaid(null, model)).toContain('PAUSED --> COMPLETE : FORCE_COMPLETE');
  });
});

describe('the diagrams are drawn from the machine', () => {
  const mermaid = toMermaid();
  const dot = toDot();
  const transitions = transitionsOf(convergenceMachine);

  it('draw every transition of the machine, and no other', () => {
    expect(transitions.length).toBeGreaterThan(20);
    for (const t of transitions) expect(mermaid).toContain(t);
    const drawn = mermaid.split('\n').filter((l) => l.includes(' --> ') && !l.includes('[*]'));
    expect(drawn).toHaveLength(transitions.length);
    const dotEdges = dot.split('\n').filter((l) => l.includes(' -> ') && !l.includes('__initial'));
    expect(dotEdges).toHaveLength(transitions.length);
  });

  it('name the guard of each guarded branch, in the order XState tries them', () => {
    const converging = mermaid.split('\n').filter((l) => l.trim().startsWith('CONVERGING --> ') && l.includes('ROUND_CLOSED'));
    const guards = converging.map((l) => /\[(\w+)\]/.exec(l)?.[1]);
    expect(guards).toEqual([
      'nothingLeftOpen',
      'lastRoundClosed',
      'criticalIntroduced',
      'weightedNetBelowDivergence',
      'weightedNetPositive',
      'policiesConverged',
      'policyStopRequested',
      'policyLimitReached',
      'policiesDiverging',
      'policiesProgressing',
      'flatCountReachesStall',
      'else',
    ]);
  });

  it('start at the initial state and mark COMPLETE as final', () => {
    expect(mermaid).toContain(`[*] --> ${String(convergenceMachine.config.initial)}`);
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

  it('refuses an unknown format as a usage error', () => {
    const result = box.gf('viz', '--format', 'svg');
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('"svg"');
  });
});
