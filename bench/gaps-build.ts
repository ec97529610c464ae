/**
 * `node dist/bench/gaps-build.js DIR GAPS [ROUNDS] [--varied]`, or `… URL GAPS ROUNDS
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
import { createHash } from 'node:crypto';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { closePostgresStores, createFileSession, PgLog, Session, type BatchRequest, type Severity } from '../src/index.js';

const varied = process.argv.includes('--varied');
const [dir, gapsArg, roundsArg, name] = process.argv.slice(2).filter((arg) => arg !== '--varied');
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
  data: varied
    ? { ...variedFinding(n), severity: SEVERITIES[n % 4]! }
    : { id: `F-${n}`, severity: SEVERITIES[n % 4]!, title: `'value${n}' is assigned a value but never used (src/module-${n % 2000}.js)` },
});

/*
 * `--varied`: findings as `sync` leaves them from a real scanner's SARIF
 * (src/sync/finding.ts): ids of a rule's name and 12 hex digits of a hash,
 * titles from a few dozen rules' messages naming varied identifiers, files,
 * lines and columns. Less of it repeats than of the default titles, so the
 * files beside the log compress less; the figure says what a real scan costs.
 */
const RULES: [string, (name: string) => string][] = [
  ['no-unused-vars', (name) => `'${name}' is assigned a value but never used.`],
  ['no-undef', (name) => `'${name}' is not defined.`],
  ['prefer-const', (name) => `'${name}' is never reassigned. Use 'const' instead.`],
  ['eqeqeq', () => `Expected '===' and instead saw '=='.`],
  ['no-shadow', (name) => `'${name}' is already declared in the upper scope.`],
  ['@typescript-eslint/no-explicit-any', () => 'Unexpected any. Specify a different type.'],
  [
    '@typescript-eslint/no-floating-promises',
    () => 'Promises must be awaited, end with a call to .catch, or end with a call to .then with a rejection handler.',
  ],
  ['security/detect-object-injection', (name) => `Generic Object Injection Sink: ${name}[key]`],
  ['javascript.lang.security.audit.path-traversal', (name) => `Possible path traversal through '${name}' passed to path.join.`],
  ['python.lang.security.audit.subprocess-shell-true', (name) => `subprocess call with shell=True using '${name}'.`],
  ['complexity', (name) => `Function '${name}' has a complexity of ${12 + (name.length % 20)}. Maximum allowed is 10.`],
  ['max-lines-per-function', (name) => `Function '${name}' has too many lines (${60 + (name.length % 90)}). Maximum allowed is 50.`],
];
const WORDS = 'user order item cart token session config request response buffer index cache event handler value result error retry limit offset query'.split(
  ' ',
);
const PARTS = 'api core util lib service model view store auth billing search admin report sync worker'.split(' ');

function variedFinding(n: number): { id: string; title: string } {
  const hash = createHash('sha256').update(`finding ${n}`).digest();
  const pick = (at: number, list: readonly string[]) => list[hash[at]! % list.length]!;
  const [rule, message] = RULES[hash[0]! % RULES.length]!;
  const name = `${pick(1, WORDS)}${pick(2, WORDS).replace(/^./, (c) => c.toUpperCase())}${hash[3]! % 7 === 0 ? hash[4]! : ''}`;
  const file = `src/${pick(5, PARTS)}/${pick(6, PARTS)}-${pick(7, WORDS)}.${hash[8]! % 3 === 0 ? 'py' : 'ts'}`;
  const title = `${message(name)} (${file}:${1 + (hash.readUInt16BE(9) % 900)}:${1 + (hash[11]! % 80)})`;
  return { id: `${rule.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^[^A-Za-z0-9]+/, '')}-${hash.toString('hex', 12, 18)}`, title };
}

const half = Math.floor(gaps / 2);
const firstId = (open(0).data as { id: string }).id;
for (let n = 0; n < half; n++) push(open(n));
// Work rounds, progress and flat by turns (so the machine never stalls): round r opens W-r (MEDIUM when r is odd, LOW
// when even) and resolves the gap the round before opened (round 1: a CRITICAL gap of the baseline).
for (let round = 1; round <= rounds; round++) {
  push({ type: 'round.started', data: {} });
  push({ type: 'gap.opened', data: { id: `W-${round}`, severity: round % 2 === 1 ? 'MEDIUM' : 'LOW', title: 'work item' } });
  push({ type: 'gap.moved', data: { id: round === 1 ? firstId : `W-${round - 1}`, to: 'RESOLVED' } });
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
