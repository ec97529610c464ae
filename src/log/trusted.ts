import {
  AGENT_SESSION_MAX,
  COMBINED_TEXT_MAX,
  CONVERGENCE_STATES,
  DecisionKind,
  EVENT_VERSION,
  GAP_ID_MAX,
  GAP_ID_PATTERN,
  GapState,
  Outcome,
  PLAIN_TEXT_PATTERN,
  REASON_MAX,
  RoundKind,
  ResumableState,
  Severity,
  TITLE_MAX,
  Verdict,
  VERDICT_TEXT_MAX,
  type GapflowEvent,
} from '../../events/index.js';

/*
 * The quick look a sealed line of the current version gets instead of a
 * full schema parse (which costs more than reading the line). gapflow
 * checked the line against the schema when it wrote it; but a read does not
 * walk the checksum chain (only `verify` does), and the checksum has no key
 * anyway, so every line is looked at for everything the fold files and
 * shows: the type, gap ids (the pattern), the values it counts by, and text
 * a terminal or a table would show (length, no control characters). A
 * round close is looked at whole, key by key as its schema has it: one
 * comes every twenty-odd lines, and its full parse was a tenth of a cold
 * read. The rarer events that carry nested structure (a session's
 * settings, a decision's recorded outcome, metrics) always get the full
 * parse. Anything that fails here gets the full parse too, whose message
 * names what is wrong. `verify` parses every line in full.
 */

const isString = (value: unknown): value is string => typeof value === 'string';
const isRound = (value: unknown): boolean => Number.isSafeInteger(value) && (value as number) >= 1;
const isOptional = (value: unknown, check: (value: unknown) => boolean): boolean => value === undefined || check(value);
const isGapId = (value: unknown): boolean => isString(value) && value.length <= GAP_ID_MAX && GAP_ID_PATTERN.test(value);
/** Shown text: bounded, and with no control characters, which a `plain` line (see `readAsWritten`) cannot hold. */
const isText = (value: unknown, max: number, plain: boolean): boolean => isString(value) && value.length <= max && (plain || PLAIN_TEXT_PATTERN.test(value));

// eslint-disable-next-line no-control-regex -- control characters are exactly what an event id may not hold
const EVENT_ID = /^[^\u0000-\u001f\u007f]{1,128}$/;
// Month, day, hour, minute and second in range, the day checked against its month below (Date.parse per line cost a tenth of a cold read, and let 30 February through).
const ISO_TIME = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])T([01]\d|2[0-3]):[0-5]\d:[0-5]\d(\.\d{1,9})?(Z|[+-]([01]\d|2[0-3]):[0-5]\d)$/;
const isEventId = (value: unknown, plain: boolean): boolean => isString(value) && (plain ? value.length >= 1 && value.length <= 128 : EVENT_ID.test(value));

/** The last time `isTime` took: the lines one append writes share theirs, and the pattern was a tenth of a cold read. */
let lastTime: string | null = null;
function isTime(value: unknown): boolean {
  if (!isString(value)) return false;
  if (value === lastTime) return true;
  if (!ISO_TIME.test(value) || !dayInMonth(value)) return false;
  lastTime = value;
  return true;
}

/** The last date `dayInMonth` accepted: a log's lines mostly share their day, so most are not worked out again. */
let lastDay = '';

/** The date's day exists in its month (leap years counted), as the schema's own date pattern requires. */
function dayInMonth(time: string): boolean {
  if (lastDay !== '' && time.startsWith(lastDay)) return true;
  const year = Number(time.slice(0, 4));
  const month = Number(time.slice(5, 7));
  const day = Number(time.slice(8, 10));
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  const days = month === 2 ? (leap ? 29 : 28) : month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
  if (day > days) return false;
  lastDay = time.slice(0, 10);
  return true;
}

interface Vocabulary {
  severities: Set<unknown>;
  states: Set<unknown>;
  kinds: Set<unknown>;
  roundKinds: Set<unknown>;
  verdicts: Set<unknown>;
  machineStates: Set<unknown>;
  outcomes: Set<unknown>;
  resumable: Set<unknown>;
}
let vocabulary: Vocabulary | null = null;

/** The value sets, taken from the vocabulary's own enums the first time a line is looked at. */
function words() {
  vocabulary ??= {
    severities: new Set(Severity.options),
    states: new Set(GapState.options),
    kinds: new Set(DecisionKind.options),
    roundKinds: new Set(RoundKind.options),
    verdicts: new Set(Verdict.options),
    machineStates: new Set(CONVERGENCE_STATES),
    outcomes: new Set(Outcome.options),
    resumable: new Set(ResumableState.options),
  };
  return vocabulary;
}

const isCount = (value: unknown): boolean => Number.isSafeInteger(value) && (value as number) >= 0;
// Finite, as the schema's numbers are: JSON.parse reads 1e999 as Infinity.
const isNumber = (value: unknown): boolean => Number.isFinite(value);
const isShort =
  (max: number) =>
  (value: unknown): boolean =>
    isString(value) && value.length <= max;
const POLICY_NAME = /^[a-z][a-z0-9_]*$/;
const isPolicy = (value: unknown): boolean => isShort(32)(value) && POLICY_NAME.test(value as string);
const isListOf = (value: unknown, max: number, check: (item: unknown) => boolean): boolean => Array.isArray(value) && value.length <= max && value.every(check);

/** An object with no key but `keys` (one left out reads as undefined, for the checks that follow to judge). */
function hasOnly(value: unknown, keys: readonly string[]): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  for (const key in value) if (!keys.includes(key)) return false;
  return true;
}

const FIGURES = ['openEnd', 'weightedOpenEnd', 'resolved', 'new', 'weightedResolved', 'weightedNew', 'withdrawn', 'weightedWithdrawn', 'criticalIntroduced'];
const isFigure = (value: unknown): boolean => value === null || isNumber(value) || typeof value === 'boolean' || isShort(VERDICT_TEXT_MAX)(value);

function isNamedVerdict(verdict: unknown): boolean {
  if (!hasOnly(verdict, ['policy', 'verdict', 'reason', 'detail', 'figures'])) return false;
  const { figures } = verdict;
  // An own `__proto__` key (JSON.parse makes one) is dropped by the schema's record: the full parse reads it so.
  if (typeof figures !== 'object' || figures === null || Array.isArray(figures) || Object.hasOwn(figures, '__proto__')) return false;
  if (!Object.entries(figures).every(([key, value]) => key.length <= 64 && isFigure(value))) return false;
  return isPolicy(verdict.policy) && words().verdicts.has(verdict.verdict) && isShort(64)(verdict.reason) && isShort(VERDICT_TEXT_MAX)(verdict.detail);
}

/** A round close's recorded outcome, as RoundOutcome reads it. */
function isRoundOutcome(outcome: unknown): boolean {
  if (!hasOnly(outcome, ['figures', 'verdicts', 'combined', 'machine', 'steps', 'kind'])) return false;
  const { figures, combined, machine } = outcome;
  const w = words();
  const figuresOk =
    hasOnly(figures, FIGURES) &&
    isNumber(figures.openEnd) &&
    isNumber(figures.weightedOpenEnd) &&
    isCount(figures.resolved) &&
    isCount(figures.new) &&
    isNumber(figures.weightedResolved) &&
    isNumber(figures.weightedNew) &&
    isOptional(figures.withdrawn, isCount) &&
    isOptional(figures.weightedWithdrawn, isNumber) &&
    isListOf(figures.criticalIntroduced, Infinity, isGapId);
  const combinedOk =
    hasOnly(combined, ['verdict', 'reason', 'policies', 'detail']) &&
    w.verdicts.has(combined.verdict) &&
    isShort(64)(combined.reason) &&
    isListOf(combined.policies, 16, isPolicy) &&
    isShort(COMBINED_TEXT_MAX)(combined.detail);
  const machineOk =
    hasOnly(machine, ['state', 'flatCount', 'outcome', 'pausedFrom']) &&
    w.machineStates.has(machine.state) &&
    isCount(machine.flatCount) &&
    (machine.outcome === null || w.outcomes.has(machine.outcome)) &&
    (machine.pausedFrom === null || w.resumable.has(machine.pausedFrom));
  const isStep = (step: unknown) => hasOnly(step, ['from', 'to']) && w.machineStates.has(step.from) && w.machineStates.has(step.to);
  return (
    figuresOk &&
    combinedOk &&
    machineOk &&
    isListOf(outcome.verdicts, 16, isNamedVerdict) &&
    isListOf(outcome.steps, 8, isStep) &&
    isOptional(outcome.kind, (kind) => kind !== 'work' && w.roundKinds.has(kind))
  );
}

/** Per type: the data's keys it may have, and whether their values read as the schema would take them. */
const DATA_CHECKS: Partial<Record<GapflowEvent['type'], { keys: readonly string[]; ok: (data: Record<string, unknown>, plain: boolean) => boolean }>> = {
  'round.closed': { keys: ['round', 'outcome'], ok: (d) => isRound(d.round) && isRoundOutcome(d.outcome) },
  'round.started': { keys: ['round', 'kind'], ok: (d) => isRound(d.round) && isOptional(d.kind, (kind) => words().roundKinds.has(kind)) },
  'gap.opened': {
    keys: ['id', 'severity', 'title', 'spawnedBy', 'blocking'],
    ok: (d, plain) =>
      isGapId(d.id) &&
      words().severities.has(d.severity) &&
      isText(d.title, TITLE_MAX, plain) &&
      typeof d.blocking === 'boolean' &&
      isOptional(d.spawnedBy, isGapId),
  },
  'gap.moved': {
    keys: ['id', 'to', 'reason', 'blockedBy', 'of'],
    ok: (d, plain) =>
      isGapId(d.id) &&
      words().states.has(d.to) &&
      (d.reason === undefined || isText(d.reason, REASON_MAX, plain)) &&
      isOptional(d.blockedBy, isGapId) &&
      isOptional(d.of, isGapId),
  },
  'gap.severity_changed': { keys: ['id', 'to'], ok: (d) => isGapId(d.id) && words().severities.has(d.to) },
  'session.bound': { keys: ['agentSession'], ok: (d, plain) => isText(d.agentSession, AGENT_SESSION_MAX, plain) && (d.agentSession as string).length > 0 },
};

/** A key the envelope may have (a switch: a Set's lookup was a fifth of the quick look). */
function isEnvelopeKey(key: string): boolean {
  switch (key) {
    case 'v':
    case 'seq':
    case 'id':
    case 'at':
    case 'type':
    case 'data':
    case 'sum':
      return true;
    default:
      return false;
  }
}

/**
 * The event a sealed line of the current version holds, when it reads as
 * gapflow writes it; null: parse it in full. `plain`: the line's text is
 * ASCII with no `\\` and no DEL, so none of its strings can hold a control
 * character (JSON takes none raw, and it would need an escape), and the
 * checks for them are skipped.
 */
export function readAsWritten(stored: Record<string, unknown>, plain = false): GapflowEvent | null {
  // The envelope is as strict as the schema's: a key it does not know sends the line to the full parse.
  for (const key in stored) if (!isEnvelopeKey(key)) return null;
  const { seq, id, at, type, data } = stored;
  const check = isString(type) && Object.hasOwn(DATA_CHECKS, type) ? DATA_CHECKS[type as GapflowEvent['type']] : undefined;
  if (check === undefined || !isEventId(id, plain) || !isTime(at) || typeof data !== 'object' || data === null || Array.isArray(data)) return null;
  const fields = data as Record<string, unknown>;
  for (const key in fields) if (!check.keys.includes(key)) return null;
  // Read as the current version's, as `upcast` reads a line of a version that only gained words since.
  return check.ok(fields, plain) ? ({ v: EVENT_VERSION, seq, id, at, type, data } as GapflowEvent) : null;
}
