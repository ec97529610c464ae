/**
 * `npm run bench [-- --sizes 1k,100k,1M] [--gaps 1k,10k,100k] [--sessions 1k,5k] [--soak-minutes M] [--runs N] [--timeout S]`:
 * every speed goal, one part after another, each given the whole command
 * line (each reads its own options; `--runs` and `--timeout` go to all):
 *  - bench/goals.ts: the goals on logs of 1k, 100k and 1M events (`--sizes`);
 *  - bench/gaps.ts: the gap dimension, 1k, 10k and 100k gaps not closed (`--gaps`);
 *  - bench/fleet.ts: `fleet` and `serve` over 1,000 and 5,000 sessions (`--sessions`).
 * `--only goals,gaps` runs only the parts named. Exits non-zero when a part did.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { option } from './args.js';

const PARTS = ['goals', 'gaps', 'fleet'];
const only = option('only')?.split(',') ?? PARTS;
const unknown = only.filter((part) => !PARTS.includes(part));
if (unknown.length > 0) throw new Error(`--only takes ${PARTS.join(', ')}, not ${unknown.join(', ')}`);

const args = process.argv.slice(2);
const failed: string[] = [];
for (const part of PARTS.filter((p) => only.includes(p))) {
  const script = fileURLToPath(new URL(`./${part}.js`, import.meta.url));
  const run = spawnSync(process.execPath, [script, ...args], { stdio: 'inherit' });
  if (run.status !== 0) failed.push(`${part} (${run.signal ?? `exit ${run.status}`})`);
}
if (failed.length > 0) {
  console.error(`bench: ${failed.join(', ')} did not finish`);
  process.exitCode = 1;
}
