#!/usr/bin/env node
import { readFileSync } from 'node:fs';
import { run } from './run.js';

function version(): string | undefined {
  try {
    const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version?: string };
    return pkg.version;
  } catch {
    return undefined;
  }
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
  ...(argv[0] === '--version' ? { version: version() } : {}),
});
