import type { AnyStateMachine } from 'xstate';
import { convergenceMachine } from '../../machines/index.js';

/** One transition of a flat statechart, in the order XState tries them. */
export interface DiagramEdge {
  source: string;
  target: string;
  /** The event type, or `always` for an eventless transition. */
  event: string;
  /** The guard's name; `else` for the unguarded fallback of a guarded list; null when the event has one branch. */
  guard: string | null;
}

export interface DiagramModel {
  id: string;
  initial: string;
  states: { key: string; final: boolean; description: string | undefined }[];
  edges: DiagramEdge[];
}

function guardName(guard: unknown): string | null {
  if (typeof guard === 'string') return guard;
  if (guard && typeof guard === 'object' && 'type' in guard) return String(guard.type);
  return null;
}

/**
 * Reads a flat machine's definition (states, `on` and `always` transitions,
 * guards by name), so every diagram is drawn from the machine itself.
 */
export function diagramModel(machine: AnyStateMachine = convergenceMachine): DiagramModel {
  const root = machine.root;
  const states = Object.values(root.states);
  const edges: DiagramEdge[] = [];
  for (const node of states) {
    const groups: [string, readonly { guard?: unknown; target?: readonly { key: string }[] | undefined }[]][] = [
      ...node.transitions.entries(),
    ];
    if (node.always) groups.push(['always', node.always]);
    for (const [event, branches] of groups) {
      const guarded = branches.some((b) => b.guard !== undefined);
      for (const branch of branches) {
        for (const target of branch.target ?? []) {
          edges.push({ source: node.key, target: target.key, event, guard: guardName(branch.guard) ?? (guarded ? 'else' : null) });
        }
      }
    }
  }
  return {
    id: root.id,
    initial: root.initial.target[0]?.key ?? '',
    states: states.map((node) => ({ key: node.key, final: node.type === 'final', description: node.description })),
    edges,
  };
}

function edgeLabel(edge: DiagramEdge): string {
  return edge.guard === null ? edge.event : `${edge.event} [${edge.guard}]`;
}

/**
 * The statechart as Mermaid `stateDiagram-v2`, renderable on GitHub; `current`
 * (a state key) is highlighted.
 */
export function toMermaid(current: string | null = null, model: DiagramModel = diagramModel()): string {
  const lines = ['stateDiagram-v2', '  direction LR', `  [*] --> ${model.initial}`];
  for (const edge of model.edges) lines.push(`  ${edge.source} --> ${edge.target} : ${edgeLabel(edge)}`);
  for (const state of model.states) if (state.final) lines.push(`  ${state.key} --> [*]`);
  if (current !== null) {
    lines.push('  classDef current fill:#ffd54f,stroke:#e65100,stroke-width:3px,font-weight:bold', `  class ${current} current`);
  }
  return `${lines.join('\n')}\n`;
}

function dotString(text: string): string {
  return `"${text.replace(/["\\]/g, (c) => `\\${c}`)}"`;
}

/** The statechart as Graphviz DOT; `current` (a state key) is filled. */
export function toDot(current: string | null = null, model: DiagramModel = diagramModel()): string {
  const lines = [
    `digraph ${dotString(model.id)} {`,
    '  rankdir=LR;',
    '  node [shape=box, style=rounded, fontname="Helvetica"];',
    '  edge [fontname="Helvetica", fontsize=10];',
    '  "__initial" [shape=point, label=""];',
  ];
  for (const state of model.states) {
    const attrs = [`tooltip=${dotString(state.description ?? state.key)}`];
    if (state.final) attrs.push('peripheries=2');
    if (state.key === current) attrs.push('style="rounded,filled,bold"', 'fillcolor="#ffd54f"', 'color="#e65100"');
    lines.push(`  ${dotString(state.key)} [${attrs.join(', ')}];`);
  }
  lines.push(`  "__initial" -> ${dotString(model.initial)};`);
  for (const edge of model.edges) {
    lines.push(`  ${dotString(edge.source)} -> ${dotString(edge.target)} [label=${dotString(edgeLabel(edge))}];`);
  }
  lines.push('}');
  return `${lines.join('\n')}\n`;
}
