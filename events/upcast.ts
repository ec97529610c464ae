import { EVENT_VERSION } from './limits.js';

/** The oldest event version this build still reads. */
export const OLDEST_VERSION = 1;

/**
 * Why a stored `v` cannot be read, or null when it can. A newer version is
 * named, so the message says which gapflow to install.
 */
export function versionProblem(v: unknown): string | null {
  if (typeof v !== 'number' || !Number.isInteger(v))
    return `no event version ("v" must be a whole number, not ${JSON.stringify(v)?.slice(0, 20) ?? 'missing'})`;
  if (v > EVENT_VERSION) {
    return `event version ${v} was written by a newer gapflow; this one reads versions ${OLDEST_VERSION} to ${EVENT_VERSION}: install a gapflow that reads version ${v}`;
  }
  if (v < OLDEST_VERSION) return `event version ${v} does not exist (versions start at ${OLDEST_VERSION})`;
  return null;
}

/**
 * The versions whose lines read as the current version's as they stand
 * (versions 5 and 6 only added words and fields): a sealed line of one of these
 * gets the reader's quick look, as a current line does.
 */
export const READ_AS_CURRENT: ReadonlySet<unknown> = new Set([4, 5, EVENT_VERSION]);

/**
 * Brings a stored event of a readable version to the shape this build
 * writes, before the schema judges it. Version 1 lacks the line checksum,
 * which the log handles; versions 1 and 2 lack the outcome of a round close
 * or a decision, which needs the session's state to compute, so the core
 * adds it as it folds (`settle`); their bodies are otherwise current.
 * Version 3 outcomes are reshaped as they stand; version 4 lines are
 * current but for their number.
 */
export function upcast(stored: Readonly<Record<string, unknown>>): Readonly<Record<string, unknown>> {
  if (stored.v === 1 || stored.v === 2) return { ...stored, v: EVENT_VERSION };
  if (stored.v === 3) return { ...stored, v: EVENT_VERSION, data: outcomeToV4(stored.data) };
  // Versions 5 and 6 only added words and fields: a version 4 or 5 line is a version 6 line as it stands.
  if (stored.v === 4 || stored.v === 5) return { ...stored, v: EVENT_VERSION };
  return stored;
}

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * A version 3 outcome in version 4's shape, deciding nothing anew: a stop
 * request (`limit` for `stop_requested`) becomes the `stopped` verdict; a
 * gaps-only round close, which recorded no combined verdict because the gap
 * policy's one verdict drove the machine, gets that verdict as its combined
 * one, worded as combining one verdict words it; the guard names go. Anything
 * unexpected is left for the schema to name.
 */
function outcomeToV4(data: unknown): unknown {
  if (!isObject(data) || !isObject(data.outcome)) return data;
  const { rule: _rule, ...outcome } = data.outcome;
  if (Array.isArray(outcome.steps)) outcome.steps = outcome.steps.map((step) => (isObject(step) ? (({ rule: _r, ...kept }) => kept)(step) : step));
  const verdicts = outcome.verdicts;
  if (Array.isArray(verdicts)) {
    outcome.verdicts = verdicts.map(stopRequestToStopped);
    const only: unknown = verdicts[0];
    if (outcome.combined === null && verdicts.length === 1 && isObject(only)) {
      outcome.combined = { verdict: only.verdict, reason: only.reason, policies: [only.policy], detail: `${String(only.policy)}: ${String(only.detail)}` };
    }
  }
  if (outcome.combined !== undefined) outcome.combined = stopRequestToStopped(outcome.combined);
  return { ...data, outcome };
}

function stopRequestToStopped(verdict: unknown): unknown {
  return isObject(verdict) && verdict.verdict === 'limit' && verdict.reason === 'stop_requested' ? { ...verdict, verdict: 'stopped' } : verdict;
}
