export { escapeMarkdown, table, terminalMarkdown } from './markdown.js';
export { terminalSafe, terminalSafeJson, terminalSafeLines } from './terminal.js';
export { renderPrompt } from './prompt.js';
export { gapEntry, optionEntries, type GapEntry, type OptionEntry } from './options.js';
export { renderRoundReport } from './round.js';
export { renderStatus } from './status.js';
export { renderDecisions } from './decisions.js';
export { renderSummary } from './summary.js';
export { renderWatchFrame, type FrameOptions } from './watch.js';
export { chartSample, MAX_CHART_POINTS, renderGithubSummary, STEP_SUMMARY_HEADROOM_BYTES, STEP_SUMMARY_MAX_BYTES } from './github.js';
export { diagramModel, toDot, toMermaid, type DiagramEdge, type DiagramModel } from './diagram.js';
export { policySections, renderPolicyCheck } from './policies.js';
export {
  announcementJson,
  gapMovedLine,
  gapOpenedLine,
  gapRenamedLine,
  gapSplitLine,
  renderAnnouncement,
  severityChangedLine,
} from './gap-lines.js';
export {
  decidedLine,
  initLines,
  nothingToDecideLine,
  recordedLines,
  replayLine,
  roundClosedLines,
  roundStartedLine,
  stateLines,
  summaryNotDue,
  wroteLine,
} from './cli.js';
export {
  appendedSummaryLine,
  appendLines,
  jobSummaryTooBig,
  claudeHookAnswer,
  environmentErrorLine,
  errorLine,
  failureJson,
  type FailureReport,
  hookWarningLine,
  nextLine,
  unapprovedCheckNote,
  inspectingLines,
  recordPolicyProblem,
  refusalLine,
  REMEDY_HINT,
  repairedLine,
  stateFormatNotEnabled,
  statusNotRewrittenLine,
  recordedButNotWrittenLine,
  unmarkedChartLine,
  unknownOutcome,
  USAGE_HINT,
  usageErrorLine,
  valueRemedy,
  verifiedLines,
  type AppendedLine,
  syncLines,
  type SyncSummary,
} from './cli-messages.js';
export { hookVerdict, HOOK_TEXT_CAP, type HookVerdict } from './hook.js';
export { harnessFailureAnswer, harnessHookAnswer, HARNESSES, hookFailureAnswer, misfiredHookAnswer, type Harness, type HookAnswer } from './hook-answer.js';
export { fitLines, itemList, jsonLength, type ItemList, type Line } from './fit.js';
export { backtestLines, type NamedBacktest } from './backtest.js';
