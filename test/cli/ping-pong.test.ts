import { afterEach, describe, expect, it } from 'vitest';
import { Sandbox } from './helpers.js';

/*
 * Ping-pong on the command line: a gap resolved and reopened twice, and an
 * open count going back and forth, named by `round close`, `next --json` and
 * the decision prompt once the loop stalls on them.
 */

let box: Sandbox;
afterEach(() => box?.remove());

describe('ping-pong on the command line', { timeout: 60_000 }, () => {
  it('round close, next --json and the decision prompt name the gap and the alternating open count', () => {
    box = new Sandbox();
    box.steps('init', 'gap open A --severity HIGH', 'gap open B --severity LOW');
    box.steps('round start', 'gap move A RESOLVED', 'round close', 'round start', 'gap move A OPEN', 'round close');
    box.steps('round start', 'gap move A RESOLVED', 'round close', 'round start', 'gap move A OPEN');
    const closed = box.ok('round', 'close').stdout;
    expect(closed).toContain('  Ping-pong: A (resolved 2×, reopened 2×) reopened after being resolved\n');
    expect(closed).toContain('  Open count alternating: 1, 2, 1, 2 over rounds 1-4\n');
    const next = JSON.parse(box.ok('next', '--json').stdout) as Record<string, unknown>;
    expect(next.pingPong).toEqual([{ id: 'A', resolves: 2, reopens: 2 }]);
    expect(next.openCountAlternating).toEqual({ fromRound: 1, toRound: 4, openCounts: [1, 2, 1, 2] });
    // A second flat round stalls the loop: the prompt's cause analysis names both.
    box.steps('round start', 'round close');
    const asked = JSON.parse(box.ok('next', '--json').stdout) as { action: string; prompt: string };
    expect(asked.action).toBe('ask_user');
    expect(asked.prompt).toContain('SECONDARY: Ping-pong: A (resolved 2×, reopened 2×): fixed and broken again; look at why the fix does not hold');
    const prompt = box.ok('prompt').stdout;
    expect(prompt).toContain('SECONDARY: Ping-pong: A (resolved 2×, reopened 2×)');
    // Rounds 3-5 ended at 1, 2, 2: the open count no longer alternates.
    expect(prompt).not.toContain('Open count alternating');
  });

  it('init --ping-pong 3 raises the threshold: two reopens are not named', () => {
    box = new Sandbox();
    box.steps('init --ping-pong 3', 'gap open A --severity HIGH', 'gap open B --severity LOW');
    box.steps('round start', 'gap move A RESOLVED', 'round close', 'round start', 'gap move A OPEN', 'round close');
    box.steps('round start', 'gap move A RESOLVED', 'round close', 'round start', 'gap move A OPEN');
    expect(box.ok('round', 'close').stdout).not.toContain('Ping-pong');
    expect((JSON.parse(box.ok('next', '--json').stdout) as { pingPong: unknown }).pingPong).toEqual([]);
    expect(box.ok('status').stdout).toContain('| ping_pong | 3 reopens |');
  });
});
