import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { anchorsIn, prose, readDoc, repoRoot } from './markdown.js';

/*
 * A newcomer reads the code with only the repository at hand. The design
 * documents the project started from (a rulings file, seed documents, a style
 * guide and a design note) live outside it, so nothing here may cite them:
 * a comment says the rule itself, or names the rule's code, which
 * docs/rules.md#rule-codes defines under a heading that is the code (`### R12`,
 * anchor `#r12`).
 *
 * What counts as a rule code: `R` and one or two digits, as a whole word
 * (`R1`, `R12`), inside a comment of a .ts file under src/, events/, machines/
 * or test/, or in the prose of a page of the docs (outside fenced code
 * blocks). Comments are found by TypeScript's own parser, so strings,
 * template literals and regular expressions are never read as comments: the
 * round labels of a chart (`x-axis ["start", "R1", "R2"]`, in a test's
 * expected string or in a fenced block of the docs) are round numbers, not
 * rule codes, and are not counted.
 */

/** The folders whose files must not cite outside documents, and whose comments' rule codes must be defined. */
const CODE_DIRS = ['src', 'events', 'machines'];

/** Every file under a folder of the repository, as a path from the root. */
function filesUnder(dir: string): string[] {
  return readdirSync(join(repoRoot, dir), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => relative(repoRoot, join(e.parentPath, e.name)));
}

/** The documentation a reader gets: README.md, every page under docs/, and the other Markdown files shipped beside the code. */
const pages = [
  'README.md',
  ...readdirSync(join(repoRoot, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
  ...['examples', 'bench', 'visualizations'].flatMap((d) => (existsSync(join(repoRoot, d)) ? filesUnder(d).filter((f) => f.endsWith('.md')) : [])),
];

/** Ways of citing a document that lives outside the repository, each with what it names. */
const OUTSIDE: readonly (readonly [string, RegExp])[] = [
  ['the rulings file', /\bRULINGS\b/],
  ['a seed by number', /\bseeds?\s+0\d\d\b/i],
  ['the seed documents', /\bseeds\/|\bthe seeds?\b|\bseed-free\b/i],
  ['the style guide', /\bSTYLE\.md\b/],
  ['the design note', /\bDESIGN\.md\b/],
];

/** What `text` cites outside the repository: one line per citation, `file:line: what (the words)`. */
function outsideCitations(file: string, text: string): string[] {
  return text.split('\n').flatMap((line, i) =>
    OUTSIDE.flatMap(([what, pattern]) => {
      const found = pattern.exec(line);
      return found ? [`${file}:${i + 1}: ${what} (${found[0]})`] : [];
    }),
  );
}

/**
 * The text of every comment of a TypeScript file. The scanner reads the
 * trivia; the parser says where a `/` starts a regular expression and where a
 * `}` goes on with a template literal, which a scanner alone cannot tell.
 */
export function commentsOf(fileName: string, text: string): string[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const regexes = new Set<number>();
  const templateParts = new Set<number>();
  const visit = (node: ts.Node): void => {
    if (ts.isRegularExpressionLiteral(node)) regexes.add(node.getStart(source));
    if (ts.isTemplateMiddle(node) || ts.isTemplateTail(node)) templateParts.add(node.getStart(source));
    ts.forEachChild(node, visit);
  };
  visit(source);
  const scanner = ts.createScanner(ts.ScriptTarget.Latest, false, ts.LanguageVariant.Standard, text);
  const comments: string[] = [];
  for (let token = scanner.scan(); token !== ts.SyntaxKind.EndOfFileToken; token = scanner.scan()) {
    const at = scanner.getTokenStart();
    if (token === ts.SyntaxKind.SingleLineCommentTrivia || token === ts.SyntaxKind.MultiLineCommentTrivia) comments.push(scanner.getTokenText());
    else if ((token === ts.SyntaxKind.SlashToken || token === ts.SyntaxKind.SlashEqualsToken) && regexes.has(at)) scanner.reScanSlashToken();
    else if (token === ts.SyntaxKind.CloseBraceToken && templateParts.has(at)) scanner.reScanTemplateToken(false);
  }
  return comments;
}

const RULE_CODE = /\bR(\d{1,2})\b/g;

/** The rule codes cited in the comments of every .ts file under the folders, each with the first file that cites it. */
function codesInComments(dirs: readonly string[]): Map<string, string> {
  const cited = new Map<string, string>();
  for (const file of dirs.flatMap(filesUnder).filter((f) => f.endsWith('.ts'))) {
    const text = readFileSync(join(repoRoot, file), 'utf8');
    // Parsing is the slow part: a file with no code-like word anywhere has none in its comments either.
    if (!/\bR\d{1,2}\b/.test(text)) continue;
    for (const comment of commentsOf(file, text)) for (const m of comment.matchAll(RULE_CODE)) if (!cited.has(m[0])) cited.set(m[0], file);
  }
  return cited;
}

/** The rule codes docs/rules.md defines: a `### R12` heading (anchor `r12`) under `## Rule codes`, with text under it. */
function definedCodes(): Set<string> {
  const rules = prose(readDoc('docs/rules.md'));
  const start = rules.indexOf('\n## Rule codes\n');
  if (start < 0) return new Set();
  const next = rules.indexOf('\n## ', start + 1);
  const section = rules.slice(start, next < 0 ? undefined : next);
  return new Set([...section.matchAll(/^### (R\d{1,2})\n+(?=\S)(?!#)/gm)].map((m) => m[1]!));
}

describe('citations: the code and the docs stand alone', () => {
  it('the comment scanner finds comments, and not strings, templates or regular expressions', () => {
    // Given a file with a rule code in each place a scanner could mistake for a comment
    const text = [
      "const a = 'R1 // R2'; // R3",
      'const b = `R4 /* R5 */ ${a}`; /* R6 */',
      'const c = /R7\\/\\/R8/; /** R9 */',
      'function f() {',
      '  // R10, before a closing brace',
      '}',
      '// R11, at the end',
    ].join('\n');
    // When its comments are read, then only the comments' codes are there
    const codes = commentsOf('given.ts', text).flatMap((c) => [...c.matchAll(RULE_CODE)].map((m) => m[0]));
    expect(codes).toEqual(['R3', 'R6', 'R9', 'R10', 'R11']);
  });

  it('no file under src/, events/ or machines/ cites the rulings file, a seed document, the style guide or the design note', () => {
    const found = CODE_DIRS.flatMap(filesUnder).flatMap((file) => outsideCitations(file, readFileSync(join(repoRoot, file), 'utf8')));
    expect(found).toEqual([]);
  });

  it('every rule code cited in a comment under src/, events/, machines/ or test/ is defined in docs/rules.md, under a heading whose anchor is the code', () => {
    // Given the codes the comments cite and the ones docs/rules.md defines
    const cited = codesInComments([...CODE_DIRS, 'test']);
    const defined = definedCodes();
    const anchors = anchorsIn('docs/rules.md');
    // Then the comments cite some (the test reads what it means to), and each is defined with its anchor
    expect(cited.size).toBeGreaterThan(0);
    const missing = [...cited].filter(([code]) => !defined.has(code) || !anchors.has(code.toLowerCase())).map(([code, file]) => `${code} (cited in ${file})`);
    expect(missing).toEqual([]);
  }, 30_000);

  it('every rule code the docs cite in prose is defined in docs/rules.md', () => {
    const defined = definedCodes();
    const undefinedCodes = pages.flatMap((page) =>
      [...prose(readDoc(page)).matchAll(RULE_CODE)].filter((m) => !defined.has(m[0])).map((m) => `${page}: ${m[0]}`),
    );
    expect(undefinedCodes).toEqual([]);
  });

  it('a comment that points at docs/PAGE.md#anchor names a page and a heading that exist', () => {
    const pointers = CODE_DIRS.flatMap(filesUnder)
      .filter((f) => f.endsWith('.ts'))
      .map((file) => ({ file, text: readFileSync(join(repoRoot, file), 'utf8') }))
      .filter(({ text }) => text.includes('docs/'))
      .flatMap(({ file, text }) =>
        commentsOf(file, text).flatMap((c) =>
          [...c.matchAll(/\bdocs\/([\w-]+\.md)(?:#([\w-]+))?/g)].map((m) => ({ file, page: `docs/${m[1]!}`, anchor: m[2] })),
        ),
      );
    expect(pointers.length).toBeGreaterThan(0);
    const broken = pointers.filter(({ page, anchor }) => !existsSync(join(repoRoot, page)) || (anchor !== undefined && !anchorsIn(page).has(anchor)));
    expect(broken.map(({ file, page, anchor }) => `${file}: ${page}${anchor === undefined ? '' : `#${anchor}`}`)).toEqual([]);
  }, 30_000);

  it.each(pages)('%s: neither names nor links the documents outside the repository', (page) => {
    const text = readDoc(page);
    expect(outsideCitations(page, text)).toEqual([]);
    // A link into a folder outside the repository, to any of them by its file name
    const links = [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!);
    expect(links.filter((href) => /^\/|(^|\/)\.\.\/\.\.\/|RULINGS|seeds?\/|STYLE\.md|DESIGN\.md/i.test(href))).toEqual([]);
  });
});
