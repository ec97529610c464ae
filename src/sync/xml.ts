import { badInput } from './finding.js';

/*
 * A small XML reader, written for the JUnit reports `gapflow sync` reads
 * rather than taken from a library. fast-xml-parser, the usual choice, had
 * several entity-expansion CVEs in 2026 alone (CVE-2026-26278,
 * CVE-2026-33036, CVE-2026-33349), weighs ~65 kB minified in the CLI's one
 * bundle, and its tree needs careful options before a JUnit reader can
 * trust it; a test report needs only a tiny subset of XML.
 *
 * What it reads: the XML declaration and processing instructions (skipped),
 * elements, attributes in single or double quotes, text, CDATA, comments
 * (skipped), the five predefined entities and numeric character references.
 * What it refuses, each with the line and column: any DOCTYPE or ENTITY
 * declaration (so no entity is ever declared or expanded: no billion laughs,
 * no XXE), any other entity, a character reference to a character XML does
 * not allow, mismatched or unclosed tags, a duplicate attribute, an
 * unquoted one, anything but comments and instructions after the root,
 * nesting deeper than XML_DEPTH_MAX and more than XML_ELEMENTS_MAX elements.
 *
 * One pass, no recursion (an explicit stack), no regular expressions on the
 * text: time is linear in the text, memory bounded by it.
 */

/** One element: its name, attributes, child elements and the text directly inside it (CDATA included), with where its start tag begins. */
export interface XmlElement {
  readonly name: string;
  readonly attributes: ReadonlyMap<string, string>;
  readonly children: readonly XmlElement[];
  /** The element's own text and CDATA in order, references decoded, line ends made `\n`; its children's text is theirs. */
  readonly text: string;
  /** Where `<` of the start tag is: 1-based line, and 1-based column in UTF-16 code units. */
  readonly line: number;
  readonly column: number;
}

/** The deepest nesting read; a report nests suites a few levels deep, a bomb of a million `<a>` is refused at this depth. */
export const XML_DEPTH_MAX = 256;
/** The most elements read: four per finding at the most findings a snapshot may carry, and a bound on memory a text of tiny elements cannot pass. */
export const XML_ELEMENTS_MAX = 2_000_000;

const TAB = 0x09;
const LF = 0x0a;
const CR = 0x0d;
const SPACE = 0x20;
const QUOTE = 0x22;
const HASH = 0x23;
const AMP = 0x26;
const APOS = 0x27;
const SLASH = 0x2f;
const SEMI = 0x3b;
const LT = 0x3c;
const EQ = 0x3d;
const GT = 0x3e;
const QUESTION = 0x3f;
const BANG = 0x21;
const BOM = 0xfeff;

/** The five entities XML predefines, each with its `;`: every other one would need a DOCTYPE, which is refused. */
const PREDEFINED: readonly (readonly [string, string])[] = [
  ['lt;', '<'],
  ['gt;', '>'],
  ['amp;', '&'],
  ['quot;', '"'],
  ['apos;', "'"],
];
/** The longest entity name looked for before `;`: the five are at most 4 letters, a longer one is named in the refusal, cut. */
const ENTITY_NAME_MAX = 40;

/** A value as a message shows it: JSON-quoted, cut to about 40 characters, with line breaks and bidirectional controls escaped. */
export function quoted(value: string): string {
  const cut = value.length > 40 ? `${value.slice(0, 40)}…` : value;
  return JSON.stringify(cut).replace(/[\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

const isSpace = (c: number) => c === SPACE || c === LF || c === TAB || c === CR;
/** Name characters, kept simple: ASCII letters, `_`, `:` and anything past ASCII may start a name; digits, `-` and `.` may follow. */
const isNameStart = (c: number) => (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || c === 0x5f || c === 0x3a || c >= 0x80;
const isNameChar = (c: number) => isNameStart(c) || (c >= 0x30 && c <= 0x39) || c === 0x2d || c === 0x2e;
/** XML 1.0's Char production: what a character reference may name. */
const isXmlChar = (c: number) =>
  c === TAB || c === LF || c === CR || (c >= SPACE && c <= 0xd7ff) || (c >= 0xe000 && c <= 0xfffd) || (c >= 0x10000 && c <= 0x10ffff);

/**
 * Where the next `char` is at or after an offset, for offsets that only
 * grow: the search resumes where the last one ended, so the whole text is
 * searched once, by the engine's own indexOf.
 */
class NextOf {
  private found = -1;
  constructor(
    private readonly text: string,
    private readonly char: string,
  ) {}

  /** The first `char` at or after `at`, or the text's length when there is none. */
  from(at: number): number {
    if (this.found < at) {
      const k = this.text.indexOf(this.char, at);
      this.found = k < 0 ? this.text.length : k;
    }
    return this.found;
  }
}

/**
 * Offsets turned into 1-based lines and columns (UTF-16 code units), moving
 * forward as the reader does so the text is counted once. A line ends at LF,
 * CRLF or a lone CR; a text without CR is counted by jumps from LF to LF.
 */
class Positions {
  private offset = 0;
  private line = 1;
  private lineStart = 0;
  private readonly hasCr: boolean;
  private nextLf: NextOf;
  constructor(private readonly text: string) {
    this.hasCr = text.includes('\r');
    this.nextLf = new NextOf(text, '\n');
  }

  /** The line and column of `target`. */
  at(target: number): { line: number; column: number } {
    this.advance(target);
    return { line: this.line, column: this.currentColumn };
  }

  /** The column of where it stands. */
  get currentColumn(): number {
    return this.offset - this.lineStart + 1;
  }

  /** The line of where it stands. */
  get currentLine(): number {
    return this.line;
  }

  /** Moves to `target`: on from where it stands when `target` is ahead, else from the start. */
  advance(target: number): void {
    const text = this.text;
    if (target < this.offset) {
      this.offset = 0;
      this.line = 1;
      this.lineStart = 0;
      this.nextLf = new NextOf(text, '\n');
    }
    if (this.hasCr) {
      for (let k = this.offset; k < target; k++) {
        const c = text.charCodeAt(k);
        if (c === LF || (c === CR && text.charCodeAt(k + 1) !== LF)) {
          this.line++;
          this.lineStart = k + 1;
        }
      }
    } else {
      for (let k = this.nextLf.from(this.offset); k < target; k = this.nextLf.from(k + 1)) {
        this.line++;
        this.lineStart = k + 1;
      }
    }
    this.offset = target;
  }
}

/** An element as it is built: its children array is made on its first child, its text joined as it comes (V8 joins strings as ropes: linear). */
interface Building {
  name: string;
  attributes: ReadonlyMap<string, string>;
  children: XmlElement[];
  text: string;
  line: number;
  column: number;
}

/** What an element without attributes or children holds: one of each, shared, so a report of a million leaves costs no more than it must. */
const NO_ATTRIBUTES: ReadonlyMap<string, string> = new Map();
const NO_CHILDREN: XmlElement[] = [];
Object.freeze(NO_CHILDREN);

/** How a run of characters is decoded: text and CDATA keep line ends (as `\n`); an attribute value makes whitespace a space. CDATA has no references. */
type Run = 'text' | 'attribute' | 'cdata';

/**
 * Reads `text` as XML and gives its root element, or refuses it with a
 * one-line SyncInputError naming `file` and the line and column.
 */
export function readXml(text: string, file: string): XmlElement {
  const n = text.length;
  const positions = new Positions(text);
  const nextAmp = new NextOf(text, '&');
  const hasCr = text.includes('\r');
  const fail: (at: number, why: string) => never = (at, why) => {
    const { line, column } = positions.at(Math.min(at, n));
    return badInput(file, `line ${line} column ${column}`, why);
  };

  /** The name starting at `at`, or '' when none does. */
  const nameAt = (at: number): string => {
    if (at >= n || !isNameStart(text.charCodeAt(at))) return '';
    let end = at + 1;
    while (end < n && isNameChar(text.charCodeAt(end))) end++;
    return text.slice(at, end);
  };
  const skipSpace = (at: number): number => {
    while (at < n && isSpace(text.charCodeAt(at))) at++;
    return at;
  };

  /** Where the last reference read ends: the offset after its `;`. */
  let referenceEnd = 0;
  /** The character or predefined entity a reference at `at` (`&`) names; `referenceEnd` is set past it. */
  const reference = (at: number, end: number): string => {
    if (text.charCodeAt(at + 1) === HASH) return characterReference(at, end);
    for (const [name, value] of PREDEFINED) {
      if (at + 1 + name.length <= end && text.startsWith(name, at + 1)) {
        referenceEnd = at + 1 + name.length;
        return value;
      }
    }
    let k = at + 1;
    while (k < end && k - at <= ENTITY_NAME_MAX && isNameChar(text.charCodeAt(k))) k++;
    const name = text.slice(at + 1, k);
    if (name === '' || k >= end || text.charCodeAt(k) !== SEMI)
      fail(at, `an "&" that starts no reference (write &amp;): ${quoted(text.slice(at, Math.min(k + 1, end)))}`);
    return fail(at, `the entity ${quoted(`&${name};`)} is not one of XML's five (amp, lt, gt, apos, quot); no other is expanded`);
  };

  /** The character a reference at `at` (`&#`) names, decimal or hex; `referenceEnd` is set past it. */
  const characterReference = (at: number, end: number): string => {
    const hex = text.charCodeAt(at + 2) === 0x78; // 'x'
    let k = at + (hex ? 3 : 2);
    const digitsStart = k;
    let value = 0;
    for (; k < end; k++) {
      const c = text.charCodeAt(k);
      const digit = c >= 0x30 && c <= 0x39 ? c - 0x30 : hex && c >= 0x61 && c <= 0x66 ? c - 0x57 : hex && c >= 0x41 && c <= 0x46 ? c - 0x37 : -1;
      if (digit < 0) break;
      // Past the last code point it only has to stay past it: no huge numbers.
      value = value > 0x10ffff ? value : value * (hex ? 16 : 10) + digit;
    }
    const written = () => quoted(text.slice(at, Math.min(k + 1, end)));
    if (k === digitsStart || k >= end || text.charCodeAt(k) !== SEMI) fail(at, `a character reference is not closed by ";": ${written()}`);
    if (!isXmlChar(value)) fail(at, `a character reference names a character XML does not allow: ${written()}`);
    referenceEnd = k + 1;
    return String.fromCodePoint(value);
  };

  /** The characters from `start` to `end` decoded as `run` says. */
  const decode = (start: number, end: number, run: Run): string => {
    if (run === 'cdata' && !hasCr) return text.slice(start, end);
    if (run === 'text' && !hasCr) {
      // Text without CR: from one "&" to the next by indexOf, not a loop over each character; one flat string kept, not a rope of pieces.
      let k = nextAmp.from(start);
      if (k >= end) return text.slice(start, end);
      const parts: string[] = [];
      let from = start;
      for (; k < end; k = nextAmp.from(from)) {
        parts.push(text.slice(from, k), reference(k, end));
        from = referenceEnd;
      }
      parts.push(text.slice(from, end));
      return parts.join('');
    }
    let out = '';
    let from = start;
    for (let k = start; k < end; k++) {
      const c = text.charCodeAt(k);
      if (c === AMP && run !== 'cdata') {
        out += text.slice(from, k) + reference(k, end);
        from = referenceEnd;
        k = from - 1;
      } else if (c === CR) {
        out += text.slice(from, k) + (run === 'attribute' ? ' ' : '\n');
        if (text.charCodeAt(k + 1) === LF && k + 1 < end) k++;
        from = k + 1;
      } else if (run === 'attribute' && (c === LF || c === TAB)) {
        out += `${text.slice(from, k)} `;
        from = k + 1;
      } else if (run === 'attribute' && c === LT) {
        fail(k, 'a "<" in an attribute value (write &lt;)');
      }
    }
    return from === start ? text.slice(start, end) : out + text.slice(from, end);
  };

  /** The offset after the `<?...?>`, `<!--...-->` or `<![CDATA[...]]>` at `at`, refused when it never closes. */
  const closeOf = (at: number, open: number, close: string, what: string): number => {
    const end = text.indexOf(close, at + open);
    if (end < 0) fail(at, `${what} is never closed (no ${quoted(close)} before the end of the text)`);
    return end;
  };

  /** Refuses the `<!` at `at` that is neither a comment nor (in content) CDATA. */
  const refuseDeclaration = (at: number): never => {
    const word = text.slice(at + 2, at + 2 + 8);
    if (word.startsWith('DOCTYPE')) return fail(at, 'a DOCTYPE is refused: no DTD is read, so no entity is declared or expanded (no XXE, no billion laughs)');
    if (word.startsWith('ENTITY')) return fail(at, 'an ENTITY declaration is refused: no entity is declared or expanded (no XXE, no billion laughs)');
    return fail(at, `a markup declaration is not read: ${quoted(text.slice(at, at + 12))}`);
  };

  /** Skips whitespace, comments and processing instructions from `at` (the prolog, or after the root), to the next other thing. */
  const skipMisc = (at: number): number => {
    for (;;) {
      at = skipSpace(at);
      if (at >= n || text.charCodeAt(at) !== LT) return at;
      const next = text.charCodeAt(at + 1);
      if (next === QUESTION) at = closeOf(at, 2, '?>', 'a processing instruction') + 2;
      else if (text.startsWith('<!--', at)) at = closeOf(at, 4, '-->', 'a comment') + 3;
      else if (next === BANG) refuseDeclaration(at);
      else return at;
    }
  };

  let elements = 0;
  let root: XmlElement | null = null;
  const stack: Building[] = [];

  /** Reads the start tag at `at` and opens its element (closing it at once when it ends `/>`); gives the offset after it. */
  const startTag = (at: number): number => {
    const name = nameAt(at + 1);
    if (name === '') fail(at, `a "<" that starts no tag (write &lt; in text): ${quoted(text.slice(at, at + 12))}`);
    if (stack.length >= XML_DEPTH_MAX) fail(at, `elements nest deeper than ${XML_DEPTH_MAX}`);
    if (++elements > XML_ELEMENTS_MAX) fail(at, `more than ${XML_ELEMENTS_MAX} elements`);
    positions.advance(at);
    const line = positions.currentLine;
    const column = positions.currentColumn;
    let attributes = NO_ATTRIBUTES as Map<string, string>;
    let k = at + 1 + name.length;
    for (;;) {
      const afterName = k;
      k = skipSpace(k);
      if (k >= n) fail(at, `the start tag <${name}> is never closed (the text ends first)`);
      const c = text.charCodeAt(k);
      if (c === GT || (c === SLASH && text.charCodeAt(k + 1) === GT)) {
        const element: Building = { name, attributes, children: NO_CHILDREN, text: '', line, column };
        const parent = stack.at(-1);
        if (parent === undefined) root = element;
        else if (parent.children === NO_CHILDREN) parent.children = [element];
        else parent.children.push(element);
        if (c === GT) stack.push(element);
        return c === GT ? k + 1 : k + 2;
      }
      const attribute = nameAt(k);
      if (attribute === '') fail(k, `${quoted(text.charAt(k))} where an attribute, ">" or "/>" belongs in <${name}>`);
      if (k === afterName) fail(k, `no space before the attribute ${quoted(attribute)} in <${name}>`);
      const attributeAt = k;
      k = skipSpace(k + attribute.length);
      if (text.charCodeAt(k) !== EQ) fail(k, `the attribute ${quoted(attribute)} in <${name}> has no "=" and value`);
      k = skipSpace(k + 1);
      const q = text.charCodeAt(k);
      if (q !== QUOTE && q !== APOS) fail(k, `the value of the attribute ${quoted(attribute)} in <${name}> is not in quotes`);
      const close = text.indexOf(q === QUOTE ? '"' : "'", k + 1);
      if (close < 0) fail(k, `the value of the attribute ${quoted(attribute)} in <${name}> is never closed`);
      if (attributes === NO_ATTRIBUTES) attributes = new Map();
      else if (attributes.has(attribute)) fail(attributeAt, `the attribute ${quoted(attribute)} appears twice in <${name}>`);
      attributes.set(attribute, decode(k + 1, close, 'attribute'));
      k = close + 1;
    }
  };

  /** Reads the end tag at `at` (`</`), which must close the innermost open element; gives the offset after it. */
  const endTag = (at: number): number => {
    const name = nameAt(at + 2);
    const k = skipSpace(at + 2 + name.length);
    const top = stack.at(-1) as Building;
    if (name === '' || text.charCodeAt(k) !== GT) fail(at, `a malformed end tag ${quoted(text.slice(at, k + 1))}`);
    if (name !== top.name) fail(at, `</${name}> where </${top.name}> belongs (<${top.name}> opened at line ${top.line} column ${top.column})`);
    stack.pop();
    return k + 1;
  };

  let i = text.charCodeAt(0) === BOM ? 1 : 0;
  i = skipMisc(i);
  if (i >= n) fail(i, text.trim() !== '' ? 'no root element' : text.length === 0 ? 'no XML: the text is empty' : 'no XML: the text is only whitespace');
  if (text.charCodeAt(i) !== LT) fail(i, `text before the root element: ${quoted(text.slice(i, i + 20))}`);
  if (text.charCodeAt(i + 1) === SLASH) fail(i, 'an end tag before any element');
  i = startTag(i);

  while (stack.length > 0) {
    const top = stack.at(-1) as Building;
    if (i >= n) {
      const { line, column } = positions.at(n);
      badInput(file, `line ${top.line} column ${top.column}`, `<${top.name}> is never closed (the text ends at line ${line} column ${column})`);
    }
    const lt = text.indexOf('<', i);
    const end = lt < 0 ? n : lt;
    if (end > i) top.text += decode(i, end, 'text');
    i = end;
    if (lt < 0) continue;
    const next = text.charCodeAt(i + 1);
    if (next === SLASH) i = endTag(i);
    else if (next === QUESTION) i = closeOf(i, 2, '?>', 'a processing instruction') + 2;
    else if (text.startsWith('<!--', i)) i = closeOf(i, 4, '-->', 'a comment') + 3;
    else if (text.startsWith('<![CDATA[', i)) {
      const close = closeOf(i, 9, ']]>', 'a CDATA section');
      top.text += decode(i + 9, close, 'cdata');
      i = close + 3;
    } else if (next === BANG) refuseDeclaration(i);
    else i = startTag(i);
  }

  i = skipMisc(i);
  if (i < n) {
    const what = text.charCodeAt(i) === LT ? `a second root element or tag: ${quoted(text.slice(i, i + 20))}` : `text: ${quoted(text.slice(i, i + 20))}`;
    fail(i, `after the root element, ${what}`);
  }
  return root ?? fail(0, 'no root element');
}
