#!/usr/bin/env node
import { runBin } from './table.js';
import { flushed, write } from './out.js';

// One process, one call: zod's JIT (a `new Function` compiled per object schema on its first parse) costs
// more than it saves when each schema parses a few lines, so the bin runs zod jitless. zod takes its config
// from this global when it loads (the chunks below load it), so it is set before any of them.
(globalThis as { __zod_globalConfig?: { jitless?: boolean } }).__zod_globalConfig = { jitless: true };

const interrupted = () =>
  new Promise((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
const code = await runBin(
  process.argv.slice(2),
  {
    stdout: (text) => write(1, text),
    stdoutBytes: (bytes) => write(1, bytes),
    stderr: (text) => write(2, text),
    env: process.env,
    cwd: process.cwd(),
    pendingStdin: async () => (await import('./hook-guard.js')).pendingInput(),
  },
  interrupted,
);
process.exitCode = code;
// One turn of the event loop: a session opened for a read writes its checkpoints then, after the answer.
await new Promise((resolve) => setImmediate(resolve));
// A pipe takes 64 KiB at a time: the rest waits in this process until the reader takes it, so leave only
// once stdout and stderr have handed everything over (a reader that went away ends it above, via EPIPE).
await flushed();
// Then leave even if something still holds the loop open (the WebSocket inspector can leave a reconnect timer).
process.exit(code);
