import { writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { run } from '../../../src/cli/index.js';
import { isStalled, parseVote, textSimilarity, trendOf } from '../../../src/policies/index.js';
import type { Session } from '../../../src/index.js';
import { toStateJson } from '../../../src/core/index.js';
import { Sandbox, expectRefused } from '../../cli/helpers.js';
import { newSession } from '../../support.js';

describe("forge: the original detector's own unit tests", () => {
  it('test_calculate_text_similarity: "the quick brown fox" vs "the quick red fox" is above 0.5 and below 1', () => {
    const sim = textSimilarity('the quick brown fox', 'the quick red fox');
    expect(sim > 0.5 && sim < 1).toBe(true);
    // Jaccard over words: {the, quick, fox} shared of {the, quick, brown, red, fox}
    expect(sim).toBeCloseTo(3 / 5, 10);
  });

  it('test_parse_vote_response: agrees, score 85, one concern', () => {
    const vote = parseVote('AGREES: yes\nSCORE: 85\nCONCERNS:\n- Minor typo', 'claude_sonnet');
    expect(vote.agrees).toBe(true);
    expect(vote.score).toBe(85);
    expect(vote.concerns).toEqual(['Minor typo']);
  });
});

describe('forge: the vote parser of R17', () => {
  it('tolerates case and spacing', () => {
    expect(parseVote('  agrees :  YES\n score :   72 \nconcerns:\n* one\n-   two\n- none', 'a')).toEqual({
      participant: 'a',
      agrees: true,
      score: 72,
      concerns: ['one', 'two'],
    });
  });
  it('reads 85/100-style scores, scaling other denominators', () => {
    expect(parseVote('SCORE: 85/100', 'a').score).toBe(85);
    expect(parseVote('SCORE: 4 / 5', 'a').score).toBe(80);
  });
  it('a missing or unreadable score is 50; every score is clamped to 0..100', () => {
    expect(parseVote('AGREES: no', 'a').score).toBe(50);
    expect(parseVote('SCORE: high', 'a').score).toBe(50);
    expect(parseVote('SCORE: 150', 'a').score).toBe(100);
    expect(parseVote('SCORE: -5', 'a').score).toBe(0);
  });
  it('does not agree on "no", on nothing, or on an unrelated yes', () => {
    expect(parseVote('AGREES: no\nSCORE: 90', 'a').agrees).toBe(false);
    expect(parseVote('', 'a').agrees).toBe(false);
    expect(parseVote('DISAGREES: yes', 'a').agrees).toBe(false);
  });
});

/** The original detector's stall check as first written: it compares the scores in the wrong order, which R16 corrects. */
function seedIsStalled(history: number[]): boolean {
  if (history.length < 3) return false;
  const recent = history.slice().reverse().slice(0, 3);
  const improving = [0, 1].some((i) => recent[i + 1]! > recent[i]! + 0.02);
  return !improving;
}

describe('forge: stall and trend as R16 corrects them', () => {
  it('a rising series is not stalled, where the original version calls it stalled', () => {
    const rising = [0.5, 0.6, 0.7];
    expect(seedIsStalled(rising)).toBe(true);
    expect(isStalled(rising)).toBe(false);
  });
  it('stalled when no score beats the one before it by more than 0.02 over the last three', () => {
    expect(isStalled([0.7, 0.72, 0.74])).toBe(true);
    expect(isStalled([0.7, 0.69, 0.68])).toBe(true);
    expect(isStalled([0.7, 0.7, 0.73])).toBe(false);
    expect(isStalled([0.7, 0.7])).toBe(false);
  });
  it('trend is the mean of the last two differences: above 0.05 improving, below -0.05 degrading, else stable', () => {
    expect(trendOf([0.5, 0.6, 0.7])).toBe('improving');
    expect(trendOf([0.7, 0.6, 0.5])).toBe('degrading');
    expect(trendOf([0.5, 0.6, 0.58])).toBe('stable'); // mean of +0.10 and -0.02 is 0.04
    expect(trendOf([0.1, 0.5, 0.52, 0.55])).toBe('stable'); // only the last three scores count
    expect(trendOf([0.5])).toBe('unknown');
  });
});

const DRAFT = '# Title\n## Scope\nthe parser reads lines\n## Errors\none line per error';

interface RoundPlan {
  critiques?: { participant: string; score: number; weaknesses?: string[]; suggestions?: string[] }[];
  draft?: string;
  votes?: [participant: string, agrees: boolean, score: number][];
}

function forgeMetrics(plan: RoundPlan) {
  return {
    critiques: (
      plan.critiques ?? [
        { participant: 'a', score: 80 },
        { participant: 'b', score: 80 },
      ]
    ).map((c) => ({ weaknesses: [], suggestions: [], ...c })),
    draft: plan.draft ?? DRAFT,
    votes: (
      plan.votes ?? [
        ['a', true, 90],
        ['b', true, 90],
      ]
    ).map(([participant, agrees, score]) => ({
      participant,
      reply: `AGREES: ${agrees ? 'yes' : 'no'}\nSCORE: ${score}\nCONCERNS:\n- none`,
    })),
  };
}

function play(plans: RoundPlan[], settings: Record<string, unknown> = {}): Session {
  const s = newSession({ policies: ['forge'], policySettings: { forge: settings } });
  for (const plan of plans) s.recordMetrics('forge', forgeMetrics(plan));
  return s;
}

const forge = (s: Session) => toStateJson(s.view).policies.find((p) => p.name === 'forge')!;

/** Forge's overall score, recomputed here for two rounds with identical drafts and equal critique scores. */
function expectedOverall(critiqueScores: number[], issues: number, voteScores: number[], sectionsStable: boolean): number {
  const mean = critiqueScores.reduce((a, b) => a + b, 0) / critiqueScores.length;
  const sd = Math.sqrt(critiqueScores.reduce((a, b) => a + (b - mean) ** 2, 0) / critiqueScores.length);
  const agreement = (mean / 100 + (1 - Math.min(sd / 50, 1))) / 2;
  const velocity = 1; // identical drafts: Jaccard similarity 1
  const issueScore = 1 - Math.min(issues / 20, 1);
  const metric = agreement * 0.3 + velocity * 0.25 + issueScore * 0.25 + velocity * 0.1 + (sectionsStable ? 0.9 : 0.5) * 0.1;
  const vote = voteScores.reduce((a, b) => a + b / 100, 0) / voteScores.length;
  return metric * 0.6 + vote * 0.4;
}

describe('forge policy: convergence, through the library', () => {
  it('before min_rounds (2) a round is not scored: the first counts as progress', () => {
    const s = play([{}]);
    expect(forge(s)).toMatchObject({ verdict: 'progress', reason: 'first_iteration', figures: { score: null } });
    expect(toStateJson(s.view).state).toBe('CONVERGING');
  });

  it('computes the 0.6 metrics / 0.4 votes overall score', () => {
    const critiques = [
      { participant: 'a', score: 70, weaknesses: ['w1', 'w2'] },
      { participant: 'b', score: 90, suggestions: ['s1'] },
    ];
    const s = play([
      {},
      {
        critiques,
        votes: [
          ['a', false, 60],
          ['b', true, 90],
        ],
      },
    ]);
    const expected = expectedOverall([70, 90], 3, [60, 90], true);
    expect(forge(s).figures.score).toBeCloseTo(expected, 3);
  });

  it('converged: score >= threshold and every participant agrees (unanimous by default): COMPLETE, CONVERGED', () => {
    const s = play([{}, {}]);
    expect(expectedOverall([80, 80], 0, [90, 90], true)).toBeGreaterThanOrEqual(0.8);
    expect(forge(s)).toMatchObject({ verdict: 'converged', reason: 'converged' });
    expect(toStateJson(s.view)).toMatchObject({ state: 'COMPLETE', outcome: 'CONVERGED', round: 2 });
  });

  it('not unanimous: no convergence; with --forge-min-consensus 1 one agreeing voter is enough', () => {
    const split: RoundPlan = {
      votes: [
        ['a', true, 95],
        ['b', false, 95],
      ],
    };
    expect(forge(play([{}, split])).verdict).toBe('progress');
    expect(toStateJson(play([{}, split], { minConsensus: 1 }).view)).toMatchObject({ state: 'COMPLETE', outcome: 'CONVERGED' });
  });

  it('below the threshold (0.80 by default, --forge-threshold) there is no convergence, however unanimous', () => {
    const low: RoundPlan = {
      votes: [
        ['a', true, 10],
        ['b', true, 10],
      ],
    };
    expect(expectedOverall([80, 80], 0, [10, 10], true)).toBeLessThan(0.8);
    expect(forge(play([{}, low])).verdict).toBe('progress');
    expect(forge(play([{}, low], { threshold: 0.6 })).verdict).toBe('converged');
  });

  it('flat while stalled: three scored rounds with no gain above 0.02', () => {
    const stuck: RoundPlan = {
      votes: [
        ['a', false, 30],
        ['b', false, 30],
      ],
    };
    const s = play([stuck, stuck, stuck]);
    expect(forge(s).verdict).toBe('progress');
    s.recordMetrics('forge', forgeMetrics(stuck));
    expect(forge(s)).toMatchObject({ verdict: 'flat', reason: 'stalled', figures: { stalled: true, trend: 'stable' } });
    expect(toStateJson(s.view)).toMatchObject({ state: 'FLAT', flatCount: 1 });
  });

  it('diverging while degrading: falling vote scores lead to DIVERGENCE_WARNING', () => {
    const s = play([
      {},
      {
        votes: [
          ['a', false, 90],
          ['b', false, 90],
        ],
      },
      {
        votes: [
          ['a', false, 60],
          ['b', false, 60],
        ],
      },
    ]);
    expect(forge(s)).toMatchObject({ verdict: 'diverging', reason: 'degrading', figures: { trend: 'degrading' } });
    expect(toStateJson(s.view).state).toBe('DIVERGENCE_WARNING');
  });

  it('else progress: a rising series keeps CONVERGING and is never called stalled', () => {
    const votes = (score: number): RoundPlan => ({
      votes: [
        ['a', false, score],
        ['b', false, score],
      ],
    });
    const s = play([votes(20), votes(30), votes(50), votes(70)]);
    expect(forge(s)).toMatchObject({ verdict: 'progress', reason: 'improving', figures: { stalled: false } });
    expect(toStateJson(s.view).state).toBe('CONVERGING');
  });

  it('an optional --forge-max-rounds limit ends the session at MAX_ROUNDS', () => {
    const stuck: RoundPlan = {
      votes: [
        ['a', false, 30],
        ['b', false, 30],
      ],
    };
    expect(toStateJson(play([stuck, stuck], { maxRounds: 2 }).view)).toMatchObject({ state: 'COMPLETE', outcome: 'MAX_ROUNDS' });
  });
});

describe('forge policy through the CLI', () => {
  let box: Sandbox;
  afterEach(() => box.remove());

  it('record forge --json FILE and --json - (stdin); settings from init flags', () => {
    box = new Sandbox();
    box.ok('init', '--policy', 'forge', '--forge-threshold', '0.7', '--forge-min-rounds', '2', '--forge-min-consensus', '1');
    const path = `${box.root}/round1.json`;
    writeFileSync(path, JSON.stringify(forgeMetrics({})));
    box.ok('record', 'forge', '--json', path);
    const stdin = JSON.stringify(
      forgeMetrics({
        votes: [
          ['a', true, 90],
          ['b', false, 90],
        ],
      }),
    );
    let out = '';
    const code = run(['record', 'forge', '--json', '-', '--dir', box.dir], {
      stdout: (t) => (out += t),
      stderr: (t) => (out += t),
      env: {},
      cwd: box.root,
      stdin: () => stdin,
    });
    expect(code, out).toBe(0);
    expect(box.stateJson()).toMatchObject({ state: 'COMPLETE', outcome: 'CONVERGED' });
    expect(box.ok('check', '--verbose').stdout).toContain('├─ Consensus: YES (1 of 2 agree, need 1)');
  });

  it('refuses a malformed payload naming the field, and metric flags for forge', () => {
    box = new Sandbox();
    box.ok('init', '--policy', 'forge');
    const path = `${box.root}/bad.json`;
    writeFileSync(path, JSON.stringify({ critiques: [{ participant: 'a', score: 140 }], draft: '', votes: [] }));
    expectRefused(box, ['record', 'forge', '--json', path], ['metrics.critiques.0.score']);
    expectRefused(box, ['record', 'forge'], ['--json FILE'], 2);
  });
});
