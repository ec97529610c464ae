import { STATE_CLASS } from './rules.js';
import type { Gap, RoundFigures, SessionView } from './view.js';

/*
 * Fix-break cycles, named as causes (they change no state: the machine's
 * transitions are the gap rules', and a cycle shows in its figures already; what
 * the figures cannot say is *which* gap keeps coming back). Two signs:
 * a gap resolved and reopened again and again (ping-pong), and an open
 * count that goes back and forth between two values round after round
 * (the questions policy's oscillation check, applied to the gaps).
 *
 * Everything here reads what the head keeps (gaps not closed, the open
 * counts of the last closes), so `next` answers it from the head checkpoint; no zod, no
 * statechart.
 */

/** How many reopens after a resolve name a gap when the session set none. */
export const DEFAULT_PING_PONG = 2;

/** How many closed rounds an alternating open count must span to be named. */
export const ALTERNATING_ROUNDS = 4;

/** A gap named for ping-pong: how often it was resolved and reopened. */
export interface PingPongGap {
  id: string;
  resolves: number;
  reopens: number;
}

/** An open count alternating between two values over the last closed rounds, oldest first. */
export interface AlternatingOpenCount {
  fromRound: number;
  toRound: number;
  openCounts: number[];
}

/** The reopens that name a gap in this session. */
export function pingPongThreshold(view: Pick<SessionView, 'settings'>): number {
  return view.settings?.pingPong ?? DEFAULT_PING_PONG;
}

function named(gap: Gap): PingPongGap {
  return { id: gap.id, resolves: gap.resolves ?? 0, reopens: gap.reopens ?? 0 };
}

/**
 * The gaps still to work on (open or parked) that were reopened the
 * session's threshold of times or more, in inventory order. A gap resolved
 * again drops out: the cycle it was in is over, or will show again.
 */
export function pingPongGaps(view: Pick<SessionView, 'settings' | 'gaps'>): PingPongGap[] {
  const threshold = pingPongThreshold(view);
  return [...view.gaps.values()].filter((gap) => STATE_CLASS[gap.state] !== 'closed' && (gap.reopens ?? 0) >= threshold).map(named);
}

/** The gaps a closing round reopened whose reopens reached the threshold with it: what its verdict names. */
export function pingPongIn(view: Pick<SessionView, 'settings' | 'gaps'>, round: Pick<RoundFigures, 'newGaps'>): PingPongGap[] {
  const threshold = pingPongThreshold(view);
  const reopened = new Set(round.newGaps.filter((entry) => entry.reopened).map((entry) => entry.id));
  return [...reopened].flatMap((id) => {
    const gap = view.gaps.get(id);
    return gap !== undefined && STATE_CLASS[gap.state] !== 'closed' && (gap.reopens ?? 0) >= threshold ? [named(gap)] : [];
  });
}

/**
 * The open count at the end of the last ALTERNATING_ROUNDS closed rounds
 * (`closing`: the open count of a round closing now, counted as the last),
 * when it alternates between two values (5, 3, 5, 3); null otherwise.
 */
export function alternatingOpenCount(view: Pick<SessionView, 'openEnds'>, closing?: { round: number; openEnd: number }): AlternatingOpenCount | null {
  const last = [...view.openEnds, ...(closing ? [closing] : [])].slice(-ALTERNATING_ROUNDS);
  if (last.length < ALTERNATING_ROUNDS) return null;
  const counts = last.map((r) => r.openEnd);
  const alternates = counts.every((count, i) => i < 2 || count === counts[i - 2]) && counts[0] !== counts[1];
  return alternates ? { fromRound: last[0]!.round, toRound: last.at(-1)!.round, openCounts: counts } : null;
}

/** `GAP-3 (resolved 2×, reopened 2×)` for each gap, joined. */
export function pingPongWords(gaps: readonly PingPongGap[]): string {
  return gaps.map((gap) => `${gap.id} (resolved ${gap.resolves}×, reopened ${gap.reopens}×)`).join(', ');
}

/** The open counts, as people read them: `5, 3, 5, 3 over rounds 2-5`. */
export function alternatingWords(alternating: AlternatingOpenCount): string {
  return `${alternating.openCounts.join(', ')} over rounds ${alternating.fromRound}-${alternating.toRound}`;
}

/** What a round close names: the gaps that ping-ponged in it, and an open count alternating up to it. */
export interface ClosingCauses {
  pingPong: PingPongGap[];
  alternating: AlternatingOpenCount | null;
}

export function closingCauses(view: SessionView, round: RoundFigures, openEnd: number): ClosingCauses {
  return { pingPong: pingPongIn(view, round), alternating: alternatingOpenCount(view, { round: round.round, openEnd }) };
}

/** The causes in words, one each (empty: none). */
export function causeWords({ pingPong, alternating }: ClosingCauses): string[] {
  return [
    ...(pingPong.length > 0 ? [`ping-pong: ${pingPongWords(pingPong)} reopened after being resolved`] : []),
    ...(alternating ? [`open count alternating: ${alternatingWords(alternating)}`] : []),
  ];
}

/** The causes as they stand (the prompt's cause analysis): the gaps still in a cycle, and an open count alternating. */
export function standingCauses(view: SessionView): string[] {
  const gaps = pingPongGaps(view);
  const alternating = alternatingOpenCount(view);
  return [
    ...(gaps.length > 0 ? [`Ping-pong: ${pingPongWords(gaps)}: fixed and broken again; look at why the fix does not hold`] : []),
    ...(alternating ? [`Open count alternating (${alternatingWords(alternating)}): work undone as fast as it is done`] : []),
  ];
}

/** Whether a verification run passed: it exited 0 within its time limit. */
export function verificationPassed(run: { exitCode: number | null; timedOut: boolean }): boolean {
  return run.exitCode === 0 && !run.timedOut;
}
