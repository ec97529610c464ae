/**
 * `node dist/bench/gaps-build.js DIR GAPS [ROUNDS]`, or `… URL GAPS ROUNDS
 * SESSION` for session SESSION in the PostgreSQL database at URL: builds the gap
 * dimension's session in DIR: GAPS gaps not closed, as a findings tool would
 * leave them. Half the gaps are the baseline (recorded before round 1, as a
 * first `sync` records them); then ROUNDS closed work rounds (each opens a
 * gap and resolves the one the round before opened, progress and flat by
 * turns); then the other half are opened in the round after
 * them, which is left open (as a scan within the round finds them).
 * Severities
 * go CRITICAL, HIGH, MEDIUM, LOW by turns; the titles run to about 60
 * characters, as a linter's messages do. Prints one JSON line: what was built.
 *
 * The events go in through `Session.recordAll` in batches of 5,000, the
 * path `gapflow append` takes, in this process.
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { closePostgresStores, createFileSession, PgLog, Session, type BatchRequest, type Severity } from '../src/index.js';

const [dir, gapsArg, roundsArg, name] = process.argv.slice(2);
if (!dir || !gapsArg) throw new Error('usage: gaps-build DIR GAPS [ROUNDS], or gaps-build URL GAPS ROUNDS SESSION');
const gaps = Number(gapsArg);
const rounds = Number(roundsArg ?? 0);
const database = /^postgres(ql)?:\/\//.test(dir) ? new PgLog(dir, name ?? 'bench') : null;

type Body = BatchRequest['body'];
const SEVERITIES: Severity[] = ['CRITICAL', 'HIGH', 'MEDIUM', 'LOW'];
/**
 * A batch's size. In a database, a write's transaction must not sit idle
 * for 5 s (the connection's idle_in_transaction_session_timeout, timeouts.ts)
 * while the batch is decided, which on a view of 100,000 gaps takes longer
 * than 5,000 requests allow.
 */
const CHUNK = database === null ? 5_000 : 1_000;

const started = performance.now();
const settings = { maxRounds: 100_000 };
const session = database === null ? createFileSession(dir, settings) : Session.create(database, settings);
let pending: Body[] = [];
const push = (body: Body) => {
  pending.push(body);
  if (pending.length >= CHUNK) flush();
};
const flush = () => {
  if (pending.length > 0) session.recordAll(pending.map((body) => ({ body })));
  pending = [];
};
const open = (n: number): Body => ({
  type: 'gap.opened',
  data: { id: `F-${n}`, severity: SEVERITIES[n % 4]!, title: `'value${n}' is assigned a value but never used (src/module-${n % 2000}.js)` },
});

const half = Math.floor(gaps / 2);
for (let n = 0; n < half; n++) push(open(n));
// Work rounds, progress and flat by turns (so the machine never stalls): round r opens W-r (MEDIUM when r is odd, LOW
// when even) and resolves the gap the round before opened (round 1: a CRITICAL gap of the baseline).
for (let round = 1; round <= rounds; round++) {
  push({ type: 'round.started', data: {} });
  push({ type: 'gap.opened', data: { id: `W-${round}`, severity: round % 2 === 1 ? 'MEDIUM' : 'LOW', title: 'work item' } });
  push({ type: 'gap.moved', data: { id: round === 1 ? 'F-0' : `W-${round - 1}`, to: 'RESOLVED' } });
  push({ type: 'round.closed', data: {} });
}
push({ type: 'round.started', data: {} });
for (let n = half; n < gaps; n++) push(open(n));
flush();

const view = session.view;
process.stdout.write(
  `${JSON.stringify({
    events: view.lastSeq,
    bytes: database === null ? statSync(join(dir, 'events.jsonl')).size : Buffer.byteLength(database.lines.text()),
    rounds: view.roundsBefore + view.rounds.length,
    gaps: view.gaps.size,
    open: view.open.count,
    state: view.machine.state,
    buildMs: performance.now() - started,
  })}\n`,
);
// Its checkpoints kept now, not on the event loop's next turn: the database's connection closes first.
session.saveCheckpoints();
closePostgresStores();
