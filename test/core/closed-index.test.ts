import { describe, expect, it } from 'vitest';
import { closedIndexLines, lookUpClosed, type Gap } from '../../src/core/index.js';

const gap = (id: string, severity: Gap['severity'], state: Gap['state']): Gap => ({
  id,
  severity,
  state,
  title: `gap ${id}`,
  spawnedBy: null,
  blocking: true,
  openedInRound: 1,
  reason: null,
  blockedBy: null,
});

describe('the closed gaps index', () => {
  const index = closedIndexLines([gap('G-1', 'HIGH', 'RESOLVED'), gap('G-2', 'LOW', 'OPEN'), gap('G-10', 'LOW', 'WONT_FIX'), gap('A.b_c', 'CRITICAL', 'RESOLVED')]);

  it('lists the closed gaps only, one line each', () => {
    expect(index).toBe('G-1 HIGH RESOLVED\nG-10 LOW WONT_FIX\nA.b_c CRITICAL RESOLVED\n');
  });

  it('finds a gap by its whole id in the index bytes, never by a part of a line', () => {
    const bytes = Buffer.from(index, 'utf8');
    expect(lookUpClosed(bytes, 'G-1')).toEqual({ id: 'G-1', severity: 'HIGH', state: 'RESOLVED' });
    expect(lookUpClosed(bytes, 'G-10')).toEqual({ id: 'G-10', severity: 'LOW', state: 'WONT_FIX' });
    expect(lookUpClosed(bytes, 'A.b_c')).toEqual({ id: 'A.b_c', severity: 'CRITICAL', state: 'RESOLVED' });
    for (const miss of ['G-2', 'G-', '1', 'G-100', 'G-1 HIGH', 'HIGH', 'RESOLVED\nG-10', '']) expect(lookUpClosed(bytes, miss)).toBeNull();
    // The last line, found without a newline after it; an index with one line only; an empty one.
    expect(lookUpClosed(Buffer.from('G-1 HIGH RESOLVED\nZ-9 LOW WONT_FIX', 'utf8'), 'Z-9')).toEqual({ id: 'Z-9', severity: 'LOW', state: 'WONT_FIX' });
    expect(lookUpClosed(Buffer.from('G-1 HIGH RESOLVED\n', 'utf8'), 'G-1')).toEqual({ id: 'G-1', severity: 'HIGH', state: 'RESOLVED' });
    expect(lookUpClosed(Buffer.alloc(0), 'G-1')).toBeNull();
  });
});
