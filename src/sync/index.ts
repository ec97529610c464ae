export {
  badInput,
  DEFAULT_SEVERITY,
  findingId,
  severityOf,
  sourceNameProblem,
  SYNC_FORMATS,
  SyncInputError,
  titleOf,
  TOOL_SEVERITIES,
  type Finding,
  type ReadOptions,
  type SeverityOverrides,
  type Snapshot,
  type SyncFormat,
  type ToolSeverity,
} from './finding.js';
export { firstBadOffset, JSON_DEPTH_MAX, parseJsonText, readFindingsJson } from './json.js';
export { readSarif } from './sarif.js';
