import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const demo = join(import.meta.dirname, '..', '..', 'dist', 'examples', 'demo.js');

describe('npm run demo', () => {
  it('plays at least 6 rounds through the CLI, passing every state, and ends with status.md', () => {
    const out = execFileSync(process.execPath, [demo], { encoding: 'utf8' });
    const closes = out.match(/^Round \d+ closed: .*$/gm) ?? [];
    expect(closes.length).toBeGreaterThanOrEqual(6);
    const path = closes.join('\n');
    for (const state of ['CONVERGING', 'FLAT', 'STALLED', 'DIVERGENCE_WARNING', 'COMPLETE']) expect(path).toContain(state);
    expect(out).toContain('triggered by CRITICAL introduction');
    expect(out).toMatch(/narrow-scope: DIVERGENCE_WARNING -> CONVERGING/);
    expect(out.trimEnd().split('\n').slice(-60).join('\n')).toContain('### Gap Inventory');
    expect(out.lastIndexOf('# gapflow status')).toBeGreaterThan(out.lastIndexOf('Round 8 closed'));
  }, 60_000);
});
