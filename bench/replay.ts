/**
 * `npm run bench`: how fast a log replays, and what a CLI call costs.
 *
 * Replay is measured against two baselines: folding with one immutable copy
 * per event (what a naive `events.reduce(evolve)` does), and the bare cost of
 * parsing the JSONL text. Start-up is measured against `node -e 0`, and the
 * bundled command against the unbundled modules tsc emits.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createFileSession, evolve, initialView, replay, type GapflowEvent, type Session } from '../src/index.js';
import { formatLines, parseLines } from '../src/log/index.js';
import { settle } from '../src/core/index.js';

/**
 * A long, valid session that never ends: each round resolves as many LOW gaps
 * as it opens and lowers one HIGH gap to LOW, so its weighted net stays
 * positive while the open count holds steady.
 */
function play(session: Session, rounds: number, perRound: number): void {
  for (let r = 0; r < rounds; r++) session.openGap(`H-${r}`, 'HIGH');
  let next = 0;
  let oldest = 0;
  for (let i = 0; i < perRound * 2; i++) session.openGap(`L-${next++}`, 'LOW');
  for (let r = 0; r < rounds; r++) {
    session.startRound();
    for (let i = 0; i < perRound; i++) {
      session.moveGap(`L-${oldest}`, 'IN_PROGRESS');
      session.moveGap(`L-${oldest++}`, 'RESOLVED');
      session.openGap(`L-${next++}`, 'LOW', { title: 'spawned' });
    }
    session.changeSeverity(`H-${r}`, 'LOW');
    session.closeRound();
  }
}

/** The median of `repeat` timed runs (after one warm-up): steadier than a mean on a shared machine. */
function time<T>(run: () => T, repeat: number): { ms: number; result: T } {
  let result = run();
  const runs: number[] = [];
  for (let i = 0; i < repeat; i++) {
    const start = performance.now();
    result = run();
    runs.push(performance.now() - start);
  }
  runs.sort((a, b) => a - b);
  return { ms: runs[Math.floor(runs.length / 2)]!, result };
}

function rate(events: number, ms: number): string {
  return `${Math.round(events / (ms / 1000)).toLocaleString('en-US')} events/s`;
}

const dir = mkdtempSync(join(tmpdir(), 'gapflow-bench-'));
try {
  const session = createFileSession(dir, { maxRounds: 100_000 });
  play(session, 400, 12);
  const events: GapflowEvent[] = session.log.read();
  const { text } = formatLines(events);
  console.log(`log: ${events.length.toLocaleString('en-US')} events, ${(text.length / 1024).toFixed(0)} KiB, ${session.view.rounds.length} rounds`);

  const parse = time(() => parseLines(text, 'bench'), 5);
  const fold = time(() => replay(events), 5);
  const naive = time(() => events.reduce((view, event) => {
    const settled = settle(view, event);
    return settled ? evolve(view, settled) : view;
  }, initialView()), 1);
  console.log(`parse + validate lines : ${parse.ms.toFixed(1)} ms (${rate(events.length, parse.ms)})`);
  console.log(`replay (fold of facts): ${fold.ms.toFixed(1)} ms (${rate(events.length, fold.ms)})`);
  console.log(`baseline: evolve/event : ${naive.ms.toFixed(1)} ms (${rate(events.length, naive.ms)})`);
  console.log(`ratio: replay is ${(naive.ms / fold.ms).toFixed(1)}x the per-event immutable fold`);
  if (JSON.stringify(naive.result.history) !== JSON.stringify(fold.result.history)) throw new Error('the two folds disagree');

  const bin = fileURLToPath(new URL('../gapflow.js', import.meta.url));
  const modules = fileURLToPath(new URL('../src/cli/main.js', import.meta.url));
  const bare = time(() => execFileSync(process.execPath, ['-e', '0']), 15);
  const small = mkdtempSync(join(tmpdir(), 'gapflow-bench-small-'));
  const smallSession = createFileSession(small);
  play(smallSession, 10, 5);
  const cli = time(() => execFileSync(process.execPath, [bin, 'state', '--json', '--dir', small]), 15);
  const unbundled = time(() => execFileSync(process.execPath, [modules, 'state', '--json', '--dir', small]), 9);
  const cliBig = time(() => execFileSync(process.execPath, [bin, 'state', '--json', '--dir', dir], { maxBuffer: 1 << 28 }), 2);
  // The agent hook's path: a Stop hook input on stdin, the decision on stdout (the session is bound by the first call).
  const stop = JSON.stringify({ session_id: 'bench', transcript_path: '/dev/null', cwd: small, hook_event_name: 'Stop', stop_hook_active: false });
  const hook = time(() => execFileSync(process.execPath, [bin, 'hook', 'claude', '--dir', small], { input: stop }), 15);
  rmSync(small, { recursive: true, force: true });
  console.log(`node -e 0 (baseline)   : ${bare.ms.toFixed(0)} ms`);
  console.log(`gapflow state --json   : ${cli.ms.toFixed(0)} ms on ${smallSession.view.lastSeq} events (+${(cli.ms - bare.ms).toFixed(0)} ms, ${(cli.ms / bare.ms).toFixed(1)}x node)`);
  console.log(`unbundled (tsc output) : ${unbundled.ms.toFixed(0)} ms (+${(unbundled.ms - bare.ms).toFixed(0)} ms): the bundle starts ${(unbundled.ms / cli.ms).toFixed(2)}x faster`);
  console.log(`gapflow state --json   : ${cliBig.ms.toFixed(0)} ms on ${events.length.toLocaleString('en-US')} events`);
  console.log(`gapflow hook claude    : ${hook.ms.toFixed(0)} ms (+${(hook.ms - bare.ms).toFixed(0)} ms over node)`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
