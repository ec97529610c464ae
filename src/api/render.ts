/** Renderers: a session's view as the text people and scripts read. */
export {
  hookVerdict,
  renderPolicyCheck,
  renderPrompt,
  renderRoundReport,
  renderStatus,
  renderSummary,
  toDot,
  toMermaid,
  type HookVerdict,
} from '../render/index.js';
export { toStateJson, type StateJson } from '../core/index.js';
