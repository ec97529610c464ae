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
export { JUNIT_SOURCE, readJunit } from './junit.js';
export { readXml, XML_DEPTH_MAX, XML_ELEMENTS_MAX, type XmlElement } from './xml.js';
export { firstBadOffset, JSON_DEPTH_MAX, parseJsonText, readFindingsJson } from './json.js';
export { readSarif } from './sarif.js';
export { formatOfText, readSnapshot } from './read.js';
