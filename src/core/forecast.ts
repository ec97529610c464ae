import { formatCount } from '../policies/index.js';

/*
 * How many more rounds the gaps need, read off the weighted open count at
 * the end of each closed round: a straight line fitted by least squares
 * through the last rounds, and where it reaches zero. Pure arithmetic on a
 * list of numbers, so `next` answers it from the head checkpoint.
 */

/** How many of the last closed rounds the main fit reads. */
export const FORECAST_WINDOW = 4;

/** How many of the last closed rounds' counts a forecast reads at most: the widest fit's (the window and one more). */
export const FORECAST_ROUNDS = FORECAST_WINDOW + 1;

/** Why there is an estimate (`declining`), or why there is none. */
export type ForecastReason = 'declining' | 'too_few_rounds' | 'no_downward_trend' | 'already_done';

export interface Forecast {
  reason: ForecastReason;
  /**
   * More rounds after the last closed one until the weighted open count
   * reaches zero, as a range; null when the reason is not `declining`.
   */
  rounds: { low: number; high: number } | null;
  /** The rounds the range ends in (the last closed round plus `rounds`); null with `rounds`. */
  finish: { low: number; high: number } | null;
  /** The main fit's window (closed rounds read) and its slope (weighted open per round, two decimals); slope null with too few rounds. */
  window: number;
  slope: number | null;
  /** One line for people: the estimate and its basis, or why there is none. */
  detail: string;
}

interface Line {
  slope: number;
  intercept: number;
}

/** The least-squares line through (x, y) points (at least two, with distinct x). */
function fit(points: readonly (readonly [number, number])[]): Line {
  const n = points.length;
  const meanX = points.reduce((sum, [x]) => sum + x, 0) / n;
  const meanY = points.reduce((sum, [, y]) => sum + y, 0) / n;
  let sxy = 0;
  let sxx = 0;
  for (const [x, y] of points) {
    sxy += (x - meanX) * (y - meanY);
    sxx += (x - meanX) ** 2;
  }
  const slope = sxy / sxx;
  return { slope, intercept: meanY - slope * meanX };
}

/** The line fitted through the last `window` points of `series`, whose last point is round `last`'s. */
function fitLast(series: readonly number[], window: number, last: number): Line {
  const points = series.slice(-window).map((y, i) => [last - window + i + 1, y] as const);
  return fit(points);
}

/** Rounds after round `last` until `line` reaches zero (0 or less when it already has). */
function roundsToZero(line: Line, last: number): number {
  return -(line.intercept + line.slope * last) / line.slope;
}

const twoDecimals = (value: number) => Math.round(value * 100) / 100;

/**
 * The forecast from `series`, the weighted open count at the end of the
 * closed rounds, oldest first, the last of them round `last` (the series may
 * start after round 1: only its last FORECAST_ROUNDS are read). The main fit reads the last
 * `window` rounds; it must slope down. The range spans where that line and
 * the lines through one round fewer and one round more (where there are
 * that many, and at least two) reach zero, over those that slope down:
 * rounded outward to whole rounds, and at least one round, since a count
 * above zero needs another round to reach it.
 */
export function forecast(series: readonly number[], window = FORECAST_WINDOW, last = series.length): Forecast {
  const unknown = (reason: ForecastReason, slope: number | null, detail: string): Forecast => ({ reason, rounds: null, finish: null, window, slope, detail });
  if (series.length > 0 && series.at(-1) === 0) return unknown('already_done', null, 'nothing weighted is left open');
  if (last < window || series.length < window) {
    return unknown('too_few_rounds', null, `unknown: a trend needs ${window} closed rounds, and ${last} ${last === 1 ? 'has' : 'have'} closed`);
  }
  const main = fitLast(series, window, last);
  const slope = twoDecimals(main.slope);
  if (!(main.slope < 0)) {
    return unknown(
      'no_downward_trend',
      slope,
      `unknown: the weighted open count is not falling (slope ${formatSlope(slope)} per round over the last ${window} rounds)`,
    );
  }
  const estimates = [window - 1, window, window + 1]
    .filter((w) => w >= 2 && w <= series.length)
    .map((w) => (w === window ? main : fitLast(series, w, last)))
    .filter((line) => line.slope < 0)
    .map((line) => roundsToZero(line, last));
  const low = Math.max(1, Math.floor(Math.min(...estimates)));
  const high = Math.max(low, Math.ceil(Math.max(...estimates)));
  const range = low === high ? `${low} more round${low === 1 ? '' : 's'}` : `${low}–${high} more rounds`;
  const by = low === high ? `round ${last + low}` : `rounds ${last + low}–${last + high}`;
  return {
    reason: 'declining',
    rounds: { low, high },
    finish: { low: last + low, high: last + high },
    window,
    slope,
    detail: `done in ${range} (${by}): a least-squares line through the weighted open count of the last ${window} rounds falls ${-slope} a round from ${formatCount(series.at(-1)!)} now`,
  };
}

function formatSlope(slope: number): string {
  return slope > 0 ? `+${slope}` : String(slope);
}

/**
 * The main fit's value at each round from 0 (the start) to the first round
 * it reaches zero in (at least the round after the last closed one), none
 * below zero: the trend a chart draws beside the counts. Null when the
 * forecast has no estimate.
 */
export function trendLine(series: readonly number[], window = FORECAST_WINDOW): number[] | null {
  if (forecast(series, window).reason !== 'declining') return null;
  const line = fitLast(series, window, series.length);
  const through = Math.max(series.length + 1, Math.ceil(-line.intercept / line.slope));
  return Array.from({ length: through + 1 }, (_, x) => Math.max(0, line.intercept + line.slope * x));
}
