import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readXml, SyncInputError, XML_DEPTH_MAX, XML_ELEMENTS_MAX, type XmlElement } from '../../src/sync/index.js';
import { refusalOf } from './refused.js';

/*
 * The XML reader behind the JUnit reader: the small grammar it reads, and
 * every refusal, each one line naming the file and the line and column
 * (worked out by hand below, 1-based). DOCTYPE and ENTITY are refused
 * outright, so no entity is ever declared or expanded.
 */

const FILE = 'report.xml';

/** The refusal `text` gets: a SyncInputError of one line, naming the file. */
const refusal = (text: string) => refusalOf(() => readXml(text, FILE), FILE);

/** Expects `text` refused at `line`/`column`, saying `why`. */
function expectRefused(text: string, line: number, column: number, why: string | RegExp): void {
  const message = refusal(text);
  expect(message.startsWith(`${FILE}: line ${line} column ${column}: `), message).toBe(true);
  if (typeof why === 'string') expect(message).toContain(why);
  else expect(message).toMatch(why);
}

const only = (element: XmlElement, name: string): XmlElement => {
  const found = element.children.filter((child) => child.name === name);
  expect(found, `one <${name}> in <${element.name}>`).toHaveLength(1);
  return found[0]!;
};

describe('readXml reads', () => {
  it('the declaration, elements, attributes in either quotes, text, CDATA, comments and instructions', () => {
    const text = [
      '<?xml version="1.0" encoding="utf-8"?>',
      '<!-- a report -->',
      '<?stylesheet href="x"?>',
      `<root a="1" b='two' c = "x'y" d='x"y'>`,
      '  <child>hello <![CDATA[<raw> & ]]> world</child>',
      '  <?skipped instruction?><!-- skipped -->',
      '  <empty/><empty2 x="1" />',
      '</root >',
      '<!-- after -->',
      '',
    ].join('\n');
    const root = readXml(text, FILE);
    expect(root.name).toBe('root');
    expect(Object.fromEntries(root.attributes)).toEqual({ a: '1', b: 'two', c: "x'y", d: 'x"y' });
    expect(root.children.map((child) => child.name)).toEqual(['child', 'empty', 'empty2']);
    expect(only(root, 'child').text).toBe('hello <raw> &  world');
    expect(only(root, 'empty2').attributes.get('x')).toBe('1');
    expect(only(root, 'empty').children).toEqual([]);
    // The root's own text is the whitespace between its children; theirs is not in it.
    expect(root.text.trim()).toBe('');
  });

  it('where each element starts: line and column of its "<", 1-based', () => {
    const root = readXml('<a>\n  <b/>\n\t<c><d/></c>\r\n<e/>\r<f/></a>', FILE);
    const at = (element: XmlElement) => [element.name, element.line, element.column];
    expect(at(root)).toEqual(['a', 1, 1]);
    expect(root.children.map(at)).toEqual([
      ['b', 2, 3],
      ['c', 3, 2],
      ['e', 4, 1], // CRLF is one line end
      ['f', 5, 1], // so is a lone CR
    ]);
    expect(at(only(only(root, 'c'), 'd'))).toEqual(['d', 3, 5]);
  });

  it('the five predefined entities and decimal and hex character references, in text and attributes', () => {
    const root = readXml('<a v="&lt;&gt;&amp;&apos;&quot;&#65;&#x42;&#x43;"/>', FILE);
    expect(root.attributes.get('v')).toBe(`<>&'"ABC`);
    const text = readXml('<a>&lt;b&gt; &amp;&amp; &apos;q&quot; &#10;&#x9;&#x1F600;&#xe9;&#233;</a>', FILE).text;
    expect(text).toBe(`<b> && 'q" \n\t\u{1F600}éé`);
  });

  it('line ends as XML makes them: CRLF and CR become LF in text; literal whitespace in an attribute becomes a space, a reference keeps it', () => {
    const root = readXml('<a v="x\r\ny\tz\nw&#10;&#13;">one\r\ntwo\rthree<![CDATA[\r\n]]></a>', FILE);
    expect(root.attributes.get('v')).toBe('x y z w\n\r');
    expect(root.text).toBe('one\ntwo\nthree\n');
  });

  it('a byte order mark, names with ":" "-" "." and digits, and whitespace in an end tag', () => {
    const root = readXml('\uFEFF<ns:a-b.c1 xml:lang="en"><x.y/></ns:a-b.c1\n>', FILE);
    expect(root.name).toBe('ns:a-b.c1');
    expect(root.attributes.get('xml:lang')).toBe('en');
    expect(root.children[0]!.name).toBe('x.y');
  });

  it('attributes named like Object.prototype keys as plain entries, polluting nothing', () => {
    const root = readXml('<a __proto__="p" constructor="c" toString="t" hasOwnProperty="h"/>', FILE);
    expect(root.attributes.get('__proto__')).toBe('p');
    expect(root.attributes.get('constructor')).toBe('c');
    expect(root.attributes.get('nope')).toBeUndefined();
    expect(({} as Record<string, unknown>).p).toBeUndefined();
    expect(Object.getPrototypeOf(root.attributes)).toBe(Map.prototype);
  });

  it(`nesting up to ${XML_DEPTH_MAX} deep`, () => {
    const text = '<a>'.repeat(XML_DEPTH_MAX) + '</a>'.repeat(XML_DEPTH_MAX);
    let element = readXml(text, FILE);
    let depth = 1;
    while (element.children.length > 0) {
      element = element.children[0]!;
      depth++;
    }
    expect(depth).toBe(XML_DEPTH_MAX);
  });

  it('raw control characters in text, as producers write them (Node writes an error message raw): kept for the caller to make safe', () => {
    expect(readXml('<a>\u001b[31mred\u001b[0m\u0000</a>', FILE).text).toBe('\u001b[31mred\u001b[0m\u0000');
  });
});

describe('readXml refuses, naming the line and column', () => {
  it('a DOCTYPE, whatever it declares: billion laughs and XXE are never read', () => {
    const laughs = [
      '<?xml version="1.0"?>',
      '<!DOCTYPE lolz [',
      ' <!ENTITY lol "lol">',
      ' <!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">',
      ' <!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">',
      ']>',
      '<lolz>&lol2;</lolz>',
    ].join('\n');
    expectRefused(laughs, 2, 1, 'a DOCTYPE is refused');
    const xxe = '<?xml version="1.0"?>\n  <!DOCTYPE foo [ <!ENTITY xxe SYSTEM "file:///etc/passwd"> ]>\n<foo>&xxe;</foo>';
    expectRefused(xxe, 2, 3, 'a DOCTYPE is refused');
    expectRefused('<!DOCTYPE html><html/>', 1, 1, 'a DOCTYPE is refused');
  });

  it('an ENTITY declaration, and any entity but the five (no DOCTYPE needed to try)', () => {
    expectRefused('<a>\n  <!ENTITY x "y">\n</a>', 2, 3, 'an ENTITY declaration is refused');
    expectRefused('<!ENTITY x "y"><a/>', 1, 1, 'an ENTITY declaration is refused');
    expectRefused('<lolz>&lol9;</lolz>', 1, 7, '"&lol9;" is not one of XML\'s five');
    expectRefused('<a v="&xxe;"/>', 1, 7, '"&xxe;" is not one of');
    expectRefused('<a><!ELEMENT a ANY></a>', 1, 4, 'a markup declaration is not read');
  });

  it('a bare "&" and a reference without its ";"', () => {
    expectRefused('<a>fish & chips</a>', 1, 9, 'an "&" that starts no reference');
    expectRefused('<a>&amp</a>', 1, 4, 'an "&" that starts no reference');
    expectRefused('<a>&#65</a>', 1, 4, 'a character reference is not closed by ";"');
    expectRefused('<a>&#;</a>', 1, 4, 'a character reference is not closed by ";"');
    expectRefused('<a>&#xZ;</a>', 1, 4, 'a character reference is not closed by ";"');
  });

  it('a character reference to a character XML does not allow', () => {
    expectRefused('<a>&#0;</a>', 1, 4, 'a character reference names a character XML does not allow: "&#0;"');
    expectRefused('<a>\n ok &#x1b;</a>', 2, 5, '"&#x1b;"');
    expectRefused('<a v="&#xD800;"/>', 1, 7, '"&#xD800;"');
    expectRefused('<a>&#xFFFE;</a>', 1, 4, '"&#xFFFE;"');
    expectRefused('<a>&#x110000;</a>', 1, 4, '"&#x110000;"');
    // A number of any length: refused, not overflowed into a valid character.
    expectRefused(`<a>&#${'9'.repeat(400)};</a>`, 1, 4, 'a character XML does not allow');
    expectRefused(`<a>&#x1${'0'.repeat(8)}41;</a>`, 1, 4, 'a character XML does not allow');
  });

  it('an element never closed (a truncated report), naming where it opened and where the text ends', () => {
    expectRefused('<a>\n  <b>\n    text', 2, 3, '<b> is never closed (the text ends at line 3 column 9)');
    expectRefused('<testsuites>\n<testsuite name="x">\n<testcase name="y"', 3, 1, 'the start tag <testcase> is never closed');
    expectRefused('<a>\n<b x="1', 2, 6, 'the value of the attribute "x" in <b> is never closed');
    expectRefused('<a><!-- never', 1, 4, 'a comment is never closed');
    expectRefused('<a><![CDATA[ never', 1, 4, 'a CDATA section is never closed');
    expectRefused('<a><?pi never', 1, 4, 'a processing instruction is never closed');
    expectRefused('<a></a', 1, 4, 'a malformed end tag');
  });

  it('a mismatched end tag, naming where the open element began', () => {
    expectRefused('<a>\n  <b></c>\n</a>', 2, 6, '</c> where </b> belongs (<b> opened at line 2 column 3)');
    expectRefused('<a>\r\n<b>\r\n</a>', 3, 1, '</a> where </b> belongs (<b> opened at line 2 column 1)');
    expectRefused('</a>', 1, 1, 'an end tag before any element');
  });

  it('nesting deeper than the limit: 100,000 nested <a> refused at once, no stack overflow', () => {
    // The 257th <a> starts after 256 of three characters each.
    expectRefused('<a>'.repeat(100_000), 1, XML_DEPTH_MAX * 3 + 1, `elements nest deeper than ${XML_DEPTH_MAX}`);
    expectRefused(`${'<a>'.repeat(100_000)}${'</a>'.repeat(100_000)}`, 1, 769, 'nest deeper');
  });

  it('an attribute without quotes, without a value, twice, or run into the one before', () => {
    expectRefused('<a x=1/>', 1, 6, 'the value of the attribute "x" in <a> is not in quotes');
    expectRefused('<a\n  x\n/>', 3, 1, 'the attribute "x" in <a> has no "=" and value');
    expectRefused('<a x="1" x="2"/>', 1, 10, 'the attribute "x" appears twice in <a>');
    expectRefused('<a x="1"y="2"/>', 1, 9, 'no space before the attribute "y" in <a>');
    expectRefused('<a x="1" ="2"/>', 1, 10, '"=" where an attribute, ">" or "/>" belongs in <a>');
    expectRefused('<a x="<"/>', 1, 7, 'a "<" in an attribute value');
  });

  it('anything but comments and instructions after the root, or text before it', () => {
    expectRefused('<a/>\n junk', 2, 2, 'after the root element, text: "junk"');
    expectRefused('<a/><b/>', 1, 5, 'after the root element, a second root element or tag: "<b/>"');
    expectRefused('<a></a></a>', 1, 8, 'after the root element');
    expectRefused('hello <a/>', 1, 1, 'text before the root element: "hello <a/>"');
    expectRefused('<a>< b</a>', 1, 4, 'a "<" that starts no tag');
  });

  it('an empty text, one of only whitespace, or one of only comments', () => {
    expectRefused('', 1, 1, 'no XML: the text is empty');
    expectRefused('  \n\t', 2, 2, 'no XML: the text is only whitespace');
    expectRefused('<?xml version="1.0"?>\n<!-- nothing -->', 2, 17, 'no root element');
  });

  it('a hostile value is shown quoted and cut, on one line', () => {
    const message = refusal(`<a>&${'\u2028x'.repeat(100)};</a>`);
    expect(message.length).toBeLessThan(300);
    const bidi = refusal('<a/>\u202e\u0007junk');
    expect(bidi).toContain('\\u202e');
    expect(bidi).toContain('\\u0007');
  });
});

/** The test's own escaper for a double-quoted attribute value: what must be escaped, and whitespace kept by reference (literal whitespace is normalised to a space). */
const escapeAttribute = (value: string) =>
  value.replace(/[&<"\t\n\r]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '"': '&quot;', '\t': '&#9;', '\n': '&#10;', '\r': '&#13;' })[c]!);
/** The same for text: `&` and `<`, and CR by reference (a literal one is a line end). */
const escapeText = (value: string) => value.replace(/[&<\r]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '\r': '&#13;' })[c]!);

/** Characters XML allows, weighted toward the ones that need escaping. */
const xmlChar = fc.oneof(
  fc.constantFrom('&', '<', '>', '"', "'", '\t', '\n', '\r', ' ', ';', '#', ']', '?', '-', '!', '/', '='),
  fc.integer({ min: 0x20, max: 0xd7ff }).map((c) => String.fromCharCode(c)),
  fc.integer({ min: 0xe000, max: 0xfffd }).map((c) => String.fromCharCode(c)),
  fc.integer({ min: 0x10000, max: 0x10ffff }).map((c) => String.fromCodePoint(c)),
);

describe('readXml round-trips', () => {
  it('any attribute value, escaped by the test', () => {
    fc.assert(
      fc.property(fc.string({ unit: xmlChar, maxLength: 60 }), fc.string({ unit: xmlChar, maxLength: 60 }), (a, b) => {
        const root = readXml(`<r first="${escapeAttribute(a)}"\n\tsecond="${escapeAttribute(b)}" />`, FILE);
        expect(root.attributes.get('first')).toBe(a);
        expect(root.attributes.get('second')).toBe(b);
      }),
      { numRuns: 2_000 },
    );
  });

  it('any text, escaped by the test, plain or in CDATA', () => {
    fc.assert(
      fc.property(fc.string({ unit: xmlChar, maxLength: 80 }), (value) => {
        expect(readXml(`<r>${escapeText(value)}</r>`, FILE).text).toBe(value);
        if (!value.includes(']]>') && !value.includes('\r')) expect(readXml(`<r><![CDATA[${value}]]></r>`, FILE).text).toBe(value);
      }),
      { numRuns: 2_000 },
    );
  });

  it('any allowed character as a decimal or hex reference', () => {
    fc.assert(
      fc.property(xmlChar, fc.boolean(), (char, hex) => {
        const code = char.codePointAt(0)!;
        const reference = hex ? `&#x${code.toString(16)};` : `&#${code};`;
        expect(readXml(`<r v="${reference}">${reference}</r>`, FILE).attributes.get('v')).toBe(char);
      }),
    );
  });

  it('any text at all: a tree or a SyncInputError of one line, never another throw', () => {
    const piece = fc.constantFrom(
      '<',
      '>',
      '/',
      '</',
      '<a',
      '<b',
      '</a>',
      '="',
      "='",
      '"',
      '&',
      '&amp;',
      '&#',
      ';',
      '<!--',
      '-->',
      '<![CDATA[',
      ']]>',
      '<?',
      '?>',
      ' ',
      '\n',
      '\r',
      'x',
      '<!DOCTYPE',
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 40 }), (pieces) => {
        const text = pieces.join('');
        try {
          readXml(text, FILE);
        } catch (error) {
          expect(error).toBeInstanceOf(SyncInputError);
          expect((error as Error).message).toMatch(/^report\.xml: line \d+ column \d+: [^\n\r]+$/);
        }
      }),
      { numRuns: 5_000 },
    );
  });
});

describe('readXml in linear time', () => {
  // A quadratic step would take minutes at these sizes (each takes ~100-300 ms): the test's time budget catches one; the speed itself is bench/sync.ts's.
  it('reads a 9 MB report of 100,000 elements, and refuses hostile shapes, each in linear time', () => {
    const cases = Array.from({ length: 50_000 }, (_, i) => `<c n="t&amp;${i}"><f m="x&#10;y">at &lt;anonymous&gt; line ${i}\n${'s'.repeat(100)}\n</f></c>\n`);
    const inputs: [string, string][] = [
      ['a large report', `<r>\n${cases.join('')}</r>`],
      ['many bare "&" late in a long text', `<r>${'x'.repeat(5_000_000)}${'&'.repeat(10)}</r>`],
      ['an endless attribute value', `<r a="${'x'.repeat(5_000_000)}`],
      ['a long run of "<a" with no ">"', `<r>${'<a b="c" '.repeat(500_000)}`],
      ['a long unclosed comment', `<r><!--${'<!-- -- '.repeat(500_000)}`],
      ['text runs before one distant "&"', `<r>${'<a/>x'.repeat(500_000)}&amp;</r>`],
      ['CRLF lines of elements', `<r>${'<a/>\r\n'.repeat(500_000)}</r>`],
      ['many attributes', `<r ${Array.from({ length: 200_000 }, (_, i) => `a${i}="${i}"`).join(' ')}/>`],
    ];
    for (const [what, text] of inputs) {
      try {
        readXml(text, FILE);
      } catch (error) {
        expect(error, what).toBeInstanceOf(SyncInputError);
      }
    }
  }, 60_000);
});

describe('readXml bounds memory', () => {
  it(`refuses more than ${XML_ELEMENTS_MAX} elements, naming the first one past the limit`, () => {
    // The root is the first element, so the last <a/> read is the limit's; the one after it is refused.
    const text = `<r>${'<a/>'.repeat(XML_ELEMENTS_MAX)}</r>`;
    expectRefused(text, 1, 3 + 4 * (XML_ELEMENTS_MAX - 1) + 1, `more than ${XML_ELEMENTS_MAX} elements`);
    expect(readXml(`<r>${'<a/>'.repeat(XML_ELEMENTS_MAX - 1)}</r>`, FILE).children).toHaveLength(XML_ELEMENTS_MAX - 1);
  }, 60_000);
});
