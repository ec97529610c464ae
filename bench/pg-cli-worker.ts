/**
 * Driver for test/cli/postgres-concurrency.test.ts: one of several
 * processes that append through the CLI's `run()` at once to a session in
 * PostgreSQL, COUNT gaps each (`gapflow gap open W<worker>-<i> ...
 * --store URL --session NAME --expect-seq N`), as an optimistic writer
 * does: it expects the log to end where it last saw it end, and when
 * another writer got there first, it is refused, learns the seq from the
 * refusal and tries again. Prints one JSON line: appended, refused (the
 * clean refusals), failures (anything else).
 */
import { closePostgresStores } from '../src/index.js';
import { run } from '../src/cli/index.js';

const [url, session, worker, count, mode = 'expect'] = process.argv.slice(2);
if (!url || !session || !worker || !count) throw new Error('usage: pg-cli-worker URL SESSION WORKER COUNT [expect|free]');
/** `free`: no --expect-seq, as most writers call: each waits its turn on the session's row and goes in. */
const expecting = mode === 'expect';

let stderr = '';
const io = { stdout: () => undefined, stderr: (text: string) => void (stderr += text), env: {}, cwd: process.cwd() };
/** The one line a writer whose expected seq was taken gets: a refusal, naming both seqs. */
const CONFLICT = /^gapflow: refused: expected the log to end at seq (\d+), but it ends at seq (\d+)/;
let seq = 1;
let appended = 0;
let refused = 0;
const failures: string[] = [];
for (let i = 0; i < Number(count); i++) {
  for (;;) {
    stderr = '';
    const expectSeq = expecting ? ['--expect-seq', String(seq)] : [];
    const code = run(['gap', 'open', `W${worker}-${i}`, '--severity', 'LOW', ...expectSeq, '--store', url, '--session', session], io);
    if (code === 0) {
      appended += 1;
      seq += 1;
      break;
    }
    const conflict = CONFLICT.exec(stderr);
    // A clean refusal is one line naming the seq expected and the seq the log ends at.
    if (code !== 1 || conflict === null || Number(conflict[1]) !== seq || stderr.trim().includes('\n')) {
      failures.push(`exit ${code}: ${stderr.trim()}`);
      break;
    }
    refused += 1;
    seq = Number(conflict[2]);
  }
}
closePostgresStores();
process.stdout.write(`${JSON.stringify({ appended, refused, failures })}\n`);
