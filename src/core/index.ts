export { decide } from './decide.js';
export { whyNoMetricPolicy } from './decide.js';
export { policyReports, policyStateFormat, stateFormatNames } from './policy-outputs.js';
export { enabledPolicies, evolve, evolveMany, fold, initialView, resolveConfig, settle, startFold, type Folding } from './evolve.js';
export { judgeDecision, judgeRoundClose, machineEventOf } from './judge.js';
export {
  decodeView,
  encodeView,
  viewBytesAtLeast,
  VIEW_SHAPE,
  HEAD_ROUNDS,
  HEAD_WHOLE_GAPS,
  headOf,
  cutHead,
  headIsExact,
  fallsPastHead,
  namedByLoop,
  indexLines,
  NOTHING_LEFT_OUT,
  type CutHead,
  leavesGapsOut,
  answersLoop,
  type IndexMark,
  crc32,
  deepFreeze,
  freezeNew,
  CLOSED_BUCKETS,
  checkedBucket,
  closedBucketOf,
  closedIndexLines,
  closedIndexLookUp,
  closedIndexOf,
  closedTableOf,
  DamagedIndex,
  encodeClosedIndex,
  extendClosedIndex,
  lookUpClosed,
  type ClosedBucket,
  type ClosedGap,
  type ClosedIndexParts,
} from './view-codec.js';
export { decodeHead, decodeHeadSummary, decodeMarkedHead, encodeCutHead, SUMMARY_STATES } from './view-codec.js';
export { encodeHead, summaryOf } from './read-model.js';
export { auditHistory, type Finding } from './audit.js';
export {
  closedRoundCount,
  closedRoundNumbered,
  closedRounds,
  isOpen,
  lastClosedRound,
  roundCount,
  openCount,
  severeUnfinished,
  unfinishedGaps,
} from './read-model.js';
export { forecast, FORECAST_ROUNDS, FORECAST_WINDOW, trendLine, type Forecast, type ForecastReason } from './read-model.js';
export { forecastPastLimit, viewForecast } from './read-model.js';
export { nextStep, type NextAction } from './read-model.js';
export { decisionOptions, listedGaps, topListedGaps, stalledIn, suggestedDeferrals, type DecisionOption, type Recommendation } from './options.js';
export { formatCount, signed } from '../policies/index.js';
export { Refusal, type Remedy } from './refusal.js';
export {
  ALLOWED_MOVES,
  countedMove,
  DEFAULT_CONFIG,
  LISTED_GAPS,
  moveEffect,
  type MoveEffect,
  PRESETS,
  presetForBaseline,
  SEVERITIES,
  SEVERITY_WEIGHT,
  STATE_CLASS,
} from './rules.js';
export { stepMachine } from './step.js';
export { toStateJson, type StateJson } from './read-model.js';
export type * from './view.js';
export { agentStopRequest, loopStep, openGapsBySeverity, standingStopRequest, type LoopStep, type StopRequest } from './loop.js';
export { hookDecision, hookStep, type HookCall, type HookContext, type HookDecision, type HookRule, type HookStep } from './hook.js';
export {
  currentVerdict,
  metricPoliciesOf,
  missingMetrics,
  policyStates,
  roundInput,
  standingInput,
  roundLimit,
  soleNarrator,
  tracksGaps,
  type PolicyState,
} from './read-model.js';
export {
  ALTERNATING_ROUNDS,
  alternatingOpenCount,
  alternatingWords,
  DEFAULT_PING_PONG,
  pingPongGaps,
  pingPongThreshold,
  pingPongWords,
  standingCauses,
  claimedGaps,
  idList,
  type AlternatingOpenCount,
  type PingPongGap,
} from './read-model.js';
export { formatSeconds, freshRun, GATE_DEFAULT_TIMEOUT_SECONDS, GATE_FLAG, GATE_TIMEOUT_FLAG, GATED_OUTCOMES, gatedCompletion, runWords } from './gate.js';
export {
  counterfactual,
  recordedCourse,
  withSettings,
  type BacktestSettings,
  type Counterfactual,
  type Course,
  type Divergence,
  type Stop,
  type Warning,
} from './backtest.js';
export { compareCourses, type Comparison, type StopShift } from './backtest-compare.js';
export { backtestSession, variantGrid, type BacktestRow, type SessionBacktest, type Variant } from './backtest-run.js';
