#!/usr/bin/env node
import { readFileSync } from 'node:fs';
import { run } from './run.js';

/** The package's version, from the package.json above this file (bundled or not). */
function version(): string | undefined {
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

// A reader that stops early (`gapflow status | head -1`) is not an error.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw error;
  });
}

const argv = process.argv.slice(2);
process.exitCode = run(argv, {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  env: process.env,
  cwd: process.cwd(),
  stdin: () => readFileSync(0, 'utf8'),
  version,
});
