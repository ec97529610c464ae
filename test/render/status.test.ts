import { describe, expect, it } from 'vitest';
import { baseline, newSession, playRound, WEIGHT } from '../support.js';
import { renderStatus } from '../../src/render/index.js';

/** A worked status.md session, with round 3's figures computed from its events (R3). */
function seedSession() {
  const s = newSession();
  const high = baseline(s, 'HIGH', 5, 'H');
  const medium = baseline(s, 'MEDIUM', 10, 'M');
  const low = baseline(s, 'LOW', 10, 'L');
  playRound(s, {
    resolve: [high[0]!, high[1]!, medium[0]!],
    open: [
      ['N1', 'MEDIUM'],
      ['N2', 'MEDIUM'],
    ],
  });
  playRound(s, {
    resolve: low.slice(0, 4),
    open: [
      ['N3', 'MEDIUM'],
      ['N4', 'MEDIUM'],
      ['N5', 'MEDIUM'],
      ['N6', 'MEDIUM'],
    ],
  });
  playRound(s, {
    resolve: [medium[1]!],
    open: [
      ['C1', 'CRITICAL'],
      ['N7', 'HIGH'],
      ['N8', 'HIGH'],
      ['N9', 'MEDIUM'],
      ['N10', 'MEDIUM'],
    ],
  });
  return s;
}

function section(markdown: string, heading: string): string {
  const start = markdown.indexOf(heading);
  expect(start).toBeGreaterThanOrEqual(0);
  const rest = markdown.slice(start + heading.length);
  const end = rest.search(/\n#{2,4} /);
  return end === -1 ? rest : rest.slice(0, end);
}

function rows(table: string): string[][] {
  return table
    .split('\n')
    .filter((line) => line.startsWith('| ') && !line.startsWith('| Round') && !line.startsWith('| Severity'))
    .map((line) => line.slice(2, -2).split(' | '));
}

describe('status.md', () => {
  it('Round Progress recomputes the rows: 25 -> 24 -> 24 -> 28, nets +1/+6, 0/-4, -4/-26', () => {
    const status = renderStatus(seedSession().view);
    const net3 = WEIGHT.MEDIUM - (WEIGHT.CRITICAL + 2 * WEIGHT.HIGH + 2 * WEIGHT.MEDIUM);
    expect(rows(section(status, '### Round Progress'))).toEqual([
      ['1', '25', '3', '2', '24', '+1', `+${2 * WEIGHT.HIGH + WEIGHT.MEDIUM - 2 * WEIGHT.MEDIUM}`, 'CONVERGING', '0'],
      ['2', '24', '4', '4', '24', '0', `${4 * WEIGHT.LOW - 4 * WEIGHT.MEDIUM}`, 'FLAT', '1'],
      ['3', '24', '1', '5', '28', '-4', `${net3}`, 'DIVERGENCE_WARNING', '-'],
    ]);
  });

  it('Severity Breakdown of the latest round sums to its weighted net', () => {
    const status = renderStatus(seedSession().view);
    expect(status).toContain('### Severity Breakdown (Round 3)');
    const table = rows(section(status, '### Severity Breakdown (Round 3)'));
    expect(table.slice(0, 4)).toEqual([
      ['CRITICAL', '0', '1', `-${WEIGHT.CRITICAL}`],
      ['HIGH', '0', '2', `-${2 * WEIGHT.HIGH}`],
      ['MEDIUM', '1', '2', `-${WEIGHT.MEDIUM}`],
      ['LOW', '0', '0', '0'],
    ]);
    const newWeight = WEIGHT.CRITICAL + 2 * WEIGHT.HIGH + 2 * WEIGHT.MEDIUM;
    expect(table[4]).toEqual(['**Total**', `**1** (weight: ${WEIGHT.MEDIUM})`, `**5** (weight: ${newWeight})`, `**${WEIGHT.MEDIUM - newWeight}**`]);
  });

  it('Session Configuration and State History follow the status.md format', () => {
    const status = renderStatus(seedSession().view);
    expect(rows(section(status, '### Session Configuration')).slice(1)).toEqual([
      ['stall_threshold', '2'],
      ['divergence_threshold', '8'],
      ['max_rounds', '10'],
      ['critical_override', 'true'],
    ]);
    const history = section(status, '### State History').trim().split('\n');
    expect(history[0]).toBe('- Round 1: CONVERGING (weighted_net = +6)');
    expect(history[1]).toMatch(/^- Round 2: CONVERGING -> FLAT \(weighted_net = -4, flat_count = 1/);
    expect(history[2]).toMatch(/^- Round 3: FLAT -> DIVERGENCE_WARNING \(weighted_net = -26, triggered by CRITICAL introduction \(C1\)\)$/);
  });

  it('the Gap Inventory groups gaps by severity with their state', () => {
    const status = renderStatus(seedSession().view);
    const inventory = section(status, '### Gap Inventory');
    // Open now: HIGH H-3..5 and N7, N8; CRITICAL C1; MEDIUM M-3..10, N1..6, N9, N10; LOW L-5..10.
    const weighted = 5 * WEIGHT.HIGH + WEIGHT.CRITICAL + (8 + 6 + 2) * WEIGHT.MEDIUM + 6 * WEIGHT.LOW;
    expect(inventory).toContain(`Open count: ${5 + 1 + 16 + 6} (weighted ${weighted})`);
    expect(status).toMatch(/#### CRITICAL \(1, open count 1\)\n\n\| Gap \| State \| Title \| Notes \|/);
    expect(status).toMatch(/\| H-1 \| RESOLVED \|/);
  });

  it('titles and reasons cannot break a table or inject markup', () => {
    const s = newSession();
    s.openGap('G-1', 'HIGH', { title: '<script>alert(1)</script> | *bold* [link](http://x) `code`' });
    s.moveGap('G-1', 'IN_PROGRESS');
    s.moveGap('G-1', 'BLOCKED', { reason: '<img src=x onerror=alert(1)> | _x_' });
    const status = renderStatus(s.view);
    const row = status.split('\n').find((line) => line.startsWith('| G-1 '))!;
    expect(row).not.toContain('<script>');
    expect(row).not.toContain('<img');
    expect(row.replace(/\\\|/g, '').split('|')).toHaveLength(6);
    expect(row).toContain('&lt;script&gt;');
    expect(row).toContain('\\*bold\\*');
    expect(row).toContain('\\_x\\_');
  });

  it('an underscore inside a word stays as written, since it cannot start emphasis', () => {
    const s = newSession();
    s.openGap('G-1', 'HIGH', { title: 'rename snake_case_name' });
    expect(renderStatus(s.view)).toMatch(/\| G-1 \| OPEN \| rename snake_case_name \|/);
  });
});

/** A table's header cells. */
function header(table: string): string[] {
  return table
    .split('\n')
    .find((line) => line.startsWith('| Round'))!
    .slice(2, -2)
    .split(' | ');
}

describe('status.md in a session without gaps: the Kind column (R25)', () => {
  it('the verdict table shows each round its kind once some round was not a work round', () => {
    const s = newSession({ policies: ['quality'] });
    s.recordMetrics('quality', { score: 70 });
    s.startRound(undefined, 'review');
    s.recordMetrics('quality', { score: 71 });
    const progress = section(renderStatus(s.view), '### Round Progress');
    expect(header(progress)).toEqual(['Round', 'Kind', 'Verdict', 'Decided By', 'State', 'Flat Count']);
    expect(rows(progress).map((row) => row.slice(0, 2))).toEqual([
      ['1', 'work'],
      ['2', 'review'],
    ]);
  });

  it('with work rounds only it reads as before, without the column', () => {
    const s = newSession({ policies: ['quality'] });
    s.recordMetrics('quality', { score: 70 });
    expect(header(section(renderStatus(s.view), '### Round Progress'))).toEqual(['Round', 'Verdict', 'Decided By', 'State', 'Flat Count']);
  });
});
