import { existsSync, readdirSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { describe, expect, it } from 'vitest';
import { anchorsIn, prose, readDoc, repoRoot } from './markdown.js';

/** README.md and every page under docs/: the documentation a user reads. */
const pages = [
  'README.md',
  ...readdirSync(join(repoRoot, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

describe('the documentation', () => {
  it('the README is at most 200 lines and links every page under docs/', () => {
    const readme = readDoc('README.md');
    expect(readme.trimEnd().split('\n').length).toBeLessThanOrEqual(200);
    for (const page of pages.filter((p) => p.startsWith('docs/'))) expect(readme, `README links ${page}`).toContain(`](${page})`);
  });

  it('the pages the README promises exist: cli, hooks, rules, policies, log format, api, architecture, benchmarks', () => {
    for (const page of ['cli', 'hooks', 'rules', 'policies', 'log-format', 'api', 'architecture', 'benchmarks']) expect(pages).toContain(`docs/${page}.md`);
  });

  it.each(pages)('%s: every relative link names a file of the repository, and every #anchor a heading in it', (page) => {
    const links = [...prose(readDoc(page)).matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!).filter((href) => !/^[a-z]+:/.test(href));
    for (const href of links) {
      const [path, anchor] = href.split('#') as [string, string | undefined];
      const target = path === '' ? page : normalize(join(dirname(page), path));
      expect(existsSync(join(repoRoot, target)), `${page}: ${href} (${target})`).toBe(true);
      if (anchor !== undefined) expect([...anchorsIn(target)], `${page}: ${href}`).toContain(anchor);
    }
  });

  it.each(pages)('%s: points at nothing outside the repository (no rulings file, no seed documents)', (page) => {
    // Rule codes (R1, R2, …) are the repository's own now, defined in docs/rules.md#rule-codes; citations.test.ts checks each one the docs use is defined.
    expect(readDoc(page)).not.toMatch(/RULINGS|\bseeds?\s+\d{3}\b/);
  });
});
