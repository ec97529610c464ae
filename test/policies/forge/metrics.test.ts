import { describe, expect, it } from 'vitest';
import { agreementScore, changeVelocity, issueScore, sectionStability, textSimilarity, trendOf } from '../../../src/policies/index.js';
import type { Session } from '../../../src/index.js';
import { toStateJson } from '../../../src/core/index.js';
import { newSession } from '../../support.js';

/** Forge's text similarity, restated: Jaccard over lower-cased words, 0 when there are none. */
function jaccard(a: string, b: string): number {
  const x = new Set(a.toLowerCase().split(/\s+/).filter(Boolean));
  const y = new Set(b.toLowerCase().split(/\s+/).filter(Boolean));
  const shared = [...x].filter((w) => y.has(w)).length;
  const union = new Set([...x, ...y]).size;
  return union === 0 ? 0 : shared / union;
}

/** Forge's section stability, restated: the last three drafts' `#` lines differ by at most 1 step to step: 0.9, else 0.5. */
function seedSections(drafts: string[]): number {
  if (drafts.length < 2) return 0;
  const counts = drafts.slice(-3).map((d) => d.split('\n').filter((l) => l.startsWith('#')).length);
  return counts.every((c, i) => i === 0 || Math.abs(c - counts[i - 1]!) <= 1) ? 0.9 : 0.5;
}

const sections = (n: number) => Array.from({ length: n }, (_, i) => `# s${i}\ntext`).join('\n');

describe('forge metrics: the formulas, branch by branch', () => {
  it('change velocity is the similarity of the last two drafts: 0 for disjoint ones, Jaccard in between, 0 before two', () => {
    expect(changeVelocity(['alpha beta', 'gamma delta'])).toBe(jaccard('alpha beta', 'gamma delta'));
    expect(jaccard('alpha beta', 'gamma delta')).toBe(0);
    const [a, b, c] = ['one two three', 'one two four', 'one five six seven'];
    expect(changeVelocity([a, b, c])).toBeCloseTo(jaccard(c, b), 12);
    expect(changeVelocity([a])).toBe(0);
  });

  it('the similarity of two empty texts is 0, not 1', () => {
    expect(jaccard('', '  ')).toBe(0);
    expect(textSimilarity('', '  ')).toBe(0);
  });

  it('section stability: 0.9 within a step of 1, 0.5 beyond it, only the last three drafts count, 0 before two drafts', () => {
    const cases = [
      [sections(2), sections(3)],
      [sections(2), sections(4)],
      [sections(3), sections(3), sections(1)],
      [sections(9), sections(3), sections(3), sections(4)],
      [sections(3)],
    ];
    const expected = cases.map(seedSections);
    expect(expected).toEqual([0.9, 0.5, 0.5, 0.9, 0]);
    expect(cases.map((drafts) => sectionStability(drafts))).toEqual(expected);
  });

  it('agreement with no critiques is 0, not the best score', () => {
    expect(agreementScore([])).toBe(0);
    expect(agreementScore(null)).toBe(0);
  });

  it('issue score: 0.5 with no critique round, 1 - issues / 20 otherwise', () => {
    expect(issueScore(null)).toBe(0.5);
    expect(issueScore([{ participant: 'a', score: 80, weaknesses: ['w'], suggestions: ['s', 't'] }])).toBeCloseTo(1 - 3 / 20, 12);
  });

  it('trend is the mean of the last two differences (R16), not the last difference alone', () => {
    // mean (+0.15 - 0.03) / 2 = 0.06 > 0.05, though the last difference alone (-0.03) is stable
    expect(trendOf([0.5, 0.65, 0.62])).toBe('improving');
    // mean (-0.15 + 0.03) / 2 = -0.06 < -0.05, though the last difference alone (+0.03) is stable
    expect(trendOf([0.7, 0.55, 0.58])).toBe('degrading');
    // one difference when there are two scores
    expect(trendOf([0.5, 0.56])).toBe('improving');
  });
});

const DRAFT = '# Title\n## Scope\nthe parser reads lines';
const vote = (participant: string, agrees: boolean, score: number) => ({ participant, reply: `AGREES: ${agrees ? 'yes' : 'no'}\nSCORE: ${score}` });
const critique = (participant: string, score: number, weaknesses: string[] = []) => ({ participant, score, weaknesses, suggestions: [] });

function play(rounds: Record<string, unknown>[], settings: Record<string, unknown> = {}): Session {
  const s = newSession({ policies: ['forge'], policySettings: { forge: settings } });
  for (const round of rounds) s.recordMetrics('forge', { draft: DRAFT, critiques: [], votes: [], ...round });
  return s;
}

const forge = (s: Session) => toStateJson(s.view).policies.find((p) => p.name === 'forge')!;

/** Forge's overall for identical drafts (velocity and similarity 1, sections stable 0.9). */
function overall(agreement: number, issues: number, voteScores: number[]): number {
  const metric = agreement * 0.3 + 1 * 0.25 + issues * 0.25 + 1 * 0.1 + 0.9 * 0.1;
  const votes = voteScores.length === 0 ? 0.5 : voteScores.reduce((a, b) => a + b / 100, 0) / voteScores.length;
  return metric * 0.6 + votes * 0.4;
}

describe('forge rounds: critiques, votes and unanimity', () => {
  it('with no votes the vote part is 0.5', () => {
    const crit = [critique('a', 80), critique('b', 80)];
    const s = play([{ critiques: crit }, { critiques: crit }]);
    // agreement: (0.8 + (1 - 0 / 50)) / 2; no issues: 1
    expect(forge(s).figures.score).toBeCloseTo(overall((0.8 + 1) / 2, 1, []), 3);
  });

  it('critiques: [] reads the most recent round that had critiques, not "no issues"', () => {
    const s = play([{ critiques: [critique('a', 60, ['w1', 'w2', 'w3', 'w4'])] }, { critiques: [], votes: [vote('a', false, 70)] }]);
    // round 1's critiques: agreement (0.6 + 1) / 2, issues 1 - 4 / 20
    expect(forge(s).figures.score).toBeCloseTo(overall((0.6 + 1) / 2, 1 - 4 / 20, [70]), 3);
    expect(forge(s).figures.issueCount).toBeCloseTo(1 - 4 / 20, 3);
  });

  it('no round with critiques at all: issue score 0.5 and agreement 0', () => {
    const s = play([{ votes: [vote('a', false, 70)] }, { votes: [vote('a', false, 70)] }]);
    expect(forge(s).figures).toMatchObject({ issueCount: 0.5, agreementScore: 0 });
    expect(forge(s).figures.score).toBeCloseTo(overall(0, 0.5, [70]), 3);
  });

  it('unanimity counts every active participant: a critic who did not vote keeps it from converging', () => {
    const crit = [critique('a', 95), critique('b', 95)];
    const s = play([{ critiques: crit }, { critiques: crit, votes: [vote('a', true, 95)] }]);
    expect(overall((0.95 + 1) / 2, 1, [95])).toBeGreaterThanOrEqual(0.8);
    expect(forge(s)).toMatchObject({ verdict: 'progress', figures: { agreeing: 1, participants: 2 } });
    expect(toStateJson(s.view).state).toBe('CONVERGING');
  });

  it('a participant who votes twice agrees once: one critic with two agreeing votes is unanimous', () => {
    const crit = [critique('a', 95)];
    const s = play([{ critiques: crit }, { critiques: crit, votes: [vote('a', true, 95), vote('a', true, 95)] }]);
    expect(forge(s).figures).toMatchObject({ agreeing: 1, participants: 1 });
    expect(toStateJson(s.view)).toMatchObject({ state: 'COMPLETE', outcome: 'CONVERGED' });
  });

  it('nobody active in the round: no unanimity, however low the threshold', () => {
    const s = play([{}, {}], { threshold: 0.1 });
    expect(overall(0, 0.5, [])).toBeGreaterThanOrEqual(0.1);
    expect(forge(s)).toMatchObject({ verdict: 'progress', figures: { participants: 0 } });
    expect(toStateJson(s.view).state).toBe('CONVERGING');
  });
});
