// A live writer beside a test: `node live-writer.mjs BIN DIR STOP RESULTS [PRELOAD]` opens gaps W1, W2, … (or
// the prefix $GAPFLOW_WRITER_PREFIX names) in the session at DIR through the bin, one process a call, until the
// file STOP exists (or 500 calls), and appends what each call did to RESULTS as a JSON line {gap, code, stdout,
// stderr}. With PRELOAD (test/fault-fs.mjs), call i runs on the faults $GAPFLOW_WRITER_FAULTS lists (a JSON
// array, taken in turn).
import { spawnSync } from 'node:child_process';
import { appendFileSync, existsSync } from 'node:fs';
import process from 'node:process';

const [bin, dir, stop, results, preload] = process.argv.slice(2);
const prefix = process.env.GAPFLOW_WRITER_PREFIX ?? 'W';
const faults = preload === undefined ? [] : JSON.parse(process.env.GAPFLOW_WRITER_FAULTS ?? '[]');

for (let i = 1; i <= 500 && !existsSync(stop); i++) {
  const gap = `${prefix}${i}`;
  const args = [...(preload === undefined ? [] : ['--import', preload]), bin, 'gap', 'open', gap, '--severity', 'LOW', '--dir', dir];
  const env = faults.length === 0 ? process.env : { ...process.env, GAPFLOW_FAULTS: JSON.stringify(faults[i % faults.length]) };
  const call = spawnSync(process.execPath, args, { env, input: '', encoding: 'utf8', timeout: 60_000 });
  appendFileSync(results, `${JSON.stringify({ gap, code: call.status, stdout: call.stdout, stderr: call.stderr })}\n`);
}
