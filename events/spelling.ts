import {
  ACKNOWLEDGMENT_WORDS,
  COMPLETE_WHEN_WORDS,
  DECISION_KIND_WORDS,
  EVENT_TYPES,
  GAP_STATE_WORDS,
  GATES_WORDS,
  PRESET_WORDS,
  ROUND_KIND_WORDS,
  SEVERITY_WORDS,
} from './words.js';

/*
 * One vocabulary, however it is spelled. A word gapflow takes (a severity, a
 * gap state, a decision, a preset, an event type, a policy) means the same
 * in any case and with `-` or `_` between its parts: `in-progress`,
 * `In_Progress` and `IN_PROGRESS` are all IN_PROGRESS. The CLI and `append`
 * both bring what they are given to the canonical spelling here, before the
 * schema reads it, so the log only ever holds the canonical one. And when a
 * word is not one of them, the nearest is offered. No schema library: the
 * bin's short paths use this too.
 */

/** What two spellings of one word have in common: no surrounding space, lower case, `_` for `-`. */
export function spellingKey(word: string): string {
  return word.trim().toLowerCase().replaceAll('-', '_');
}

/** The word of `words` that `value` spells, however it is spelled; undefined when it spells none (or is not a string). */
export function canonicalWord<W extends string>(value: unknown, words: readonly W[]): W | undefined {
  if (typeof value !== 'string') return undefined;
  const key = spellingKey(value);
  return words.find((word) => spellingKey(word) === key);
}

/**
 * The word of `words` that `value` most likely meant, for a "did you mean":
 * one a typo or two away (a swap of two letters is one), or the only one
 * that starts with it; null when none is that near.
 */
export function nearestWord(value: string, words: readonly string[]): string | null {
  const key = spellingKey(value);
  if (key === '') return null;
  const starting = words.filter((word) => spellingKey(word).startsWith(key));
  if (key.length >= 3 && starting.length === 1) return starting[0]!;
  let best: string | null = null;
  let bestDistance = Math.max(1, Math.floor(key.length / 3));
  for (const word of words) {
    const distance = editDistance(key, spellingKey(word));
    if (distance <= bestDistance && (best === null || distance < bestDistance)) {
      best = word;
      bestDistance = distance;
    }
  }
  return best;
}

/**
 * Edits (insert, delete, replace, swap two neighbours) from `a` to `b`: the
 * optimal string alignment distance. Written out rather than taken from a
 * package: it is a dozen lines, runs on a refused word only, and the bin's
 * short paths load nothing they can do without.
 */
function editDistance(a: string, b: string): number {
  let before: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const replace = previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1);
      let best = Math.min(previous[j]! + 1, row[j - 1]! + 1, replace);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, before[j - 2]! + 1);
      row.push(best);
    }
    before = previous;
    previous = row;
  }
  return previous[b.length]!;
}

/**
 * What the words a value may be are, and the nearest to it: `one of A, B, C
 * (did you mean B?)`; the one wording of a word not taken, wherever it comes.
 */
export function oneOf(value: unknown, words: readonly string[]): { text: string; suggestion: string | null } {
  const suggestion = typeof value === 'string' ? nearestWord(value, words) : null;
  return { text: `one of ${words.join(', ')}${suggestion ? ` (did you mean ${suggestion}?)` : ''}`, suggestion };
}

// eslint-disable-next-line no-control-regex -- control characters are exactly what this finds
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/** The longest a value is echoed in an error (a longer one is cut, with `…`). */
export const SHOWN_MAX = 40;

/**
 * A value as an error echoes it: as JSON (so a string is quoted and a
 * number is not), every control, line-breaking or direction-changing
 * character spelt out, and cut to `max` characters.
 */
export function shownValue(value: unknown, max = SHOWN_MAX): string {
  let text: string;
  try {
    text = value === undefined ? 'nothing' : (JSON.stringify(value) ?? String(value));
  } catch {
    text = String(value);
  }
  const safe = text.replace(UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  const characters = [...safe];
  return characters.length > max ? `${characters.slice(0, max - 1).join('')}…` : safe;
}

/** The fields of each request that take a word from a fixed list, and the list. */
export const REQUEST_WORDS: Readonly<Record<string, Readonly<Record<string, readonly string[]>>>> = {
  'session.started': { preset: PRESET_WORDS, completeWhen: COMPLETE_WHEN_WORDS },
  'round.started': { kind: ROUND_KIND_WORDS },
  'gap.opened': { severity: SEVERITY_WORDS },
  'gap.moved': { to: GAP_STATE_WORDS },
  'gap.severity_changed': { to: SEVERITY_WORDS },
  'decision.made': { kind: DECISION_KIND_WORDS, acknowledgment: ACKNOWLEDGMENT_WORDS },
  'verification.ran': { gates: GATES_WORDS },
};

/** The words a request's field takes (`decision.made`, `data.kind`); undefined for a field that takes free text or a number. */
export function wordsAt(type: unknown, path: readonly PropertyKey[]): readonly string[] | undefined {
  if (path.length === 1 && path[0] === 'type') return EVENT_TYPES;
  // A split's parts: `data.into[i].severity`.
  if (type === 'gap.split' && path.length === 4 && path[1] === 'into' && path[3] === 'severity') return SEVERITY_WORDS;
  if (typeof type !== 'string' || path.length !== 2 || path[0] !== 'data' || typeof path[1] !== 'string') return undefined;
  const fields = Object.hasOwn(REQUEST_WORDS, type) ? REQUEST_WORDS[type]! : {};
  return Object.hasOwn(fields, path[1]) ? fields[path[1]] : undefined;
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A policy's name in its one spelling (the registry's names are lower-case words joined by `_`); anything else as it was. */
const policyName = (value: unknown): unknown => (typeof value === 'string' ? spellingKey(value) : value);

/**
 * A request (`{"type","data"}`, as `append` or the library takes it) with its
 * type, its words and its policy names in their canonical spelling; whatever
 * spells none of them is left as it was, for the schema to refuse by name.
 * The input is not changed.
 */
export function canonicalRequest(input: unknown): unknown {
  if (!isRecord(input)) return input;
  const type = canonicalWord(input.type, EVENT_TYPES) ?? input.type;
  const data = input.data;
  if (!isRecord(data)) return type === input.type ? input : { ...input, type };
  const out: Record<string, unknown> = { ...data };
  const fields = typeof type === 'string' && Object.hasOwn(REQUEST_WORDS, type) ? REQUEST_WORDS[type]! : {};
  for (const [field, words] of Object.entries(fields)) {
    if (Object.hasOwn(out, field)) out[field] = canonicalWord(out[field], words) ?? out[field];
  }
  if (type === 'metrics.recorded' && Object.hasOwn(out, 'policy')) out.policy = policyName(out.policy);
  if (type === 'gap.split' && Array.isArray(out.into)) {
    out.into = out.into.map((part: unknown) =>
      isRecord(part) && Object.hasOwn(part, 'severity') ? { ...part, severity: canonicalWord(part.severity, SEVERITY_WORDS) ?? part.severity } : part,
    );
  }
  if (type === 'session.started') {
    if (Array.isArray(out.policies)) out.policies = out.policies.map(policyName);
    if (isRecord(out.policySettings)) {
      out.policySettings = Object.fromEntries(Object.entries(out.policySettings).map(([name, settings]) => [policyName(name) as string, settings]));
    }
  }
  return { ...input, type, data: out };
}
