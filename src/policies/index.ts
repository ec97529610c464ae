export { agentStopRequest, atomsFigures, atomsPolicy, type AgentStopRequest, type AtomsMetrics, type AtomsSettings } from './atoms/index.js';
export { combine, type CombinedVerdict, type CompleteWhen, type NamedVerdict } from './combine.js';
export {
  agreementScore,
  changeVelocity,
  forgePolicy,
  isStalled,
  issueScore,
  parseVote,
  scoreHistory,
  scoreRound,
  sectionStability,
  textSimilarity,
  trendOf,
  type ForgeMetrics,
  type ForgeSettings,
  type Vote,
} from './forge/index.js';
export { gapCheckTree, gapVerdict, type GapRoundFigures } from './gaps.js';
export {
  overallScore,
  QUALITY_DIMENSIONS,
  QUALITY_WEIGHTS,
  qualityFigures,
  qualityPolicy,
  qualityReport,
  type QualityMetrics,
  type QualitySettings,
} from './quality/index.js';
export { QUESTIONS_PRESETS, questionsFigures, questionsFrontmatter, questionsPolicy, type QuestionsMetrics, type QuestionsSettings } from './questions/index.js';
export { GAPS, metricPolicies, POLICY_NAMES, policyNamed } from './registry.js';
export { renderCheckTree } from './tree.js';
export {
  definePolicy,
  type AnyPolicy,
  type CheckTree,
  type CommandRun,
  type Figure,
  type FlagSpec,
  type FlagValues,
  type Policy,
  type PolicyReport,
  type PolicyVerdict,
  type RecordCommand,
  type Verdict,
} from './types.js';
