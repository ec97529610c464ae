import { policyRules, type RoundInput } from '../types.js';
import { narrateGapStep } from './narrate.js';
import { gapCheckTree, gapVerdict } from './verdict.js';

export { belowDivergence, gapCheckTree, gapVerdict } from './verdict.js';

function judged(round: RoundInput | undefined): RoundInput {
  if (!round) throw new Error('the gap policy judges a closing round, and none was handed to it');
  return round;
}

/**
 * The gap-weighted policy (docs/rules.md): it records no metrics of its own; the
 * session folds gap events into each round's figures, and its verdict reads
 * those under the session's thresholds (stall, divergence, critical override
 * and max_rounds are the session's settings).
 */
export const gapsRules = policyRules<Record<string, never>, never>({
  name: 'gaps',
  summary: 'severity-weighted gaps: weighted resolved minus weighted new each round',
  settingFlags: {},
  recordFlags: {},
  fromFlags: () => ({}),
  verdict: (_settings, _history, round) => gapVerdict(judged(round).gaps, judged(round).config),
  check: (_settings, _history, round) => gapCheckTree(judged(round).gaps, judged(round).config, judged(round).flatCount),
  columns: [],
  readsGapEvents: true,
  narrate: narrateGapStep,
});
