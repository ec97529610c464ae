import type { BatchRequest } from '../../src/session/index.js';
import { createFileSession, type Session } from '../../src/index.js';

/**
 * A session of `rounds` closed rounds in `dir`, written in one batch: a
 * baseline of one HIGH gap a round, then each round resolves one of them
 * and opens a LOW gap (weighted net +3, so every round is CONVERGING and
 * nothing stops the session early). The open count stays at `rounds`.
 */
export function longSession(dir: string, rounds: number): Session {
  const session = createFileSession(dir, { maxRounds: rounds + 10 });
  const requests: BatchRequest[] = [];
  for (let i = 1; i <= rounds; i++) requests.push({ body: { type: 'gap.opened', data: { id: `H-${i}`, severity: 'HIGH', title: `baseline gap ${i}` } } });
  for (let r = 1; r <= rounds; r++) {
    requests.push({ body: { type: 'round.started', data: { round: r } } });
    requests.push({ body: { type: 'gap.moved', data: { id: `H-${r}`, to: 'RESOLVED' } } });
    requests.push({ body: { type: 'gap.opened', data: { id: `L-${r}`, severity: 'LOW', title: `found in round ${r}` } } });
    requests.push({ body: { type: 'round.closed', data: { round: r } } });
  }
  session.recordAll(requests);
  return session;
}
