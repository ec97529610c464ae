/**
 * `npm run example`: a mediator that embeds gapflow in-process (no CLI, no
 * files). A simulated engineer works the open gaps, a simulated reviewer
 * accepts or sends back its proposals and finds new gaps, both drawing on one
 * seeded random stream, so a seed always plays the same session. The mediator
 * asks gapflow what to do before each round (`loopStep`, the same answer as
 * `gapflow next --json`); on DIVERGENCE_WARNING a scripted user decides. Each
 * round's verdict is printed, then status.md.
 *
 *   npm run example                 # seed 7
 *   npm run example -- --seed 42    # another session
 */
import { createMemorySession, formatCount, loopStep, render, SEVERITIES, standingStopRequest, type Session, type Severity } from '../src/index.js';

/** mulberry32: a small, well-known seeded PRNG; `Math.random` cannot be seeded. */
function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const seedAt = process.argv.indexOf('--seed');
const seed = seedAt >= 0 ? Number(process.argv[seedAt + 1]) : 7;
if (!Number.isInteger(seed)) {
  console.error(`mediator: --seed takes a whole number, not "${process.argv[seedAt + 1] ?? ''}"`);
  process.exit(2);
}
const random = seededRandom(seed);
const chance = (p: number) => random() < p;
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;

// A fixed clock and counting ids: the same seed prints the same status.md, timestamps included.
let tick = 0;
const session: Session = createMemorySession({ preset: 'auto' }, { clock: () => new Date(Date.UTC(2026, 0, 12, 9, 0, tick++)), newId: () => `ev-${tick}` });
const say = (line: string) => process.stdout.write(`${line}\n`);

let gapNumber = 0;
function newGapId(area: string): string {
  gapNumber += 1;
  return `GAP-${area}-${String(gapNumber).padStart(3, '0')}`;
}

// The baseline: what the first draft of the spec left open.
const BASELINE: [string, Severity, string][] = [
  ['FLOW', 'HIGH', 'Round lifecycle undefined'],
  ['FLOW', 'HIGH', 'No stall detection'],
  ['API', 'HIGH', 'Parser contract missing'],
  ['UX', 'MEDIUM', 'Status output format unclear'],
  ['UX', 'MEDIUM', 'No progress display'],
  ['COMM', 'MEDIUM', 'Agent handoff format'],
  ['COMM', 'LOW', 'Message ids not unique'],
  ['DOC', 'LOW', 'Glossary missing'],
];
for (const [area, severity, title] of BASELINE) session.openGap(newGapId(area), severity, { title });
session.subscribe(({ changes }) => {
  for (const change of changes) say(`  state: ${change.from} -> ${change.to} (${change.reason})`);
});

/** How likely the engineer is to get a gap to a proposal in one round, and the reviewer to accept it. */
const WORK = { CRITICAL: 0.6, HIGH: 0.45, MEDIUM: 0.55, LOW: 0.7, UNTRIAGED: 0.5 } as const satisfies Record<Severity, number>;
const ACCEPT = 0.75;

/** The engineer works the focus first, then the open gaps by severity. */
function engineer(): void {
  const step = loopStep(session.view);
  const order = [...step.focus, ...SEVERITIES.flatMap((s) => step.openGaps[s]).filter((id) => !step.focus.includes(id))];
  for (const id of order) {
    const gap = session.view.gaps.get(id)!;
    if (!chance(WORK[gap.severity])) continue;
    if (gap.state === 'OPEN') session.moveGap(id, 'IN_PROGRESS');
    if (gap.state === 'OPEN' || gap.state === 'IN_PROGRESS' || gap.state === 'NEEDS_REVISION') session.moveGap(id, 'PROPOSED');
  }
}

/** The reviewer accepts or sends back each proposal, and finds new gaps (now and then a CRITICAL one). */
function reviewer(round: number): void {
  for (const gap of [...session.view.gaps.values()].filter((g) => g.state === 'PROPOSED')) {
    if (chance(ACCEPT)) {
      session.moveGap(gap.id, 'ACCEPTED');
      session.moveGap(gap.id, 'RESOLVED');
      if (chance(0.35)) {
        const severity = pick<Severity>(['MEDIUM', 'LOW', 'LOW']);
        session.openGap(newGapId('REV'), severity, { title: `Follow-up to ${gap.id}`, spawnedBy: gap.id, blocking: false });
      }
    } else {
      session.moveGap(gap.id, 'NEEDS_REVISION', { reason: 'reviewer: the proposal misses an edge case' });
    }
  }
  if (round >= 3 && chance(0.25)) session.openGap(newGapId('SEC'), 'CRITICAL', { title: 'Untrusted input reaches the parser' });
  if (chance(0.3)) session.openGap(newGapId('REV'), pick<Severity>(['HIGH', 'MEDIUM']), { title: 'Found in review' });
}

/** The user's script on DIVERGENCE_WARNING: narrow scope when the round spawned side work, else focus on CRITICAL, else accept. */
function scriptedUser(): void {
  const { openGaps } = loopStep(session.view);
  const stillOpen = new Set([...openGaps.MEDIUM, ...openGaps.LOW]);
  const sideWork = session.view.rounds
    .at(-1)!
    .newGaps.map((g) => g.id)
    .filter((id) => stillOpen.has(id));
  const critical = openGaps.CRITICAL;
  if (sideWork.length > 0) {
    say(`  user: narrow scope, deferring ${sideWork.join(', ')}`);
    session.makeDecision('narrow_scope', { gaps: sideWork });
  } else if (critical.length > 0) {
    say(`  user: prioritize the CRITICAL gaps ${critical.join(', ')}`);
    session.makeDecision('prioritize_critical');
  } else {
    say('  user: accept the complexity as the new baseline');
    session.makeDecision('accept_complexity');
  }
}

say(`gapflow mediator example, seed ${seed}: ${BASELINE.length} baseline gaps, engineer and reviewer agents, a scripted user`);
for (;;) {
  const step = loopStep(session.view, standingStopRequest(session.view));
  if (step.action === 'stop') {
    say(`\nStop: ${step.reason}`);
    break;
  }
  if (step.action === 'ask_user') {
    say(`  decision due: ${step.reason}`);
    scriptedUser();
    continue;
  }
  if (step.openGapCount > 0 && SEVERITIES.every((s) => step.openGaps[s].length === 0)) {
    // Only deferred side work is left: no round can shrink it, so the user signs off.
    say('  user: only deferred work is left; approve');
    session.makeDecision('approve', { rationale: 'only deferred side work is left' });
    continue;
  }
  const round = step.round + 1;
  session.startRound();
  engineer();
  reviewer(round);
  session.closeRound();
  const r = session.view.rounds.at(-1)!;
  say(`Round ${round}: resolved ${r.resolved}, new ${r.new}, weighted net ${r.weightedNet}, open ${formatCount(r.openEnd ?? 0)} -> ${r.state}`);
}
say('');
process.stdout.write(render.renderStatus(session.view));
