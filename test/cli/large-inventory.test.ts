import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BIN } from './children.js';
import { Sandbox } from './helpers.js';

/*
 * Issue 34: a session with more gaps than `next --json` lists. `next` and a
 * stop hook read a head of constant size (the first gaps in the list's
 * order, twice as many as are listed, the rest counted), and a gap write is
 * decided on it, so their answers name the first 100 gaps and
 * count the others, the same answered from the head by the bin's short path
 * as from the whole view; when a decision is due they read the whole view,
 * whose options name every gap.
 */

const TIMEOUT = 60_000;
const SEVERITIES = ['LOW', 'CRITICAL', 'MEDIUM', 'HIGH'];
/** Past HEAD_WHOLE_GAPS (500), so the head keeps the first gaps only. */
const COUNT = 1_050;

interface Next {
  action: string;
  openGaps: Record<string, string[]>;
  openGapsNotListed: number;
  openGapCount: number;
  gaps: { id: string; severity: string; state: string }[];
  gapsNotListed: number;
  options: { kind: string; gaps: { id: string }[] }[];
}

let box: Sandbox;
beforeEach(() => {
  box = new Sandbox();
});
afterEach(() => box.remove());

const bin = (argv: string[], input = '') => execFileSync(process.execPath, [BIN, ...argv, '--dir', box.dir], { cwd: box.root, input, encoding: 'utf8' });
const next = (): Next => JSON.parse(bin(['next', '--json'])) as Next;
const headFile = () => join(box.dir, 'checkpoint.head.json');

/** `count` gaps at the baseline, severities LOW, CRITICAL, MEDIUM, HIGH by turns: G-0 … G-(count-1). */
function inventory(count: number): void {
  box.ok('init');
  const lines = Array.from({ length: count }, (_, n) =>
    JSON.stringify({ type: 'gap.opened', data: { id: `G-${n}`, severity: SEVERITIES[n % 4], title: `finding ${n}` } }),
  );
  bin(['append'], `${lines.join('\n')}\n`);
}

/** The ids of `severity`'s gaps among G-0 … G-(count-1), in the order they were recorded. */
const ofSeverity = (severity: string, count = COUNT) =>
  Array.from({ length: count }, (_, n) => n)
    .filter((n) => SEVERITIES[n % 4] === severity)
    .map((n) => `G-${n}`);

describe('status on an inventory larger than it lists', () => {
  it(
    'lists the first 100 gaps of a severity and counts the rest; --all lists every one',
    () => {
      // Given 130 HIGH gaps and 3 LOW ones, and a HIGH one resolved.
      box.ok('init');
      const lines = [...Array.from({ length: 130 }, (_, n) => `H-${n}`), 'L-0', 'L-1', 'L-2'].map((id) =>
        JSON.stringify({ type: 'gap.opened', data: { id, severity: id.startsWith('H') ? 'HIGH' : 'LOW', title: `finding ${id}` } }),
      );
      bin(['append'], `${lines.join('\n')}\n`);
      box.steps('round start', 'gap move H-0 RESOLVED');
      const rows = (text: string, prefix: string) => text.split('\n').filter((line) => line.startsWith(`| ${prefix}`));
      // When status is printed: the HIGH table lists 100 (the open ones first, so H-0 is not among them), and says what it left out.
      const status = box.ok('status').stdout;
      expect(rows(status, 'H-')).toHaveLength(100);
      expect(rows(status, 'H-0 ')).toEqual([]);
      expect(status).toContain('#### HIGH (130, open count 129)');
      expect(status).toContain('_And 30 more gaps (open count 29), not listed here: `gapflow status --all` lists every gap._');
      expect(rows(status, 'L-')).toHaveLength(3);
      // With --all, every gap, and no such line; status --write writes what status prints.
      const all = box.ok('status', '--all').stdout;
      expect(rows(all, 'H-')).toHaveLength(130);
      expect(all).not.toContain('more gaps');
      box.ok('status', '--write');
      expect(rows(readFileSync(box.statusPath, 'utf8'), 'H-')).toHaveLength(100);
      // --all lists gaps in status.md only.
      const refused = box.gf('status', '--all', '--decisions');
      expect([refused.code, refused.stdout]).toEqual([2, '']);
      expect(refused.stderr).toMatch(
        /^gapflow: status --all lists every gap in status\.md's inventory; --decisions prints decisions\.md, which has no inventory: give one of them/,
      );
    },
    TIMEOUT,
  );
});

describe('next --json and the stop hook on an inventory larger than they list', () => {
  it(
    'lists the first 100 gaps most severe first as recorded, counts the rest, and answers the same from the head as from the whole view',
    () => {
      // Given 1,050 open gaps (262 CRITICAL, 263 HIGH, …) and round 1 open.
      inventory(COUNT);
      box.ok('round', 'start');
      // When next --json is asked twice: the first call may build the head; the second is answered from it.
      const first = next();
      expect(existsSync(headFile())).toBe(true);
      const second = next();
      // Then both answers are the same, and list the first 100: every CRITICAL, then the first 38 HIGH.
      expect(second).toEqual(first);
      const expected = [...ofSeverity('CRITICAL'), ...ofSeverity('HIGH')].slice(0, 100);
      expect(second.gaps.map((g) => g.id)).toEqual(expected);
      expect(second.gapsNotListed).toBe(COUNT - 100);
      expect([...second.openGaps.CRITICAL!, ...second.openGaps.HIGH!]).toEqual(expected);
      expect([second.openGaps.MEDIUM, second.openGaps.LOW]).toEqual([[], []]);
      expect([second.openGapsNotListed, second.openGapCount]).toEqual([COUNT - 100, COUNT]);
      // The head keeps the first 200 (as many again in reserve), not 1,050: what it keeps does not grow with the inventory.
      expect(readFileSync(headFile(), 'utf8').match(/"title":"finding/g)?.length).toBe(200);
    },
    TIMEOUT,
  );

  it(
    'moves the list up when a listed gap closes, keeps deferred gaps in `gaps` but not in `openGaps`, and the hook counts the gaps it does not show',
    () => {
      inventory(COUNT);
      box.ok('round', 'start');
      // When the first CRITICAL is resolved and the second deferred.
      box.steps('gap move G-1 RESOLVED', 'gap move G-5 USER_DEFERRED');
      const step = next();
      // Then the next HIGH gap rises into both lists; G-5 stays listed among the gaps not closed, not among the open ones.
      const highs = ofSeverity('HIGH');
      const critical = ofSeverity('CRITICAL').filter((id) => id !== 'G-1');
      expect(step.gaps.map((g) => g.id)).toEqual([...critical, ...highs].slice(0, 100));
      expect(step.gaps.find((g) => g.id === 'G-5')?.state).toBe('USER_DEFERRED');
      const open = critical.filter((id) => id !== 'G-5');
      expect([...step.openGaps.CRITICAL!, ...step.openGaps.HIGH!]).toEqual([...open, ...highs].slice(0, 100));
      expect(step.gapsNotListed).toBe(COUNT - 1 - 100);
      expect(step.openGapsNotListed).toBe(COUNT - 2 - 100);
      // The hook shows 25 and counts the other open gaps: COUNT - 2 open in all (the open count counts the deferred one half).
      const stop = JSON.stringify({ session_id: 'agent-1', hook_event_name: 'Stop', stop_hook_active: false, cwd: box.root });
      bin(['hook', 'claude'], stop);
      const answer = JSON.parse(bin(['hook', 'claude'], stop)) as { decision: string; reason: string };
      expect(answer.decision).toBe('block');
      expect(answer.reason).toContain(`Open gaps (${COUNT - 2}.5,`);
      expect(answer.reason).toContain(`- CRITICAL ${open[0]}: finding`);
      expect(answer.reason).toContain(`- +${COUNT - 2 - 25} more (gapflow status --all lists every gap)`);
    },
    TIMEOUT,
  );

  it(
    'reads the whole view when a decision is due: force_complete names every gap not closed',
    () => {
      inventory(COUNT);
      // Given round 1 introduced a CRITICAL gap: DIVERGENCE_WARNING, and the head leaves gaps out.
      box.steps('round start', 'gap open C-NEW --severity CRITICAL --title new', 'round close');
      next();
      const step = next();
      // Then the options are the whole view's.
      expect(step.action).toBe('ask_user');
      expect(step.options.find((o) => o.kind === 'force_complete')?.gaps.length).toBe(COUNT + 1);
      expect(step.options.find((o) => o.kind === 'prioritize_critical')?.gaps.length).toBe(ofSeverity('CRITICAL').length + 1);
      expect(step.gaps.length).toBe(100);
    },
    TIMEOUT,
  );
});
