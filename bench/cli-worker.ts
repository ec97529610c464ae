/**
 * Driver for test/cli/concurrency.test.ts: one of several processes that
 * call the CLI's `run()` at once against the same session, COUNT times
 * (`gapflow gap open W<worker>-<i> ... --dir DIR`). Every tenth call is made
 * twice with the same `--event-id`, as a retrying hook would. Prints one
 * JSON line: appended, retried, failures.
 */
import { run } from '../src/cli/index.js';

const [dir, worker, count] = process.argv.slice(2);
if (!dir || !worker || !count) throw new Error('usage: cli-worker DIR WORKER COUNT');

let stderr = '';
const io = { stdout: () => undefined, stderr: (text: string) => void (stderr += text), env: {}, cwd: process.cwd() };
let appended = 0;
let retried = 0;
const failures: string[] = [];
for (let i = 0; i < Number(count); i++) {
  const argv = ['gap', 'open', `W${worker}-${i}`, '--severity', 'LOW', '--title', `worker ${worker}, append ${i}`, '--dir', dir];
  const withId = i % 10 === 0 ? [...argv, '--event-id', `w${worker}.${i}`] : argv;
  const times = i % 10 === 0 ? 2 : 1;
  for (let t = 0; t < times; t++) {
    stderr = '';
    const code = run(withId, io);
    if (code !== 0) failures.push(stderr.trim());
    else if (t === 0) appended += 1;
    else retried += 1;
  }
}
process.stdout.write(`${JSON.stringify({ appended, retried, failures })}\n`);
