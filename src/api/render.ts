/** Renderers: a session's view as the text people and scripts read. */
export { renderPolicyCheck, renderPrompt, renderRoundReport, renderStatus, renderSummary, toDot, toMermaid } from '../render/index.js';
export { toStateJson, type StateJson } from '../core/index.js';
