import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StateJson } from '../../src/core/index.js';
import { WEIGHT } from '../support.js';
import { BIN } from './children.js';

/*
 * Issue 15's acceptance: one session that uses every new move, driven
 * through the built bin as a user types it: a duplicate (R20), a split
 * (R21), a rename (R22), an untriaged gap triaged (R23), an extension of the
 * round limit made before round 1 under preset auto (R24), review and
 * consolidation rounds (R25), a focus on any gaps (R26), decisions.md (R27)
 * and a deferred gap raised to CRITICAL (R29). Its log alone rebuilds
 * status.md and decisions.md byte for byte, and the same history imported
 * with its times (R30) is decided to the same events and documents.
 */

let root: string;
const first = () => join(root, 'first');
const imported = () => join(root, 'imported');

function gapflow(dir: string, ...argv: string[]): string {
  const run = spawnSync(process.execPath, [BIN, ...argv, '--dir', dir], { cwd: root, encoding: 'utf8', timeout: 30_000 });
  expect(run.stderr, `gapflow ${argv.join(' ')}`).toBe('');
  expect(run.status, `gapflow ${argv.join(' ')}`).toBe(0);
  return run.stdout;
}

const state = (dir: string) => JSON.parse(gapflow(dir, 'state', '--json')) as StateJson;
const read = (dir: string, file: string) => readFileSync(join(dir, file));
const logEvents = (dir: string) =>
  read(dir, 'events.jsonl')
    .toString('utf8')
    .trimEnd()
    .split('\n')
    .map((line) => JSON.parse(line) as { type: string; at: string; data: Record<string, unknown> });

/** Fourteen LOW gaps beside the six named ones: 20 baseline gaps, so preset auto settles max_rounds at ceil(0.6 × 20) = 12, above the 10 it shows before round 1. */
const LOWS = 14;
const BASELINE = 6 + LOWS;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'gapflow-every-move-'));
  const dir = first();
  gapflow(dir, 'init', '--preset', 'auto');
  gapflow(dir, 'gap', 'open', 'A-1', '--severity', 'HIGH', '--title', 'Parser');
  gapflow(dir, 'gap', 'open', 'A-2', '--severity', 'MEDIUM', '--title', 'Retries, said twice');
  gapflow(dir, 'gap', 'open', 'A-3', '--severity', 'MEDIUM', '--title', 'Retries');
  gapflow(dir, 'gap', 'open', 'A-4', '--severity', 'LOW', '--title', 'Logging');
  gapflow(dir, 'gap', 'open', 'A-5', '--severity', 'HIGH', '--title', 'Schema');
  gapflow(dir, 'gap', 'open', 'A-6', '--severity', 'UNTRIAGED', '--title', 'Cost <unknown> & risk');
  const lows = Array.from({ length: LOWS }, (_, i) => JSON.stringify({ type: 'gap.opened', data: { id: `L-${i + 1}`, severity: 'LOW' } }));
  writeFileSync(join(root, 'lows.jsonl'), `${lows.join('\n')}\n`);
  gapflow(dir, 'append', '--file', 'lows.jsonl');
  gapflow(dir, 'decide', 'extend-rounds', '5');
  // Round 1: a duplicate withdrawn, a gap resolved, the untriaged one triaged, a HIGH split into a HIGH and a MEDIUM.
  gapflow(dir, 'round', 'start');
  gapflow(dir, 'gap', 'move', 'A-2', 'DUPLICATE', '--of', 'A-3');
  gapflow(dir, 'gap', 'move', 'A-4', 'RESOLVED');
  gapflow(dir, 'gap', 'severity', 'A-6', 'HIGH');
  gapflow(dir, 'gap', 'split', 'A-1', '--into', 'A-1.1:HIGH,A-1.2:MEDIUM');
  gapflow(dir, 'round', 'close');
  // Round 2, a review round: a rename only, so it is flat.
  gapflow(dir, 'round', 'start', '--kind', 'review');
  gapflow(dir, 'gap', 'rename', 'A-3', 'DATA-3');
  gapflow(dir, 'round', 'close');
  // Round 3, a consolidation round: a MEDIUM resolved, a LOW found.
  gapflow(dir, 'round', 'start', '--kind', 'consolidation');
  gapflow(dir, 'gap', 'move', 'A-1.2', 'RESOLVED');
  gapflow(dir, 'gap', 'open', 'N-1', '--severity', 'LOW', '--spawned-by', 'A-1.1', '--title', 'Follow-up');
  gapflow(dir, 'round', 'close');
  gapflow(dir, 'decide', 'prioritize', '--gaps', 'A-1.1,DATA-3');
  // Round 4: a gap outside the focus deferred, one inside it resolved.
  gapflow(dir, 'round', 'start');
  gapflow(dir, 'gap', 'move', 'A-6', 'USER_DEFERRED', '--reason', 'after the release');
  gapflow(dir, 'gap', 'move', 'A-1.1', 'RESOLVED');
  gapflow(dir, 'round', 'close');
  // Round 5: the deferred gap raised to CRITICAL (R29: its half weight only, no CRITICAL introduction), the focus's other gap resolved.
  gapflow(dir, 'round', 'start');
  gapflow(dir, 'gap', 'severity', 'A-6', 'CRITICAL');
  gapflow(dir, 'gap', 'move', 'DATA-3', 'RESOLVED');
  gapflow(dir, 'round', 'close');
  gapflow(dir, 'status', '--write');
}, 180_000);

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('one session that uses every move of issue 15', { timeout: 120_000 }, () => {
  it('its figures are the ones worked out by hand', () => {
    const s = state(first());
    // Round 1: 20 open; A-4 resolved, A-2 withdrawn, A-1 split in two (one new); 20 - 1 + 1 - 1 = 19.
    expect(s.rounds[0]).toMatchObject({ round: 1, openStart: BASELINE, resolved: 1, new: 1, withdrawn: 1, openEnd: BASELINE - 1 + 1 - 1 });
    // Weighted: A-4 resolved (LOW); A-6 triaged (MEDIUM's weight to HIGH's) and the split's parts weighing a MEDIUM more than A-1 are new.
    expect(s.rounds[0]).toMatchObject({
      weightedResolved: WEIGHT.LOW,
      weightedNew: WEIGHT.HIGH - WEIGHT.UNTRIAGED + WEIGHT.MEDIUM,
      weightedWithdrawn: WEIGHT.MEDIUM,
      state: 'FLAT',
      flatCount: 1,
    });
    expect(s.rounds[0]!.splits).toEqual([{ id: 'A-1', into: ['A-1.1', 'A-1.2'], weightDelta: WEIGHT.HIGH + WEIGHT.MEDIUM - WEIGHT.HIGH }]);
    // A flat review round leaves flat_count at 1 (a work round would have raised it).
    expect(s.rounds[1]).toMatchObject({ kind: 'review', weightedNet: 0, state: 'FLAT', flatCount: 1 });
    expect(s.rounds[2]).toMatchObject({ kind: 'consolidation', weightedNet: WEIGHT.MEDIUM - WEIGHT.LOW, state: 'CONVERGING' });
    expect(s.rounds[3]).toMatchObject({ outsideFocus: ['A-6'], openEnd: BASELINE - 1 - 0.5 - 1 });
    // R29: raising a deferred gap to CRITICAL introduced no CRITICAL and sent no warning.
    expect(s.rounds[4]).toMatchObject({ state: 'CONVERGING', weightedNet: WEIGHT.MEDIUM });
    // The end: A-5, N-1 and the fourteen LOWs open, A-6 deferred (half its count, half a CRITICAL's weight); one gap withdrawn in all.
    expect(s.openGapCount).toBe(1 + 1 + LOWS + 0.5);
    expect(s.weightedOpen).toBe(WEIGHT.HIGH + WEIGHT.LOW + LOWS * WEIGHT.LOW + WEIGHT.CRITICAL / 2);
    expect(s.rounds.reduce((sum, r) => sum + (r.withdrawn ?? 0), 0)).toBe(1);
    // R24 under auto: the 5 rounds are added to the 12 that round 1 settled, not to the 10 shown before it.
    expect(s.config.maxRounds).toBe(Math.ceil(0.6 * BASELINE) + 5);
    expect(read(first(), 'decisions.md').toString()).toContain(`max_rounds ${Math.ceil(0.6 * BASELINE) + 5} from round 1`);
  });

  it('its log alone rebuilds status.md and decisions.md byte for byte', () => {
    const dir = first();
    const status = read(dir, 'status.md');
    const decisions = read(dir, 'decisions.md');
    for (const file of readdirSync(dir)) if (file !== 'events.jsonl') rmSync(join(dir, file));
    expect(readdirSync(dir)).toEqual(['events.jsonl']);
    gapflow(dir, 'replay');
    gapflow(dir, 'status', '--write');
    expect(read(dir, 'status.md').equals(status), 'status.md').toBe(true);
    expect(read(dir, 'decisions.md').equals(decisions), 'decisions.md').toBe(true);
  });

  it('imported with its times, the same history is decided to the same events and the same documents', () => {
    // Each line as a request with the time it was recorded: what was decided (an outcome) is decided again on import.
    const timed = logEvents(first()).map(({ type, at, data: { outcome: _decided, ...data } }) => JSON.stringify({ type, data, at }));
    writeFileSync(join(root, 'timed.jsonl'), `${timed.join('\n')}\n`);
    gapflow(imported(), 'import', join(root, 'timed.jsonl'));
    const strip = (events: ReturnType<typeof logEvents>) => events.map(({ type, at, data }) => ({ type, at, data }));
    expect(strip(logEvents(imported()))).toEqual(strip(logEvents(first())));
    gapflow(imported(), 'status', '--write');
    expect(read(imported(), 'status.md').equals(read(first(), 'status.md')), 'status.md').toBe(true);
    expect(read(imported(), 'decisions.md').equals(read(first(), 'decisions.md')), 'decisions.md').toBe(true);
  });
});
