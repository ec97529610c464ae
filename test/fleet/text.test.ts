import { describe, expect, it } from 'vitest';
import { errorRow, fleetRow, fleetTable } from '../../src/fleet/index.js';
import { baseline, newSession } from '../support.js';

/*
 * The table `gapflow fleet` prints, for the rows that are not plain: a
 * session shown stale (as last read, its latest read having failed) and
 * one that could not be read.
 */

const NOON = Date.UTC(2026, 0, 12, 12, 0, 0);

describe('the fleet table', () => {
  it('marks a stale row with its age beside its state, and says why under the table', () => {
    const session = newSession();
    baseline(session, 'HIGH', 2);
    const stale = fleetRow('team/a', session.view, NOON, { since: NOON - 95_000, reason: 'db: Connection terminated unexpectedly' });
    const lines = fleetTable([errorRow('broken', 'events.jsonl line 3: not JSON'), stale], '/work')
      .trimEnd()
      .split('\n');
    expect(lines[1]).toMatch(/^broken\s+UNREADABLE$/);
    expect(lines[2]).toMatch(/^team\/a\s+CONVERGING \(stale 1m\)\s+0\s+2\s+8\s/);
    expect(lines.slice(3)).toEqual([
      'broken: events.jsonl line 3: not JSON',
      'team/a: stale for 1m, shown as last read; reading it again failed: db: Connection terminated unexpectedly',
    ]);
  });

  it("spells out the control characters of a stale row's reason, as of every other cell", () => {
    const session = newSession();
    baseline(session, 'LOW', 1);
    const table = fleetTable([fleetRow('s', session.view, NOON, { since: NOON, reason: 'x\u001b]52;c;ZQ==\u0007y' })], '/work');
    expect(table).toContain('reading it again failed: x\\u{1b}]52;c;ZQ==\\u{7}y\n');
    // eslint-disable-next-line no-control-regex -- control characters are what must not come out
    expect(table).not.toMatch(/[\u001b\u0007]/);
  });
});
