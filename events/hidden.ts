/*
 * Invisible characters in what a request carries. A title, a reason or a
 * rationale is shown to people and read by agents; a character that shows
 * nothing (a format character, a Unicode tag) or turns text around (a
 * bidirectional control) lets the one see other words than the other: an
 * instruction spelt in tag characters reaches the agent while `status`
 * shows a harmless title. Such text is refused when a request is decided;
 * the schema that reads log lines takes it as it always did (R19),
 * and the renderers show it spelt out. No schema library: the bin's short
 * paths load this too.
 */

/**
 * Unicode format characters (category Cf: zero-width spaces and joiners,
 * the bidirectional marks, overrides and isolates, the byte order mark,
 * the assigned tag characters) and the whole tag block U+E0000–E007F,
 * whose unassigned code points render as nothing too.
 */
export const HIDDEN_CHARACTER = /[\p{Cf}\u{E0000}-\u{E007F}]/u;

/** What a hidden character is, in a few words, for a refusal: `a Unicode tag character`. */
export function hiddenCharacterKind(codePoint: number): string {
  if (codePoint >= 0xe0000 && codePoint <= 0xe007f) return 'a Unicode tag character';
  const bidi =
    (codePoint >= 0x202a && codePoint <= 0x202e) ||
    (codePoint >= 0x2066 && codePoint <= 0x2069) ||
    codePoint === 0x200e ||
    codePoint === 0x200f ||
    codePoint === 0x061c;
  return bidi ? 'a bidirectional control' : 'an invisible format character';
}

/** `U+E0069`: a code point as the Unicode standard writes it. */
export function codePointName(codePoint: number): string {
  return `U+${codePoint.toString(16).toUpperCase().padStart(4, '0')}`;
}

/** The first hidden character of `text`, or null when it has none. */
export function firstHiddenCharacter(text: string): number | null {
  const found = HIDDEN_CHARACTER.exec(text);
  return found === null ? null : found[0].codePointAt(0)!;
}

/** A key of the request as a field name shows it: a plain word as it is, anything else quoted and cut short. */
function keyName(key: string): string {
  return /^[A-Za-z0-9_]{1,40}$/.test(key) ? key : JSON.stringify(key.length > 40 ? `${key.slice(0, 39)}…` : key).replace(/[^\x20-\x7e]/gu, '?');
}

/**
 * What is wrong with the text a request's `data` carries, or null when
 * nothing is: the first string (a value or a key, however deep) holding a
 * hidden character, named by its field and the code point, e.g.
 * `title: U+E0069 (a Unicode tag character) is not allowed; …`. Walked
 * with a stack of its own, so no depth of nesting can overflow the call
 * stack.
 */
export function hiddenTextProblem(data: unknown): string | null {
  const pending: { value: unknown; path: string }[] = [{ value: data, path: '' }];
  while (pending.length > 0) {
    const { value, path } = pending.pop()!;
    if (typeof value === 'string') {
      const found = firstHiddenCharacter(value);
      if (found !== null) return refusalText(path === '' ? 'data' : path, found);
    } else if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) pending.push({ value: value[i], path: `${path}[${i}]` });
    } else if (typeof value === 'object' && value !== null) {
      const entries = Object.entries(value);
      for (const [key] of entries) {
        const inKey = firstHiddenCharacter(key);
        if (inKey !== null) return refusalText(`${path === '' ? 'data' : path} (a key)`, inKey);
      }
      for (let i = entries.length - 1; i >= 0; i--) {
        const [key, inner] = entries[i]!;
        pending.push({ value: inner, path: path === '' ? keyName(key) : `${path}.${keyName(key)}` });
      }
    }
  }
  return null;
}

function refusalText(field: string, codePoint: number): string {
  return `${field}: ${codePointName(codePoint)} (${hiddenCharacterKind(codePoint)}) is not allowed; write the text without invisible or direction-changing characters`;
}
