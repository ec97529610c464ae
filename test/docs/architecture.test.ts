import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readDoc, repoRoot } from './markdown.js';

/*
 * docs/architecture.md is drawn from the code and held to it: the folders
 * its Layout lists exist, each folder of the code has its door (index.ts)
 * and is listed, and only the places the page names import node:fs.
 */

const PAGE = 'docs/architecture.md';
const CODE_ROOTS = ['src', 'events', 'machines'];

/** The paths the Layout block lists (its lines' first words that end in `/`). */
function layoutFolders(): string[] {
  const page = readDoc(PAGE);
  const start = page.indexOf('## Layout');
  const block = page.slice(page.indexOf('```', start) + 3, page.indexOf('```', page.indexOf('```', start) + 3));
  return [...block.matchAll(/^(\S+\/)\s/gm)].map((m) => m[1]!.replace(/\/$/, ''));
}

/** Every folder of the code: each root, and every folder below one. */
function codeFolders(): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    found.push(relative(repoRoot, dir));
    for (const name of readdirSync(dir)) if (statSync(join(dir, name)).isDirectory()) walk(join(dir, name));
  };
  for (const root of CODE_ROOTS) walk(join(repoRoot, root));
  return found;
}

/** Every .ts file of the code, relative to the repository. */
function codeFiles(): string[] {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith('.ts')) files.push(relative(repoRoot, path));
    }
  };
  for (const root of CODE_ROOTS) walk(join(repoRoot, root));
  return files;
}

/** The places the page says import node:fs: the backticked paths of its "Who touches files" paragraph. */
function namedFileTouchers(): string[] {
  const page = readDoc(PAGE);
  const at = page.indexOf('**Who touches files:**');
  expect(at, `${PAGE} says who touches files`).toBeGreaterThan(-1);
  const paragraph = page.slice(at, page.indexOf('\n\n', at));
  return [...paragraph.matchAll(/`((?:src|events|machines)\/[^`]*)`/g)].map((m) => m[1]!);
}

/** A file that takes node:fs, by an import or from process.getBuiltinModule (how the edge takes builtins). */
const importsFs = (file: string) => /(?:from |getBuiltinModule\()['"](?:node:)?fs(?:\/promises)?['"]/.test(readFileSync(join(repoRoot, file), 'utf8'));

describe('docs/architecture.md, held to the code', () => {
  it('lists folders that exist, each folder of the code with its door, and leaves none out', () => {
    const listed = layoutFolders();
    expect(listed.length).toBeGreaterThan(5);
    for (const folder of listed) expect(existsSync(join(repoRoot, folder)), `${folder} is listed but does not exist`).toBe(true);
    const policies = readdirSync(join(repoRoot, 'src/policies')).filter((name) => statSync(join(repoRoot, 'src/policies', name)).isDirectory());
    for (const folder of codeFolders()) {
      if (CODE_ROOTS.includes(folder) && folder === 'src') continue; // src/ itself: its door is src/index.ts, the package's
      expect(existsSync(join(repoRoot, folder, 'index.ts')), `${folder} has no door (index.ts)`).toBe(true);
      // A policy's folder is named by the policies' line; every other folder has its own.
      const isPolicy = policies.some((name) => folder === `src/policies/${name}`);
      if (!isPolicy) expect(listed, `${folder} is not in the Layout`).toContain(folder);
    }
  });

  it('names every place that imports node:fs', () => {
    const named = namedFileTouchers();
    expect(named).toContain('src/log/');
    const touching = codeFiles().filter(importsFs);
    expect(touching.length).toBeGreaterThan(10);
    const unnamed = touching.filter((file) => !named.some((place) => (place.endsWith('/') ? file.startsWith(place) : file === place)));
    expect(unnamed, 'files that import node:fs where the page says none does').toEqual([]);
  });
});
