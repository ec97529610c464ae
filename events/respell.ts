import type * as z from 'zod/mini';
import { canonicalWord } from './request.js';

/** How many times the schema is asked again: each pass respells the words one parse finds (a union may hide some until its branch is known). */
const PASSES = 8;

/**
 * `value` with every word that `schema` reads from a list (a `z.enum`, a
 * literal) brought to the spelling the list has, however it was spelt
 * (`Balanced` is `balanced`): for the schemas a policy owns, whose words
 * the event vocabulary cannot list. Found by asking the schema, so a word
 * is respelt only where the schema wants one of a list, never in free text.
 * Anything else is left as it was, for the schema to refuse; `value` itself
 * is not changed. Costs one parse when every word is spelt right.
 */
export function respelled(schema: z.ZodMiniType, value: unknown): unknown {
  let current = value;
  for (let pass = 0; pass < PASSES; pass++) {
    const parsed = schema.safeParse(current, { reportInput: true });
    if (parsed.success) return current;
    let changed = false;
    for (const issue of parsed.error.issues) {
      if (issue.code !== 'invalid_value' || typeof issue.input !== 'string') continue;
      const word = canonicalWord(
        issue.input,
        issue.values.filter((v): v is string => typeof v === 'string'),
      );
      if (word === undefined || word === issue.input) continue;
      current = replacedAt(current, issue.path, word);
      changed = true;
    }
    if (!changed) return current;
  }
  return current;
}

/** A copy of `value` with `word` at `path` (the objects and lists on the way copied, the rest shared). */
function replacedAt(value: unknown, path: readonly PropertyKey[], word: string): unknown {
  if (path.length === 0) return word;
  const [key, ...rest] = path;
  if (Array.isArray(value) && typeof key === 'number') return value.map((item, i) => (i === key ? replacedAt(item, rest, word) : item));
  if (typeof value !== 'object' || value === null || typeof key !== 'string' || !Object.hasOwn(value, key)) return value;
  return { ...value, [key]: replacedAt((value as Record<string, unknown>)[key], rest, word) };
}
