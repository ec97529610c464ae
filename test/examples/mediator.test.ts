import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

// `npm test` builds first, so this is what `npm run example` runs.
const mediator = join(import.meta.dirname, '..', '..', 'dist', 'examples', 'mediator.js');
const play = (...args: string[]) => execFileSync(process.execPath, [mediator, ...args], { encoding: 'utf8' });

/** The state each printed round verdict ended in. */
function verdicts(out: string): string[] {
  return [...out.matchAll(/^Round \d+: .* -> ([A-Z_]+)$/gm)].map((m) => m[1]!);
}

describe('npm run example (examples/mediator.ts)', () => {
  it('prints a verdict per round, reaches at least three different states, lets the scripted user decide, and ends with status.md', () => {
    const out = play();
    const states = verdicts(out);
    expect(states.length).toBeGreaterThanOrEqual(3);
    expect(new Set(states).size).toBeGreaterThanOrEqual(3);
    expect(states).toContain('DIVERGENCE_WARNING');
    expect(out).toMatch(/^ {2}user: /m);
    expect(out).toMatch(/^Stop: the session is COMPLETE/m);
    const status = out.lastIndexOf('# gapflow status');
    expect(status).toBeGreaterThan(out.lastIndexOf('Stop: '));
    expect(out.slice(status)).toContain('**State:** COMPLETE');
    // Every verdict printed is a row of status.md's round table with the same state.
    states.forEach((state, i) => expect(out.slice(status)).toMatch(new RegExp(`^\\| ${i + 1} \\|.*\\| ${state} \\|`, 'm')));
  }, 60_000);

  it('the seed decides everything: the same seed plays the same session, another seed another one', () => {
    expect(play('--seed', '42')).toBe(play('--seed', '42'));
    expect(play('--seed', '42')).not.toBe(play('--seed', '7'));
  }, 60_000);

  it('every seed from 1 to 6 ends COMPLETE within max_rounds', () => {
    for (let seed = 1; seed <= 6; seed++) {
      const out = play('--seed', String(seed));
      expect(out, `seed ${seed}`).toMatch(/^Stop: the session is COMPLETE/m);
      expect(verdicts(out).length, `seed ${seed}`).toBeLessThanOrEqual(10);
    }
  }, 60_000);
});
