import { EVENT_VERSION } from './schemas.js';

/** The oldest event version this build still reads. */
export const OLDEST_VERSION = 1;

/**
 * Why a stored `v` cannot be read, or null when it can. A newer version is
 * named, so the message says which gapflow to install.
 */
export function versionProblem(v: unknown): string | null {
  if (typeof v !== 'number' || !Number.isInteger(v)) return `no event version ("v" must be a whole number, not ${JSON.stringify(v)?.slice(0, 20) ?? 'missing'})`;
  if (v > EVENT_VERSION) {
    return `event version ${v} was written by a newer gapflow; this one reads versions ${OLDEST_VERSION} to ${EVENT_VERSION}: install a gapflow that reads version ${v}`;
  }
  if (v < OLDEST_VERSION) return `event version ${v} does not exist (versions start at ${OLDEST_VERSION})`;
  return null;
}

/**
 * Brings a stored event of a readable version to the shape this build
 * writes, before the schema judges it. Version 1 lacks the line checksum,
 * which the log handles; versions 1 and 2 lack the outcome of a round close
 * or a decision, which needs the session's state to compute, so the core
 * adds it as it folds (`settle`); their bodies are otherwise current.
 */
export function upcast(stored: Readonly<Record<string, unknown>>): Readonly<Record<string, unknown>> {
  if (stored.v === 1 || stored.v === 2) return { ...stored, v: EVENT_VERSION };
  return stored;
}
