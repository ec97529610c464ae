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

const argv = process.argv.slice(2);
process.exitCode = run(argv, {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  env: process.env,
  cwd: process.cwd(),
  ...(argv[0] === '--version' ? { version: version() } : {}),
});
