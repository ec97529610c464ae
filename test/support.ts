import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import { createMemorySession, type Session, type SessionSettings } from '../src/index.js';

/** The severity weights, restated here so the tests recompute figures independently of the code (R23: untriaged weighs as MEDIUM). */
export const WEIGHT = { CRITICAL: 16, HIGH: 4, MEDIUM: 2, LOW: 1, UNTRIAGED: 2 } as const;

/** R9 and R10, restated: what one gap in each state counts toward the open count. */
export const FACTOR = {
  OPEN: 1,
  IN_PROGRESS: 1,
  BLOCKED: 1,
  PROPOSED: 1,
  NEEDS_REVISION: 1,
  USER_DEFERRED: 0.5,
  ACCEPTED: 0,
  RESOLVED: 0,
  WONT_FIX: 0,
  DUPLICATE: 0,
  SPLIT: 0,
} as const;
export type Sev = keyof typeof WEIGHT;

/** A memory session with a fixed clock and counting ids, so two runs are identical. */
export function newSession(settings: SessionSettings = {}): Session {
  let tick = 0;
  return createMemorySession(settings, {
    clock: () => new Date(Date.UTC(2026, 0, 12, 9, 0, tick++)),
    newId: () => `e${tick}`,
  });
}

/** Opens `count` baseline gaps named `${prefix}-1…` of one severity. */
export function baseline(session: Session, severity: Sev, count: number, prefix = `B-${severity}`): string[] {
  const ids = Array.from({ length: count }, (_, i) => `${prefix}-${i + 1}`);
  for (const id of ids) session.openGap(id, severity);
  return ids;
}

export interface RoundPlan {
  resolve?: string[];
  open?: [id: string, severity: Sev][];
}

/** Plays one round: resolves gaps, opens new ones, closes it. Returns the closed round's figures. */
export function playRound(session: Session, plan: RoundPlan) {
  if (!session.view.roundOpen) session.startRound();
  for (const id of plan.resolve ?? []) session.moveGap(id, 'RESOLVED');
  for (const [id, severity] of plan.open ?? []) session.openGap(id, severity);
  session.closeRound();
  return session.view.rounds.at(-1)!;
}

/** The weighted net of a plan, from the severity weights and the severities the test itself assigned. */
export function expectedWeightedNet(resolved: Sev[], opened: Sev[]): number {
  const sum = (list: Sev[]) => list.reduce((total, s) => total + WEIGHT[s], 0);
  return sum(resolved) - sum(opened);
}

/** A maker of temporary folders named `<prefix>…`, each removed after the test that made it. */
export function tempDirs(prefix: string): () => string {
  const made: string[] = [];
  afterEach(() => {
    for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  return () => {
    const dir = mkdtempSync(join(tmpdir(), prefix));
    made.push(dir);
    return dir;
  };
}

/** A fixed clock and counting ids, so two sessions played alike write the same bytes. */
export function fixedStamps() {
  let tick = 0;
  return { clock: () => new Date(Date.UTC(2026, 0, 12, 9, 0, 0, tick++)), newId: () => `e${tick}` };
}

/** Plays one more round into DIVERGENCE_WARNING (six new gaps spawned by `spawnedBy`, one CRITICAL): the prompt then has everything to show. */
export function diverge(session: Session, spawnedBy: string): Session {
  session.startRound();
  for (let i = 0; i < 6; i++) session.openGap(`NEW-${i}`, i % 2 ? 'MEDIUM' : 'LOW', { title: `spawned ${i}`, spawnedBy });
  session.openGap('NEW-C', 'CRITICAL', { title: 'a critical one' });
  session.closeRound();
  if (session.view.machine.state !== 'DIVERGENCE_WARNING') throw new Error(`expected DIVERGENCE_WARNING, not ${session.view.machine.state}`);
  return session;
}
