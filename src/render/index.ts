export { escapeMarkdown, table } from './markdown.js';
export { renderPrompt } from './prompt.js';
export { renderRoundReport } from './round.js';
export { renderStatus } from './status.js';
export { renderSummary } from './summary.js';
export { diagramModel, toDot, toMermaid, type DiagramEdge, type DiagramModel } from './diagram.js';
export { policySections, renderPolicyCheck } from './policies.js';
export {
  decidedLine,
  gapMovedLine,
  gapOpenedLine,
  initLines,
  nothingToDecideLine,
  recordedLines,
  renderAnnouncement,
  replayLine,
  roundClosedLines,
  roundStartedLine,
  severityChangedLine,
  stateLines,
  summaryNotDue,
  wroteLine,
} from './cli.js';
export {
  appendLines,
  claudeHookAnswer,
  environmentErrorLine,
  errorLine,
  hookWarningLine,
  nextLine,
  inspectingLines,
  recordPolicyProblem,
  refusalLine,
  REMEDY_HINT,
  repairedLine,
  stateFormatNotEnabled,
  unknownStateFormat,
  unmarkedChartLine,
  usageErrorLine,
  verifiedLines,
  type AppendedLine,
} from './cli-messages.js';
export { hookVerdict, HOOK_TEXT_CAP, type HookVerdict } from './hook.js';
export { hookFailureAnswer, misfiredHookAnswer } from './hook-answer.js';
export { fitLines, itemList, jsonLength, type ItemList, type Line } from './fit.js';
