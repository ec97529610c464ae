import { crc32 } from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { crc32 as ownCrc32 } from '../../src/core/index.js';
import {
  CLOSED_BUCKETS,
  closedBucketOf,
  closedIndexLines,
  closedIndexLookUp,
  closedIndexOf,
  closedTableOf,
  DamagedIndex,
  extendClosedIndex,
  indexLines,
  lookUpClosed,
  type ClosedGap,
  type Gap,
} from '../../src/core/index.js';

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
  const index = closedIndexLines([
    gap('G-1', 'HIGH', 'RESOLVED'),
    gap('G-2', 'LOW', 'OPEN'),
    gap('G-10', 'LOW', 'WONT_FIX'),
    gap('A.b_c', 'CRITICAL', 'RESOLVED'),
  ]);

  it('lists the closed gaps only, one line each', () => {
    expect(index).toBe('G-1 Hr\nG-10 Lw\nA.b_c Cr\n');
  });

  it('finds a gap by its whole id in the index bytes, never by a part of a line', () => {
    const bytes = Buffer.from(index, 'utf8');
    expect(lookUpClosed(bytes, 'G-1')).toEqual({ id: 'G-1', severity: 'HIGH', state: 'RESOLVED' });
    expect(lookUpClosed(bytes, 'G-10')).toEqual({ id: 'G-10', severity: 'LOW', state: 'WONT_FIX' });
    expect(lookUpClosed(bytes, 'A.b_c')).toEqual({ id: 'A.b_c', severity: 'CRITICAL', state: 'RESOLVED' });
    for (const miss of ['G-2', 'G-', '1', 'G-100', 'G-1 HIGH', 'HIGH', 'RESOLVED\nG-10', '']) expect(lookUpClosed(bytes, miss)).toBeNull();
    // The last line, found without a newline after it; an index with one line only; an empty one.
    expect(lookUpClosed(Buffer.from('G-1 Hr\nZ-9 Lw', 'utf8'), 'Z-9')).toEqual({ id: 'Z-9', severity: 'LOW', state: 'WONT_FIX' });
    expect(lookUpClosed(Buffer.from('G-1 Hr\n', 'utf8'), 'G-1')).toEqual({ id: 'G-1', severity: 'HIGH', state: 'RESOLVED' });
    expect(lookUpClosed(Buffer.alloc(0), 'G-1')).toBeNull();
  });

  it('spells each severity and each state with the letter the log format gives it, and reads every pair back', () => {
    // The letters docs/log-format.md gives: a change to any of them is a new index format.
    const severities = { CRITICAL: 'C', HIGH: 'H', MEDIUM: 'M', LOW: 'L', UNTRIAGED: 'U' } as const;
    const states = {
      OPEN: 'o',
      IN_PROGRESS: 'i',
      BLOCKED: 'b',
      PROPOSED: 'p',
      NEEDS_REVISION: 'n',
      USER_DEFERRED: 'd',
      ACCEPTED: 'a',
      RESOLVED: 'r',
      WONT_FIX: 'w',
      DUPLICATE: 'u',
      SPLIT: 's',
    } as const;
    const pairs = Object.entries(severities).flatMap(([severity, s]) => Object.entries(states).map(([state, t]) => ({ severity, state, letters: `${s}${t}` })));
    const gaps = pairs.map(({ severity, state }, n) => gap(`G-${n}`, severity as Gap['severity'], state as Gap['state']));
    expect(indexLines(gaps)).toBe(pairs.map(({ letters }, n) => `G-${n} ${letters}\n`).join(''));
    const bytes = Buffer.from(indexLines(gaps), 'utf8');
    for (const g of gaps) expect(lookUpClosed(bytes, g.id)).toEqual({ id: g.id, severity: g.severity, state: g.state });
  });

  it('a line whose letters name no severity or state is a damaged index, not an answer', () => {
    for (const line of ['G-1 Xr', 'G-1 Hx', 'G-1 H', 'G-1 Hrr', 'G-1 HIGH RESOLVED', 'G-1 ']) {
      expect(() => lookUpClosed(Buffer.from(`${line}\n`, 'utf8'), 'G-1')).toThrow(DamagedIndex);
    }
  });
});

/** An index body read as a lookup reads one on disk: its first bytes, and ranges of it (counted, to see what a lookup reads). */
function parts(body: Buffer, first = 8192) {
  const reads: { offset: number; length: number }[] = [];
  return {
    reads,
    first: body.subarray(0, first),
    bodyBytes: body.length,
    range: (offset: number, length: number) => {
      reads.push({ offset, length });
      return offset + length <= body.length ? body.subarray(offset, offset + length) : null;
    },
  };
}

const lookUpIn = (body: Buffer) => closedIndexLookUp(parts(body))!;
const CLOSED_STATES = ['RESOLVED', 'WONT_FIX', 'ACCEPTED', 'DUPLICATE', 'SPLIT'] as const;
const OPEN_STATES = ['OPEN', 'IN_PROGRESS', 'BLOCKED', 'USER_DEFERRED'] as const;

describe('the closed gaps index, spread over buckets', () => {
  it('puts an id in the bucket the crc32 of its bytes names, modulo the bucket count', () => {
    expect(CLOSED_BUCKETS).toBe(256);
    for (const id of ['G-1', 'G-10', 'A.b_c', 'é-1']) expect(closedBucketOf(id)).toBe(crc32(Buffer.from(id, 'utf8')) % 256);
    // The standard CRC-32 (as zlib, Python or any other computes it) of 'G-1' is 0xfb601882: a hash that is the same in every process and version.
    expect(closedBucketOf('G-1')).toBe(0x82);
  });

  it("stores a table line (each bucket's length and crc32) then the buckets, each line in its own bucket", () => {
    const body = closedIndexOf('G-1 Hr\nG-10 Lw\nA.b_c Cr\n');
    const text = body.toString('utf8');
    const tableLine = text.slice(0, text.indexOf('\n'));
    const entries = tableLine.split(' ');
    expect(entries).toHaveLength(256);
    let at = tableLine.length + 1;
    const found: string[] = [];
    for (const [bucket, entry] of entries.entries()) {
      const [bytes, crc] = entry.split('/');
      const content = body.subarray(at, at + Number(bytes));
      expect(crc).toBe(crc32(content).toString(16).padStart(8, '0'));
      for (const line of content.toString('utf8').split('\n').filter(Boolean)) {
        expect(closedBucketOf(line.split(' ')[0]!)).toBe(bucket);
        found.push(line);
      }
      at += Number(bytes);
    }
    expect(at).toBe(body.length);
    expect(found.sort()).toEqual(['A.b_c Cr', 'G-1 Hr', 'G-10 Lw']);
    // An empty index is a table of empty buckets.
    expect(closedIndexOf('').toString('utf8')).toBe(`${new Array(256).fill('0/00000000').join(' ')}\n`);
  });

  it('finds every closed gap of a few hundred, with its severity and state, reading only its bucket; an open or unknown id is not found', () => {
    const gapArb = fc.record({
      severity: fc.constantFrom('CRITICAL', 'HIGH', 'MEDIUM', 'LOW'),
      state: fc.constantFrom(...CLOSED_STATES, ...OPEN_STATES),
    });
    fc.assert(
      fc.property(fc.array(gapArb, { minLength: 200, maxLength: 500 }), fc.string({ minLength: 1, maxLength: 6 }), (drawn, prefix) => {
        const safe = prefix.replace(/\s/g, '_');
        const gaps = drawn.map((g, n) => gap(`${safe}-${n}`, g.severity as Gap['severity'], g.state as Gap['state']));
        const body = closedIndexOf(closedIndexLines(gaps));
        const read = parts(body);
        const lookUp = closedIndexLookUp(read)!;
        const buckets = new Set<number>();
        for (const g of gaps) {
          const closed = (CLOSED_STATES as readonly string[]).includes(g.state);
          const reads = read.reads.length;
          expect(lookUp(g.id)).toEqual(closed ? ({ id: g.id, severity: g.severity, state: g.state } satisfies ClosedGap) : null);
          // At most one read, of the id's own bucket, and none for a bucket read before.
          expect(read.reads.length - reads).toBeLessThanOrEqual(buckets.has(closedBucketOf(g.id)) ? 0 : 1);
          if (read.reads.length > reads) buckets.add(closedBucketOf(g.id));
        }
        for (const absent of [`${safe}-${gaps.length}`, `${safe}-`, safe, `x${safe}-0`, `${safe}-0 `]) expect(lookUp(absent)).toBeNull();
        // Nothing is ever read beyond one bucket at a time.
        expect(Math.max(...read.reads.map((r) => r.length))).toBeLessThan(body.length / 4);
      }),
      { numRuns: 30 },
    );
  });

  it('a bucket that does not match its crc (or cannot be read) makes its lookup throw, never answer absent', () => {
    const body = closedIndexOf('G-1 Hr\nG-10 Lw\n');
    const at = body.indexOf('G-1 Hr');
    const damaged = Buffer.from(body);
    damaged.write('X', at, 'utf8');
    expect(() => lookUpIn(damaged)('G-1')).toThrow(DamagedIndex);
    // A bucket not read is not checked: G-10's answer stands.
    if (closedBucketOf('G-10') !== closedBucketOf('G-1')) expect(lookUpIn(damaged)('G-10')).toEqual({ id: 'G-10', severity: 'LOW', state: 'WONT_FIX' });
    const unreadable = { ...parts(body), range: () => null };
    expect(() => closedIndexLookUp(unreadable)!('G-1')).toThrow(DamagedIndex);
  });

  it('a table line that is cut, malformed or does not add up to the body is no index', () => {
    const body = closedIndexOf('G-1 Hr\n');
    const tableEnd = body.indexOf(0x0a) + 1;
    expect(closedTableOf(body, body.length)?.buckets).toHaveLength(256);
    // The body one byte longer or shorter than its buckets.
    expect(closedTableOf(body, body.length + 1)).toBeNull();
    expect(closedTableOf(body, body.length - 1)).toBeNull();
    // No newline: the table is cut.
    expect(closedTableOf(body.subarray(0, tableEnd - 1), body.length)).toBeNull();
    const table = body.toString('utf8', 0, tableEnd - 1);
    for (const bad of [
      table.replace(/^0\//, '00/'),
      table.replace(/^0\/00000000 /, ''),
      `${table} 0/00000000`,
      table.replace(/^0\/0{8}/, '0/0000000g'),
      table.replace(/^0\/0{8}/, '-0/00000000'),
    ]) {
      expect(closedTableOf(Buffer.from(`${bad}\n`), body.length - tableEnd + bad.length + 1)).toBeNull();
    }
    expect(closedIndexLookUp(parts(Buffer.from('G-1 Hr\n')))).toBeNull();
  });

  it('extending adds each line to the end of its bucket: the lookups then answer as an index written whole', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.integer({ min: 0, max: 2000 }), { minLength: 1, maxLength: 300 }), fc.nat(), (ids, cut) => {
        const all = ids.map((n) => `G-${n} ${n % 2 === 0 ? 'H' : 'L'}${n % 3 === 0 ? 'w' : 'r'}\n`);
        const at = cut % (all.length + 1);
        const extended = extendClosedIndex(closedIndexOf(all.slice(0, at).join('')), all.slice(at).join(''))!;
        const whole = closedIndexOf(all.join(''));
        // Each bucket keeps its lines in the order written, so extending in order gives the same bytes.
        expect(extended.equals(whole)).toBe(true);
      }),
      { numRuns: 50 },
    );
  });

  it('extending checks the buckets it changes, and carries the others as they are (their damage found when they are read)', () => {
    const body = closedIndexOf('G-1 Hr\nG-10 Lw\n');
    expect(closedBucketOf('G-1')).not.toBe(closedBucketOf('G-10'));
    const damaged = Buffer.from(body);
    damaged.write('X', damaged.indexOf('G-1 Hr'), 'utf8');
    // G-1's bucket changes: its damage is found.
    expect(extendClosedIndex(damaged, 'G-1x Lr\n'.replace('G-1x', sameBucketAs('G-1')))).toBeNull();
    // G-1's bucket is carried: the new index holds it, damaged, still under its old crc.
    const carried = extendClosedIndex(damaged, 'G-10b Lr\n'.replace('G-10b', sameBucketAs('G-10')))!;
    expect(() => lookUpIn(carried)('G-1')).toThrow(DamagedIndex);
    expect(lookUpIn(carried)(sameBucketAs('G-10'))).toEqual({ id: sameBucketAs('G-10'), severity: 'LOW', state: 'RESOLVED' });
    expect(extendClosedIndex(Buffer.from('G-1 Hr\n'), 'G-2 Lr\n')).toBeNull();
  });
});

/** Another id in `id`'s bucket. */
function sameBucketAs(id: string): string {
  for (let n = 0; ; n++) if (closedBucketOf(`${id}-${n}`) === closedBucketOf(id)) return `${id}-${n}`;
}

describe('crc32 (the index’s own, without zlib)', () => {
  it('is zlib’s CRC-32 for any bytes and any string (as its UTF-8 bytes)', () => {
    fc.assert(
      fc.property(fc.oneof(fc.uint8Array({ maxLength: 300 }), fc.string({ unit: 'grapheme', maxLength: 60 })), (data) => {
        expect(ownCrc32(data)).toBe(crc32(data));
      }),
      { numRuns: 500 },
    );
    expect(ownCrc32('')).toBe(0);
    expect(ownCrc32('123456789')).toBe(0xcbf43926);
  });
});
