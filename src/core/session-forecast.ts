import { forecast, FORECAST_WINDOW, type Forecast } from './forecast.js';
import { lastClosedRound } from './inventory.js';
import { roundLimit, tracksGaps } from './policies.js';
import type { SessionView } from './view.js';

/*
 * The forecast of a session's view: from the weighted open count at the
 * last few closes, which the view keeps (the head checkpoint too), so `next`
 * reads it without the session's history.
 */

/**
 * The session's forecast: null once it is COMPLETE (no round is left to
 * forecast), and when no policy it runs reads gap events (there is no
 * weighted open count to read).
 */
export function viewForecast(view: Pick<SessionView, 'policies' | 'weightedOpenEnds' | 'machine' | 'rounds'>): Forecast | null {
  return view.machine.state !== 'COMPLETE' && tracksGaps(view) ? forecast(view.weightedOpenEnds, FORECAST_WINDOW, lastClosedRound(view)?.round ?? 0) : null;
}

/**
 * The warning `next` gives while the forecast's earliest finish lies past
 * the round limit, naming the decisions that answer it; empty otherwise.
 */
export function forecastPastLimit(view: Pick<SessionView, 'policies' | 'weightedOpenEnds' | 'machine' | 'settings' | 'config' | 'rounds'>): string {
  const limit = roundLimit(view);
  const finish = viewForecast(view)?.finish;
  if (limit === null || !finish || finish.low <= limit) return '';
  const by = finish.low === finish.high ? `round ${finish.low}` : `rounds ${finish.low}–${finish.high}`;
  return `; the forecast finishes in ${by}, past max_rounds (${limit}): narrow the scope or extend the limit (decide extend-rounds N) before round ${limit} closes`;
}
