import type { EventBodyInput, GapflowEvent } from '../../events/index.js';
import {
  closedIndexLines,
  DamagedIndex,
  extendClosedIndex,
  type ClosedGap,
  type ClosedIndexParts,
  type Gap,
  type IndexMark,
  type SessionView,
} from '../core/lean.js';

/*
 * What a write decided on the head needs beyond the head itself: whether
 * the index is the one the head names, the closed gaps a request names put
 * back as the index knows them, and the index lines a write adds. Shared by
 * the session's head writes (head-write.ts) and the bin's short path for
 * gap writes (src/cli/gap-quick.ts), which loads no schema.
 */

export function sameMark(a: IndexMark, b: IndexMark): boolean {
  return a.seq === b.seq && a.sum === b.sum;
}

/**
 * The head with the closed gaps the requests name put back as the index
 * (`lookUp`) knows them (id, severity, state), so the rules judge them as
 * the whole view would; null when a request moves a closed gap (a reopen
 * needs the gap whole), names as the gap it duplicates one withdrawn or
 * split (the refusal names where that one went), or the index turns out
 * damaged where it is read.
 */
export function withClosedGaps(head: SessionView, bodies: readonly EventBodyInput[], lookUp: (id: string) => ClosedGap | null): SessionView | null {
  try {
    return namingClosedGaps(head, bodies, lookUp);
  } catch (error) {
    if (error instanceof DamagedIndex) return null;
    throw error;
  }
}

function namingClosedGaps(head: SessionView, bodies: readonly EventBodyInput[], lookUp: (id: string) => ClosedGap | null): SessionView | null {
  const named = new Map<string, Gap>();
  for (const body of bodies) {
    const data = (body as { data?: Record<string, unknown> }).data ?? {};
    for (const key of ['id', 'spawnedBy', 'blockedBy', 'of']) {
      const id = data[key];
      if (typeof id !== 'string' || head.gaps.has(id)) continue;
      const closed = named.get(id) ?? lookUp(id);
      if (closed === null) continue;
      // Checked for every request that names it, not only the first: a batch may name a closed gap, then move it.
      if (body.type === 'gap.moved' && key === 'id') return null;
      // A duplicate of a gap itself withdrawn or split is refused naming where that gap went, which the index does not keep.
      if (key === 'of' && (closed.state === 'DUPLICATE' || closed.state === 'SPLIT')) return null;
      named.set(id, { title: '', spawnedBy: null, blocking: false, openedInRound: 0, reason: null, blockedBy: null, ...closed });
    }
  }
  return named.size === 0 ? head : { ...head, gaps: new Map([...head.gaps, ...named]) };
}

/**
 * The index `parts` hold with `lines` added: the bytes an index write
 * takes. Reads it whole (a write that closes a gap rewrites it whole);
 * null when it can no longer be read as it was, or a bucket it changes is
 * damaged (the head then names no index, and the next write rebuilds one).
 */
export function extendedIndex(parts: ClosedIndexParts, lines: string): Buffer | null {
  const body = parts.range(0, parts.bodyBytes);
  return body === null ? null : extendClosedIndex(body, lines);
}

/** The index lines for the gaps `appended` moved that end the batch closed (none was listed before: a listed gap is never moved on the head). */
export function newlyClosedLines(view: SessionView, appended: readonly GapflowEvent[]): string {
  const moved = [...new Set(appended.flatMap((event) => (event.type === 'gap.moved' ? [event.data.id] : [])))];
  return closedIndexLines(moved.map((id) => view.gaps.get(id)).filter((gap): gap is Gap => gap !== undefined));
}
