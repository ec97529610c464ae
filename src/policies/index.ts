export { atomsFigures, atomsRules, type AtomsMetrics, type AtomsSettings } from './atoms/index.js';
export { atomsPolicy } from './atoms/policy.js';
export { BUDGET_MEASURES, budgetRules, type BudgetMeasure, type BudgetMetrics, type BudgetSettings } from './budget/index.js';
export { budgetPolicy } from './budget/policy.js';
export { combine, withSessionRules, type CombinedVerdict, type RoundBounds, type CompleteWhen, type NamedVerdict } from './combine.js';
export {
  agreementScore,
  changeVelocity,
  forgeRules,
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
export { forgePolicy } from './forge/policy.js';
export { belowDivergence, gapCheckTree, gapsRules, gapVerdict } from './gaps/index.js';
export { gapsPolicy } from './gaps/policy.js';
export { lastRoundClosed } from './round-limit.js';
export {
  overallScore,
  QUALITY_DIMENSIONS,
  QUALITY_WEIGHTS,
  qualityFigures,
  qualityRules,
  qualityReport,
  type QualityMetrics,
  type QualitySettings,
} from './quality/index.js';
export { qualityPolicy } from './quality/policy.js';
export { QUESTIONS_PRESETS, questionsFigures, questionsFrontmatter, questionsRules, type QuestionsMetrics, type QuestionsSettings } from './questions/index.js';
export { questionsPolicy } from './questions/policy.js';
export {
  allPolicies,
  DEFAULT_POLICIES,
  metricPolicies,
  POLICY_NAMES,
  policyNamed,
  policyRulesNamed,
  readCommand,
  readStored,
  defaultSettings,
} from './registry.js';
export { renderCheckTree } from './tree.js';
export {
  definePolicy,
  eraseRules,
  formatCount,
  policyRules,
  type AgentRequest,
  type AnyPolicy,
  type AnyPolicyRules,
  type CheckTree,
  type CommandRun,
  type Figure,
  type FlagSpec,
  type FlagValues,
  type GapRoundFigures,
  type Policy,
  type PolicyRules,
  type PolicyReport,
  type PolicyVerdict,
  type RecordCommand,
  type RoundInput,
  type Verdict,
  signed,
} from './types.js';
