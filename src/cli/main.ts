#!/usr/bin/env node
import { packageVersion } from '../version.js';
import { runBin } from './bin.js';


// One process, one call: zod's JIT (a `new Function` compiled per object schema on its first parse) costs
// more than it saves when each schema parses a few lines, so the bin runs zod jitless. zod takes its config
// from this global when it loads (the chunks below load it), so it is set before any of them.
(globalThis as { __zod_globalConfig?: { jitless?: boolean } }).__zod_globalConfig = { jitless: true };

// A reader that stops early (`gapflow status | head -1`) is not an error.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw error;
  });
}

/** Settles once everything written to `stream` so far has gone out (or failed to). */
function flushed(stream: NodeJS.WriteStream): Promise<void> {
  if (stream.writableLength === 0) return Promise.resolve();
  return new Promise((resolve) => stream.write('', () => resolve()));
}

const interrupted = () =>
  new Promise((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
const code = await runBin(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  stdoutBytes: (bytes) => process.stdout.write(bytes),
  stderr: (text) => process.stderr.write(text),
  env: process.env,
  cwd: process.cwd(),
  version: packageVersion,
  pendingStdin: async () => (await import('./hook-guard.js')).pendingInput(),
}, interrupted);
process.exitCode = code;
// One turn of the event loop: a session opened for a read writes its checkpoints then, after the answer.
await new Promise((resolve) => setImmediate(resolve));
// A pipe takes 64 KiB at a time: the rest waits in this process until the reader takes it, so leave only
// once stdout and stderr have handed everything over (a reader that went away ends it above, via EPIPE).
await Promise.all([flushed(process.stdout), flushed(process.stderr)]);
// Then leave even if something still holds the loop open (the WebSocket inspector can leave a reconnect timer).
process.exit(code);
