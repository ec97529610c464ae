import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createMemorySession, MemoryLog, readSarif, Session, type Snapshot } from '../../src/index.js';
import { renderStatus } from '../../src/render/index.js';

/*
 * The library's `session.sync`: a reader's snapshot recorded through the
 * session, the same request `gapflow sync` and an `append` line make; and
 * what status.md shows of each source's last snapshot.
 */

const CODEQL = readFileSync(join(import.meta.dirname, '..', 'fixtures', 'sync', 'sarif', 'codeql-2.23.0-trimmed.sarif'), 'utf8');

const snapshot = (source: string, findings: Snapshot['findings']): Snapshot => ({ source, format: 'json', findings });

describe('session.sync', () => {
  it("records a reader's snapshot as gaps of its source, and the same snapshot again appends nothing", () => {
    const session = createMemorySession();
    const codeql = readSarif(CODEQL, { file: 'codeql.sarif' });
    const first = session.sync(codeql);
    expect(first.appended.map((event) => event.type)).toEqual(['findings.synced', 'gap.opened', 'gap.opened']);
    expect([...session.view.gaps.values()].map((gap) => [gap.severity, gap.source])).toEqual([
      ['MEDIUM', 'CodeQL'],
      ['HIGH', 'CodeQL'],
    ]);
    expect(session.sync(codeql).appended).toEqual([]);
  });

  it('is the request an append line makes: the same events either way', () => {
    const found = snapshot('review', [
      { id: 'R-1', severity: 'HIGH', title: 'one' },
      { id: 'R-2', severity: 'LOW', title: 'two' },
    ]);
    const bySync = createMemorySession();
    bySync.sync(found);
    const byRecord = createMemorySession();
    byRecord.record({ type: 'findings.synced', data: { source: 'review', format: 'json', findings: found.findings } });
    const bodies = (session: Session) => session.log.read().map(({ type, data }) => ({ type, data }));
    expect(bodies(bySync)).toEqual(bodies(byRecord));
  });

  it("with close, records the round's close in the same write, and status.md shows each source's last snapshot", () => {
    const log = new MemoryLog();
    const session = Session.create(log);
    session.sync(snapshot('lint', [{ id: 'L-1', severity: 'HIGH', title: 'x' }]));
    session.sync(snapshot('tests', [{ id: 'T-1', severity: 'HIGH', title: 'y' }]));
    session.startRound();
    session.moveGap('L-1', 'RESOLVED');
    const closed = session.sync(snapshot('lint', [{ id: 'L-1', severity: 'HIGH', title: 'x' }]), { close: true });
    expect(closed.appended.map((event) => event.type)).toEqual(['findings.synced', 'gap.moved', 'round.closed']);
    const status = renderStatus(session.view);
    expect(status).toContain('### Findings Sources');
    expect(status).toMatch(/\| lint \| json \| [^|]+ \| 1 \| 1 \| 0 \| 0 \| 1 \| 1 \(L-1\) \|/);
    expect(status).toMatch(/\| tests \| json \| [^|]+ \| baseline \| 1 \| 1 \| 0 \| 0 \| 0 \|/);
    // Reopened, still open: the claim stands in status.md too.
    expect(status).toContain('**Claimed but still reported:** L-1');
  });
});
