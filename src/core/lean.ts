/*
 * The core's second door: what answers the loop's questions from a view
 * (the next step, a stop hook's decision, the head checkpoint's codec),
 * with nothing that loads zod, xstate or immer: the bin's short path for
 * `next` and a stop hook (src/cli/head-answers.ts) reaches no further.
 * Everything here is in index.ts too.
 */
export { forecast, FORECAST_ROUNDS, FORECAST_WINDOW, trendLine, type Forecast, type ForecastReason } from './forecast.js';
export { forecastPastLimit, viewForecast } from './session-forecast.js';
export { hookStep, type HookCall, type HookContext, type HookDecision, type HookStep } from './hook.js';
export { closedRoundCount, closedRounds, isOpen, lastClosedRound, openCount } from './inventory.js';
export { loopStep, standingStopRequest, type LoopStep } from './loop.js';
export { nextStep } from './next.js';
export { decisionOptions, listedGaps, stalledIn, suggestedDeferrals, type DecisionOption, type Recommendation } from './options.js';
export { metricPoliciesOf, missingMetrics, roundLimit, soleNarrator, tracksGaps } from './policies.js';
export { Refusal, type Remedy } from './refusal.js';
export { countedMove, presetForBaseline, SEVERITIES, STATE_CLASS, type MoveEffect } from './rules.js';
export { decodeHead, decodeMarkedHead, encodeHead, HEAD_ROUNDS, headOf, type IndexMark } from './view-head.js';
export { VIEW_SHAPE } from './view-json.js';
export type * from './view.js';
export { formatCount, signed } from '../policies/lean.js';
export { closedIndexLines, closedIndexLookUp, DamagedIndex, extendClosedIndex, lookUpClosed, type ClosedGap, type ClosedIndexParts } from './closed-index.js';
export { changeSeverity, moveGap, openGap } from './evolve-gaps.js';
export { decideGapEvent } from './decide-gaps.js';
export { crc32 } from './crc32.js';
export { deepFreeze, freezeNew } from './freeze.js';
export {
  ALTERNATING_ROUNDS,
  alternatingOpenCount,
  alternatingWords,
  DEFAULT_PING_PONG,
  pingPongGaps,
  pingPongThreshold,
  pingPongWords,
  standingCauses,
  type AlternatingOpenCount,
  type PingPongGap,
} from './ping-pong.js';
export { formatSeconds, freshRun, GATE_DEFAULT_TIMEOUT_SECONDS, GATE_FLAG, GATE_TIMEOUT_FLAG, GATED_OUTCOMES, gatedCompletion, runWords } from './gate.js';
