import { readFileSync } from 'node:fs';

let cached: { version: string | undefined } | null = null;

/**
 * This package's version, from the package.json above the module that asks
 * (the bundle's entry, a chunk beside it, tsc's output or the sources), read
 * once; undefined when none is found.
 */
export function packageVersion(): string | undefined {
  cached ??= { version: findVersion() };
  return cached.version;
}

function findVersion(): string | undefined {
  for (const up of ['../package.json', '../../package.json', '../../../package.json']) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(up, import.meta.url), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'gapflow') return pkg.version;
    } catch {
      // not this level; try the next one up
    }
  }
  return undefined;
}
