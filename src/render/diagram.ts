import type { AnyStateMachine, AnyStateNode } from 'xstate';
import { convergence, guardName } from '../../machines/index.js';

/** One transition between the states a session can be in, in the order XState tries them. */
export interface DiagramEdge {
  source: string;
  target: string;
  /** The event type, or `always` for an eventless transition. */
  event: string;
  /** The guard's name; `else` for the unguarded fallback of a guarded list; `history` for a return through a history state; null when the event has one branch. */
  guard: string | null;
}

export interface DiagramModel {
  id: string;
  initial: string;
  states: { key: string; final: boolean; description: string | undefined }[];
  edges: DiagramEdge[];
}

type Branch = { guard?: unknown; target?: readonly AnyStateNode[] | undefined };

function descendants(node: AnyStateNode): AnyStateNode[] {
  return Object.values(node.states).flatMap((child) => [child, ...descendants(child)]);
}

const isLeaf = (node: AnyStateNode) => node.type === 'atomic' || node.type === 'final';

/** The leaf a target enters: itself, or its initial leaf; a history state, every leaf it can return to (never a pass-through one). */
function leavesEntered(target: AnyStateNode): { leaves: AnyStateNode[]; history: boolean } {
  if (target.type === 'history') {
    return { leaves: descendants(target.parent!).filter((n) => isLeaf(n) && !n.always), history: true };
  }
  let node = target;
  while (!isLeaf(node)) node = node.initial.target[0]!;
  return { leaves: [node], history: false };
}

/**
 * Reads the machine's definition (states, `on` and `always` transitions,
 * guards by name), so every diagram is drawn from the machine itself. The
 * diagram shows the states a session can be in (the machine's leaves); a
 * transition a parent state defines is drawn from each leaf inside it that
 * rests (not from a pass-through one), and a return through the history
 * state to each leaf it can return to. A transition with no target (an
 * extension of the round limit, a flat round that is not work) is drawn as
 * a loop on the leaf it leaves as it was.
 */
export function diagramModel(machine: AnyStateMachine = convergence()): DiagramModel {
  const leaves = descendants(machine.root).filter(isLeaf);
  const edges: DiagramEdge[] = [];
  for (const leaf of leaves) {
    // A pass-through state (STALLED) leaves at once, so no event reaches it: only its own step is drawn.
    const top = leaf.always ? leaf.parent : machine.root;
    for (let node: AnyStateNode | undefined = leaf; node && node !== top; node = node.parent) {
      const groups: [string, readonly Branch[]][] = [...node.transitions.entries()];
      if (node.always) groups.push(['always', node.always]);
      for (const [event, branches] of groups) {
        const guarded = branches.some((b) => b.guard !== undefined);
        for (const branch of branches) {
          // A branch with no target is taken where the session is (the state stays): a loop on the leaf.
          for (const target of branch.target?.length ? branch.target : [leaf]) {
            const { leaves: entered, history } = leavesEntered(target);
            const guard = guardName(branch.guard) ?? (history ? 'history' : guarded ? 'else' : null);
            for (const to of entered) edges.push({ source: leaf.key, target: to.key, event, guard });
          }
        }
      }
    }
  }
  return {
    id: machine.root.id,
    initial: leavesEntered(machine.root).leaves[0]?.key ?? '',
    states: leaves.map((node) => ({ key: node.key, final: node.type === 'final', description: node.description })),
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
