import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { auditHistory, toStateJson } from '../../src/core/index.js';
import { createFileSession, openFileSession, verifyFileSession } from '../../src/index.js';
import { VERDICT_TEXT_MAX } from '../../events/index.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('recorded outcomes read back', () => {
  it('a round that introduces 80 CRITICAL gaps with 128-character ids closes, and the log opens and verifies after it', { timeout: 30_000 }, () => {
    const dir = mkdtempSync(join(tmpdir(), 'gapflow-outcome-'));
    dirs.push(dir);
    const session = createFileSession(dir);
    session.startRound();
    const ids = Array.from({ length: 80 }, (_, i) => `C${String(i).padStart(3, '0')}-${'X'.repeat(123)}`);
    for (const id of ids) session.openGap(id, 'CRITICAL');
    // Every id named in one detail would be 80 x 130 characters: past what a stored verdict may carry.
    expect(ids.join(', ').length).toBeGreaterThan(VERDICT_TEXT_MAX);
    session.closeRound();
    const reopened = openFileSession(dir);
    expect(toStateJson(reopened.view)).toEqual(toStateJson(session.view));
    expect(reopened.view.machine.state).toBe('DIVERGENCE_WARNING');
    const [gaps] = reopened.view.rounds[0]!.verdicts;
    expect(gaps!.detail.length).toBeLessThanOrEqual(VERDICT_TEXT_MAX);
    expect(gaps!.detail.endsWith('…')).toBe(true);
    expect(reopened.view.rounds[0]!.criticalIntroduced).toEqual(ids);
    expect(verifyFileSession(dir)).toMatchObject({ problem: null, findings: [] });
  });

  it('a history this version wrote has no audit findings, even where a figure was -0 (80 then 79.999), which JSON stores as 0', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gapflow-outcome-'));
    dirs.push(dir);
    const session = createFileSession(dir, { policies: ['quality'] });
    session.recordMetrics('quality', { score: 80 });
    session.recordMetrics('quality', { score: 79.999 });
    expect(session.view.rounds).toHaveLength(2);
    expect(auditHistory(openFileSession(dir).log.read()).findings).toEqual([]);
    expect(verifyFileSession(dir)).toMatchObject({ problem: null, findings: [] });
  });
});
