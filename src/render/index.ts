export { escapeMarkdown, table } from './markdown.js';
export { renderPrompt } from './prompt.js';
export { renderRoundReport } from './round.js';
export { renderStatus } from './status.js';
export { renderSummary } from './summary.js';
export { diagramModel, toDot, toMermaid, type DiagramEdge, type DiagramModel } from './diagram.js';
export { policySections, renderPolicyCheck } from './policies.js';
