import { describe, expect, it } from 'vitest';
import { baseline, newSession, WEIGHT } from '../support.js';
import { renderPrompt, renderSummary } from '../../src/render/index.js';

describe('the decision prompt', () => {
  it('recomputes the worked example round: 2 resolved (weighted 6), 4 new (weighted 22), net -16', () => {
    const s = newSession();
    s.openGap('GAP-FLOW-003', 'HIGH', { title: 'Parser contract missing' });
    s.openGap('GAP-UX-001', 'MEDIUM', { title: 'Status format unclear' });
    baseline(s, 'LOW', 2);
    s.startRound();
    s.moveGap('GAP-FLOW-003', 'IN_PROGRESS');
    s.moveGap('GAP-FLOW-003', 'PROPOSED');
    s.moveGap('GAP-FLOW-003', 'ACCEPTED');
    s.moveGap('GAP-UX-001', 'RESOLVED');
    s.openGap('GAP-FLOW-020', 'CRITICAL', { title: 'Parser validation undefined' });
    s.openGap('GAP-COMM-010', 'MEDIUM', { spawnedBy: 'GAP-FLOW-003' });
    s.openGap('GAP-COMM-011', 'MEDIUM', { spawnedBy: 'GAP-FLOW-003' });
    s.openGap('GAP-UX-010', 'MEDIUM', { spawnedBy: 'GAP-UX-001' });
    s.closeRound();
    const prompt = renderPrompt(s.view)!;
    const resolved = WEIGHT.HIGH + WEIGHT.MEDIUM;
    const added = WEIGHT.CRITICAL + 3 * WEIGHT.MEDIUM;
    expect(prompt).toContain('Session Progress: Round 1 of max 10');
    expect(prompt).toContain('Convergence State: DIVERGENCE_WARNING');
    expect(prompt).toContain(`Resolved: 2 gaps (weighted: ${resolved})`);
    expect(prompt).toContain('  - GAP-FLOW-003 (HIGH, weight 4) -> ACCEPTED');
    expect(prompt).toContain('  - GAP-UX-001 (MEDIUM, weight 2) -> RESOLVED');
    expect(prompt).toContain(`New: 4 gaps (weighted: ${added})`);
    expect(prompt).toContain('  - GAP-FLOW-020 (CRITICAL, weight 16) [NEW] - Parser validation undefined');
    expect(prompt).toContain('  - GAP-COMM-010 (MEDIUM, weight 2) [NEW] - Spawned by GAP-FLOW-003');
    expect(prompt).toContain(`Unweighted Net: ${2 - 4} (2 resolved, 4 new)`);
    expect(prompt).toContain(`Weighted Net: ${resolved - added} (resolved ${resolved}, new ${added}) <-- DIVERGENCE TRIGGER`);
    expect(prompt).toContain('PRIMARY: CRITICAL gap introduced (GAP-FLOW-020)');
    expect(prompt).toContain('SECONDARY: Complex gap (GAP-FLOW-003) spawned 2 sub-gaps');
    expect(prompt).toContain('Open: 6 (1 CRITICAL, 0 HIGH, 3 MEDIUM, 2 LOW)');
    expect(prompt).toContain('Total open count: 6 (using lifecycle formula');
    // R28: MEDIUM and LOW gaps spawned this round are suggested, with no non-blocking flag.
    expect(prompt).toContain('Suggestion: Defer GAP-COMM-010, GAP-COMM-011, GAP-UX-010 (');
    expect(prompt).toContain('gapflow decide narrow-scope --gaps GAP-COMM-010,GAP-COMM-011,GAP-UX-010');
    expect(prompt).toContain('3. Prioritize CRITICAL - Focus next round exclusively on GAP-FLOW-020 [RECOMMENDED]');
    expect(prompt).toContain('Recommended because round 1 introduced CRITICAL GAP-FLOW-020');
    expect(prompt).toContain('WARNING: Spec may be unimplementable');
  });

  it('names divergence by threshold when no CRITICAL is involved, and offers no CRITICAL focus', () => {
    const s = newSession();
    baseline(s, 'LOW', 2);
    s.startRound();
    for (const id of ['H1', 'H2', 'H3']) s.openGap(id, 'HIGH');
    s.closeRound();
    const prompt = renderPrompt(s.view)!;
    expect(prompt).toContain(`PRIMARY: Weighted net -${3 * WEIGHT.HIGH} is below -8 (divergence threshold)`);
    expect(prompt).toContain('3. Prioritize CRITICAL - not available: no CRITICAL gap is open');
    expect(prompt).not.toContain('WARNING: Spec may be unimplementable');
  });

  it('is null when no decision is due: before, after and instead of a warning', () => {
    const s = newSession();
    baseline(s, 'LOW', 2);
    expect(renderPrompt(s.view)).toBeNull();
    s.startRound();
    s.openGap('C1', 'CRITICAL');
    s.closeRound();
    expect(renderPrompt(s.view)).not.toBeNull();
    s.makeDecision('pause');
    expect(renderPrompt(s.view)).toBeNull();
    s.makeDecision('resume');
    expect(renderPrompt(s.view)).not.toBeNull();
    s.makeDecision('abandon');
    expect(renderPrompt(s.view)).toBeNull();
  });
});

describe('the final summary', () => {
  it('is null before COMPLETE', () => {
    const s = newSession();
    baseline(s, 'LOW', 1);
    expect(renderSummary(s.view)).toBeNull();
  });

  it('counts baseline gaps and says when the approval came, even before round 1', () => {
    const s = newSession();
    baseline(s, 'LOW', 2);
    s.makeDecision('approve');
    const summary = renderSummary(s.view)!;
    expect(summary).toContain('**Outcome:** GOOD_ENOUGH');
    expect(summary).toContain('2 recorded in all (2 at baseline)');
    expect(summary).toContain('**Approval:** before round 1.');
  });

  it('records an approval over severe gaps: the acknowledged CRITICAL, the HIGH and the rationale', () => {
    const s = newSession();
    baseline(s, 'CRITICAL', 1, 'C');
    baseline(s, 'HIGH', 1, 'H');
    baseline(s, 'LOW', 1, 'L');
    s.startRound();
    s.moveGap('L-1', 'RESOLVED');
    s.closeRound();
    s.makeDecision('approve', { acceptCritical: true, rationale: 'pilot only' });
    const summary = renderSummary(s.view)!;
    expect(summary).toContain(
      '**Approval:** after round 1. The risk of CRITICAL gaps left open (C-1) was acknowledged. HIGH gaps left open: H-1. Rationale: pilot only',
    );
    const limits = summary.split('## Known Limitations')[1]!.trim().split('\n');
    expect(limits).toEqual(['- C-1 (CRITICAL, OPEN)', '- H-1 (HIGH, OPEN)']);
  });
});
