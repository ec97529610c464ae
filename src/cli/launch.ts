#!/usr/bin/env node
import { requireCached } from '../log/index.js';
import type * as WriteBin from './write-bin.js';
import { WRITE_COMMANDS } from './write-commands.js';

/*
 * The bin as the build ships it (`dist/gapflow.cjs`, package.json's bin),
 * CommonJS so that a write never starts Node's ES module loader: a module
 * entry costs a call ~7 ms before its first line runs, and ~1.3 ms for each
 * module it imports, where a CommonJS one costs nothing. A call whose first
 * word names a write command runs from the write bundle
 * (`dist/session-commands.cjs`, compiled through the code cache: log/code-cache.ts),
 * read by those commands' entries; any other call goes to the whole CLI, the
 * module bin beside this file (`dist/gapflow.js`, main.ts), which reads it
 * by the whole table. Both end in the same runBin and dispatch.
 */

const argv = process.argv.slice(2);
if (argv[0] !== undefined && WRITE_COMMANDS.includes(argv[0])) {
  // As main.ts sets it, before the bundle loads zod.
  (globalThis as { __zod_globalConfig?: { jitless?: boolean } }).__zod_globalConfig = { jitless: true };
  const writes = requireCached(new URL('./session-commands.cjs', import.meta.url)) as typeof WriteBin;
  void writes.runWrites(argv);
} else {
  // Named by a variable: the build leaves the import as it is, to the module bin beside the bundle.
  const wholeCli = './gapflow.js';
  void import(wholeCli);
}
