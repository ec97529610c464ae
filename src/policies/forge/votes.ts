/** One participant's vote, as R17 reads forge's reply format (`AGREES:`, `SCORE:`, `CONCERNS:`). */
export interface Vote {
  participant: string;
  agrees: boolean;
  /** 0..100; 50 when missing or unreadable (R17). */
  score: number;
  concerns: string[];
}

const clamp = (x: number) => Math.min(100, Math.max(0, x));

/**
 * `AGREES: yes / SCORE: 85 / CONCERNS: - …`, tolerating case and spacing and
 * `85/100`-style scores (R17). A missing or unreadable score is 50; every
 * score is clamped to 0..100.
 */
export function parseVote(reply: string, participant: string): Vote {
  const lines = reply.split(/\r?\n/);
  const agrees = lines.some((l) => /^\s*agrees\s*:\s*yes\b/i.test(l));
  const scoreLine = lines.find((l) => /^\s*score\s*:/i.test(l));
  return { participant, agrees, score: scoreLine === undefined ? 50 : readScore(scoreLine), concerns: concernsOf(lines) };
}

function readScore(line: string): number {
  const value = line.slice(line.indexOf(':') + 1).trim();
  const match = /^(-?\d+(?:\.\d+)?)\s*(?:\/\s*(\d+(?:\.\d+)?))?\s*%?$/.exec(value);
  if (!match) return 50;
  const [, amount, outOf] = match;
  const scale = outOf === undefined ? 1 : Number(outOf) === 0 ? Number.NaN : 100 / Number(outOf);
  const score = Number(amount) * scale;
  return Number.isFinite(score) ? clamp(Math.round(score)) : 50;
}

/** A vote's concerns: bullet lines after the CONCERNS line, without `none`. */
function concernsOf(lines: readonly string[]): string[] {
  const start = lines.findIndex((l) => /concerns/i.test(l));
  if (start < 0) return [];
  return lines
    .slice(start + 1)
    .map((l) => l.trim())
    .filter((l) => l.startsWith('-') || l.startsWith('*'))
    .map((l) => l.replace(/^[-* ]+/, ''))
    .filter((s) => s !== '' && s.toLowerCase() !== 'none');
}
