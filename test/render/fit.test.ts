import { describe, expect, it } from 'vitest';
import { fitLines, itemList, jsonLength } from '../../src/render/index.js';

const ids = (prefix: string, count: number) => Array.from({ length: count }, (_, i) => `${prefix}-${i + 1}`);

/** The ids a rendered list shows and the number its "+N more" gives, from the text alone. */
function shownOf(text: string, prefix: string): { shown: string[]; more: number } {
  const shown = [...text.matchAll(new RegExp(`\\b${prefix}-\\d+\\b`, 'g'))].map((m) => m[0]);
  const more = Number(new RegExp(`${prefix}-\\d+ \\+(\\d+) more`).exec(text)?.[1] ?? 0);
  return { shown, more };
}

describe('fitLines: text held under a budget by cutting its lists', () => {
  it('leaves text that fits as it is, every item shown', () => {
    const fit = fitLines([['Open: ', itemList(ids('A', 5)), '.'], ['second line']], 1000);
    expect(fit).toEqual({ text: 'Open: A-1, A-2, A-3, A-4, A-5.\nsecond line', cut: false });
  });

  it('cuts the longest list first, saying how many it left out, and leaves a short one whole', () => {
    const lines = [
      ['Long: ', itemList(ids('L', 300))],
      ['Short: ', itemList(ids('S', 6))],
    ];
    const fit = fitLines(lines, 600);
    expect(fit.cut).toBe(true);
    expect(jsonLength(fit.text)).toBeLessThanOrEqual(600);
    const long = shownOf(fit.text, 'L');
    expect(long.shown).toEqual(ids('L', long.shown.length));
    expect(long.shown.length + long.more).toBe(300);
    expect(long.more).toBeGreaterThan(0);
    expect(shownOf(fit.text, 'S')).toEqual({ shown: ids('S', 6), more: 0 });
  });

  it('cuts two long lists to about the same length, not one to nothing', () => {
    const fit = fitLines(
      [
        ['A: ', itemList(ids('A', 400))],
        ['B: ', itemList(ids('B', 200))],
      ],
      1200,
    );
    const [a, b] = [shownOf(fit.text, 'A'), shownOf(fit.text, 'B')];
    expect(a.shown.length + a.more).toBe(400);
    expect(b.shown.length + b.more).toBe(200);
    expect(Math.abs(a.shown.length - b.shown.length)).toBeLessThanOrEqual(2);
    expect(jsonLength(fit.text)).toBeLessThanOrEqual(1200);
  });

  it('shows at most the items a list allows, even with room to spare', () => {
    const fit = fitLines([[itemList(ids('G', 30), '\n', (n) => `\n+${n} more`, 4)]], 10_000);
    expect(fit).toEqual({ text: 'G-1\nG-2\nG-3\nG-4\n+26 more', cut: true });
  });

  it('counts what JSON adds (escaped quotes and newlines) against the budget', () => {
    const quoted = Array.from({ length: 200 }, (_, i) => `"q${i}"\n`);
    const fit = fitLines([[itemList(quoted, '')]], 500);
    expect(jsonLength(fit.text)).toBeLessThanOrEqual(500);
    // Three escapes an item: counting characters alone would have let about a hundred more through.
    expect(jsonLength(fit.text) - fit.text.length).toBeGreaterThan(100);
  });

  it('cuts text with no list left to cut at the budget, with an ellipsis, never inside a character', () => {
    const text = '😀'.repeat(1000);
    const fit = fitLines([[text]], 101);
    expect(fit.cut).toBe(true);
    expect(fit.text.endsWith('…')).toBe(true);
    expect(jsonLength(fit.text)).toBeLessThanOrEqual(101);
    expect(fit.text.slice(0, -1)).toBe('😀'.repeat((fit.text.length - 1) / 2));
  });
});
