/**
 * `node dist/bench/fleet-churn.js ROOT SESSIONS SECONDS PER_SECOND`: for
 * SECONDS, writes to the fleet fleet-build.ts made, PER_SECOND writes a
 * second, each to a session picked at random and opened afresh (as each
 * call of an agent's loop does): a gap opened, then resolved by the next
 * write to the same session. Prints one JSON line: how many writes it made.
 */
import { join } from 'node:path';
import { openFileSession } from '../src/index.js';

const [root, sessionsArg, secondsArg, rateArg] = process.argv.slice(2);
if (!root || !sessionsArg || !secondsArg || !rateArg) throw new Error('usage: fleet-churn ROOT SESSIONS SECONDS PER_SECOND');
const sessions = Number(sessionsArg);
const end = Date.now() + Number(secondsArg) * 1000;
const gapMs = 1000 / Number(rateArg);

/** A fixed-seed generator, so two runs churn the same sessions. */
let seed = 34;
const random = () => {
  seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
  return seed / 2 ** 31;
};

let writes = 0;
const opened = new Map<number, number>();
while (Date.now() < end) {
  const n = Math.floor(random() * sessions);
  const session = openFileSession(join(root, `team-${Math.floor(n / 100)}`, `s-${n}`, '.gapflow'));
  const k = opened.get(n) ?? 0;
  if (k % 2 === 1) session.moveGap(`C-${k - 1}`, 'RESOLVED');
  else session.openGap(`C-${k}`, 'MEDIUM', { title: 'churned' });
  opened.set(n, k + 1);
  writes += 1;
  const wait = gapMs - (Date.now() % gapMs);
  await new Promise((resolve) => setTimeout(resolve, wait));
}
process.stdout.write(`${JSON.stringify({ writes })}\n`);
