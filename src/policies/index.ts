export { atomsFigures, atomsPolicy, type AtomsMetrics, type AtomsSettings } from './atoms/index.js';
export { combine, withSessionRules, type CombinedVerdict, type RoundBounds, type CompleteWhen, type NamedVerdict } from './combine.js';
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
export { belowDivergence, gapCheckTree, gapsPolicy, gapVerdict } from './gaps/index.js';
export { lastRoundClosed } from './round-limit.js';
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
export { allPolicies, DEFAULT_POLICIES, metricPolicies, POLICY_NAMES, policyNamed } from './registry.js';
export { renderCheckTree } from './tree.js';
export {
  definePolicy,
  type AgentRequest,
  type AnyPolicy,
  type CheckTree,
  type CommandRun,
  type Figure,
  type FlagSpec,
  type FlagValues,
  type GapRoundFigures,
  type Policy,
  type PolicyReport,
  type PolicyVerdict,
  type RecordCommand,
  type RoundInput,
  type Verdict,
} from './types.js';
export { formatCount, signed } from './numbers.js';
