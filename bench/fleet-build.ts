/**
 * `node dist/bench/fleet-build.js ROOT SESSIONS`: builds the fleet's
 * sessions under ROOT, each in `team-K/s-N/.gapflow` (100 a team), as loops
 * leave them: 12 baseline gaps, then 6 closed rounds that each open a gap
 * and resolve one, and a seventh round left open. Each session is written
 * by one batch through `Session.recordAll` (the path `gapflow append`
 * takes), which keeps its checkpoints. Prints one JSON line: what was built.
 */
import { join } from 'node:path';
import { createFileSession, type BatchRequest, type Severity } from '../src/index.js';

const [root, sessionsArg] = process.argv.slice(2);
if (!root || !sessionsArg) throw new Error('usage: fleet-build ROOT SESSIONS');
const sessions = Number(sessionsArg);

type Body = BatchRequest['body'];
const SEVERITIES: Severity[] = ['CRITICAL', 'HIGH', 'MEDIUM', 'LOW'];

/** Session `n`'s events: its baseline and rounds (the severities turn with `n`, so the fleet's figures differ). */
function events(n: number): Body[] {
  const bodies: Body[] = [];
  const severity = (k: number) => SEVERITIES[(n + k) % 4]!;
  for (let k = 0; k < 12; k++)
    bodies.push({ type: 'gap.opened', data: { id: `B-${k}`, severity: severity(k), title: `baseline finding ${k} of session ${n}` } });
  for (let round = 1; round <= 7; round++) {
    bodies.push({ type: 'round.started', data: {} });
    bodies.push({ type: 'gap.opened', data: { id: `R-${round}`, severity: 'LOW', title: `found in round ${round}` } });
    bodies.push({ type: 'gap.moved', data: { id: `B-${round - 1}`, to: 'RESOLVED' } });
    if (round < 7) bodies.push({ type: 'round.closed', data: {} });
  }
  return bodies;
}

const started = performance.now();
let eventsWritten = 0;
for (let n = 0; n < sessions; n++) {
  const dir = join(root, `team-${Math.floor(n / 100)}`, `s-${n}`, '.gapflow');
  const session = createFileSession(dir, { maxRounds: 50 });
  session.recordAll(events(n).map((body) => ({ body })));
  eventsWritten += session.view.lastSeq;
}
process.stdout.write(`${JSON.stringify({ sessions, events: eventsWritten, buildMs: performance.now() - started })}\n`);
