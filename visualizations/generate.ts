/**
 * Writes the committed diagrams of the convergence statechart from the
 * machine definition: `npm run viz`. A test fails when they are stale.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { diagramModel, toDot, toMermaid } from '../src/render/index.js';

/** Every file this script writes, by name, with its content. */
export function diagramFiles(): Record<string, string> {
  const model = diagramModel();
  const guards = [...new Set(model.edges.map((e) => e.guard).filter((g): g is string => g !== null && g !== 'else' && g !== 'history'))];
  const readme = [
    '# visualizations',
    '',
    'The convergence statechart (`machines/convergence.ts`), generated from the',
    'machine definition by `npm run viz`, never drawn by hand; `test/visualizations/diagrams.test.ts`',
    'fails when these files are stale.',
    '',
    '- `convergence.mmd`: Mermaid `stateDiagram-v2` (rendered below by GitHub).',
    '- `convergence.dot`: Graphviz DOT (`dot -Tsvg convergence.dot > convergence.svg`).',
    "- `gapflow viz [--format mermaid|dot]` prints the same chart with a session's state marked;",
    '  `status.md` carries it too.',
    '',
    'A label reads `EVENT [guard]`; the branches of one event are tried in the order',
    'listed in the machine, and `[else]` is the branch taken when no guard before it holds.',
    "A round close goes where its one verdict says (the policies decided it, then the session's own stops:",
    'nothing left open, the round limit); `[history]`',
    "marks RESUME returning, through the machine's history state, to the state PAUSE left.",
    `Guards: ${guards.map((g) => `\`${g}\``).join(', ')}.`,
    '',
    '```mermaid',
    toMermaid(null, model).trimEnd(),
    '```',
    '',
  ].join('\n');
  return { 'convergence.mmd': toMermaid(null, model), 'convergence.dot': toDot(null, model), 'README.md': readme };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  // Run from dist/visualizations/: write next to the sources, in visualizations/.
  const folder = new URL('../../visualizations/', import.meta.url);
  for (const [name, text] of Object.entries(diagramFiles())) {
    writeFileSync(new URL(name, folder), text);
    console.log(`wrote visualizations/${name}`);
  }
}
