import { DecisionKind, GapState, Severity, type GapflowEvent } from '../../events/index.js';

/*
 * The quick look a sealed line of the current version gets instead of a
 * full schema parse (which costs more than reading the line). gapflow
 * checked the line against the schema when it wrote it; the checksum says
 * the bytes are still those. What is looked at here is what the fold relies
 * on to file the event (its type, the ids it files it under, the values it
 * counts by), so a line sealed by another writer with an unknown type or a
 * bad severity still goes to the full parse, whose message names what is
 * wrong. `verify` parses every line in full, whatever this says.
 */

const isString = (value: unknown): value is string => typeof value === 'string';
const isRound = (value: unknown): boolean => Number.isSafeInteger(value) && (value as number) >= 1;
const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const isOptional = (value: unknown, check: (value: unknown) => boolean): boolean => value === undefined || check(value);

let vocabulary: { severities: Set<unknown>; states: Set<unknown>; kinds: Set<unknown> } | null = null;

/** The value sets, taken from the vocabulary's own enums the first time a line is looked at. */
function words() {
  vocabulary ??= { severities: new Set(Severity.options), states: new Set(GapState.options), kinds: new Set(DecisionKind.options) };
  return vocabulary;
}

const DATA_CHECKS: Record<GapflowEvent['type'], (data: Record<string, unknown>) => boolean> = {
  'session.started': () => true,
  'round.started': (d) => isRound(d.round),
  'round.closed': (d) => isRound(d.round) && isOptional(d.outcome, isObject),
  'gap.opened': (d) =>
    isString(d.id) && words().severities.has(d.severity) && isString(d.title) && typeof d.blocking === 'boolean' && isOptional(d.spawnedBy, isString),
  'gap.moved': (d) => isString(d.id) && words().states.has(d.to) && isOptional(d.reason, isString) && isOptional(d.blockedBy, isString),
  'gap.severity_changed': (d) => isString(d.id) && words().severities.has(d.to),
  'decision.made': (d) =>
    words().kinds.has(d.kind) && isOptional(d.gaps, (gaps) => Array.isArray(gaps) && gaps.every(isString)) && isOptional(d.outcome, isObject),
  'session.bound': (d) => isString(d.agentSession),
  'metrics.recorded': (d) => isString(d.policy) && isOptional(d.round, isRound),
};

/** The event a sealed line of the current version holds, when it reads as gapflow writes it; null: parse it in full. */
export function readAsWritten(stored: Record<string, unknown>): GapflowEvent | null {
  const { v, seq, id, at, type, data } = stored;
  if (!isString(id) || !isString(at) || !isString(type) || !isObject(data) || !Object.hasOwn(DATA_CHECKS, type)) return null;
  if (!DATA_CHECKS[type as GapflowEvent['type']](data)) return null;
  return { v, seq, id, at, type, data } as GapflowEvent;
}
