#!/usr/bin/env node
import { binMain } from './entries.js';
import { TABLE } from './table.js';

// One process, one call: zod's JIT (a `new Function` compiled per object schema on its first parse) costs
// more than it saves when each schema parses a few lines, so the bin runs zod jitless. zod takes its config
// from this global when it loads (the chunks below load it), so it is set before any of them.
(globalThis as { __zod_globalConfig?: { jitless?: boolean } }).__zod_globalConfig = { jitless: true };

await binMain(process.argv.slice(2), TABLE);
