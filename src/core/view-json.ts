import type { Gap, MetricsRecord, SessionView } from './view.js';

/**
 * The view as a checkpoint stores it: plain JSON, its Maps as arrays. A
 * checkpoint is a cache of replay, never a source of truth: the store keys
 * it by the log line it covers, and whatever does not decode here is
 * dropped and rebuilt from the log.
 *
 * The format (viewFormat, src/session/state.ts) names this shape and the version of
 * gapflow that folded the view. Bump VIEW_SHAPE when SessionView changes
 * shape between releases' builds.
 */
export const VIEW_SHAPE = 'view-6';

interface StoredView extends Omit<SessionView, 'gaps' | 'policies'> {
  gaps: Gap[];
  policies: Omit<SessionView['policies'], 'settings' | 'records'> & {
    settings: [string, unknown][];
    records: [string, MetricsRecord[]][];
  };
}

/** The view as one JSON text. */
export function encodeView(view: SessionView): string {
  const stored: StoredView = {
    ...view,
    gaps: [...view.gaps.values()],
    policies: { ...view.policies, settings: [...view.policies.settings], records: [...view.policies.records] },
  };
  return JSON.stringify(stored);
}

/**
 * The view a checkpoint's text holds, as plain objects (unfrozen: see
 * view-codec.ts for the view replay leaves, and view-head.ts for the head);
 * null when the text is not a view this build wrote (the caller then replays
 * the log).
 */
export function readView(text: string): SessionView | null {
  let stored: unknown;
  try {
    stored = JSON.parse(text);
  } catch {
    return null;
  }
  if (!looksStored(stored)) return null;
  const view: SessionView = {
    ...stored,
    gaps: new Map(stored.gaps.map((gap) => [gap.id, gap])),
    policies: { ...stored.policies, settings: new Map(stored.policies.settings), records: new Map(stored.policies.records) },
  };
  return view;
}

/**
 * The shape checks that keep a damaged cache from reaching the fold: the
 * containers are what the view needs. The store has already checked the
 * text's checksum, so this guards against a checkpoint written by another
 * build under the same format, not against edits.
 */
function looksStored(value: unknown): value is StoredView {
  if (!isObject(value)) return false;
  const { gaps, rounds, weightedOpenEnds, history, decisions, focus, renames, machine, policies, open, lastSeq } = value;
  return (
    Array.isArray(gaps) &&
    gaps.every((gap) => isObject(gap) && typeof gap.id === 'string') &&
    [rounds, weightedOpenEnds, history, decisions, focus, renames].every(Array.isArray) &&
    isObject(machine) &&
    isObject(open) &&
    Number.isSafeInteger(lastSeq) &&
    isObject(policies) &&
    Array.isArray(policies.enabled) &&
    Array.isArray(policies.settings) &&
    Array.isArray(policies.records)
  );
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
