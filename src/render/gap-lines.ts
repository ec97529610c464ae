import type { GapflowEvent } from '../../events/index.js';
import { countedMove, formatCount, type MoveEffect, type SessionView, toStateJson } from '../core/index.js';

/* What a writing command answers: the lines a gap command prints, and the JSON every writing command prints with `--json`. */

/** What a writing command prints: a retry's "already recorded", else a round it started on the way, then its own line. */
export function renderAnnouncement(recorded: { events: readonly GapflowEvent[]; duplicate: boolean }, line: () => string): string {
  const { events, duplicate } = recorded;
  if (duplicate) {
    const event = events.at(-1)!;
    return `Already recorded: event ${event.id} is seq ${event.seq} (${event.type}); nothing was appended.\n`;
  }
  const started = events.flatMap((e) => (e.type === 'round.started' && events.length > 1 ? [`Round ${e.data.round} started.\n`] : []));
  return `${started.join('')}${line()}\n`;
}

/** What a writing command prints with `--json`: the events it recorded (marked when a retry appended none) and the state they leave. */
export function announcementJson(recorded: { events: readonly GapflowEvent[]; duplicate: boolean }, view: SessionView): object {
  const { events, duplicate } = recorded;
  const state = toStateJson(view);
  return duplicate ? { events, duplicate, state } : { events, state };
}

export function gapOpenedLine(view: SessionView, id: string): string {
  const g = view.gaps.get(id)!;
  const when = g.openedInRound === 0 ? 'at baseline' : `in round ${g.openedInRound}`;
  return `Opened ${g.id} (${g.severity}) ${when}; open count ${formatCount(view.open.count)}`;
}

const COUNTED: Readonly<Record<MoveEffect, string>> = {
  resolved: ' (counts as resolved)',
  withdrawn: ' (withdrawn: counts as neither resolved nor new)',
  reopened: ' (reopened: counts as new)',
  none: '',
};

/** A move, and what it counted as in the round's figures. */
export function gapMovedLine(before: SessionView, after: SessionView, id: string): string {
  const from = before.gaps.get(id)?.state;
  const g = after.gaps.get(id)!;
  const counted = from ? COUNTED[countedMove(after, from, g.state)] : '';
  const of = g.duplicateOf ? ` of ${g.duplicateOf}` : '';
  return `${g.id}: ${from} -> ${g.state}${of}${counted}; open count ${formatCount(after.open.count)}`;
}

/** A split: the parts opened, and the open counts after. */
export function gapSplitLine(after: SessionView, id: string): string {
  const parts = (after.gaps.get(id)?.splitInto ?? []).map((part) => `${part} (${after.gaps.get(part)?.severity})`);
  return `${id}: split into ${parts.join(', ')}; open count ${formatCount(after.open.count)}, weighted ${formatCount(after.open.weighted)}`;
}

/** A rename: nothing counted. */
export function gapRenamedLine(from: string, to: string): string {
  return `${from} is now ${to} (a rename counts nothing; ${from} is never used again)`;
}

export function severityChangedLine(before: SessionView, after: SessionView, id: string): string {
  const g = after.gaps.get(id)!;
  return `${g.id}: ${before.gaps.get(id)?.severity} -> ${g.severity}; weighted open ${formatCount(after.open.weighted)}`;
}
