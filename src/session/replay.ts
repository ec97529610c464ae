import type { GapflowEvent, SettledEvent } from '../../events/index.js';
import { auditHistory, decodeView, fold, settle, startFold, type Finding, type Folding, type SessionView } from '../core/index.js';
import { viewFormat } from './formats.js';
import { checkLogText, checkpointsOf, linesOf, inspectLog, LogError, type EventStore, type LogInspection } from '../log/index.js';
import { catchUp } from './writes.js';

/** What a reader says of an empty log: which holds no session, and both ways out. */
function emptyLog(where: string): string {
  return `${where} line 1: the log is empty, so no session lives there: \`gapflow init\` starts one (or \`gapflow repair\` removes the file)`;
}

/**
 * Rebuilds the view from stored events. History is a fact (R19):
 * the lines were checked when they were read (whole, chained, in schema),
 * and each event is applied as it was recorded, never judged again by
 * today's rules (`verify` audits them). `observe` sees each event, settled,
 * with the view just before it.
 */
export function replay(events: readonly GapflowEvent[], where = 'log', observe?: (view: SessionView, event: SettledEvent) => void): SessionView {
  if (events.length === 0) throw new LogError(emptyLog(where), 1);
  return fold(events, (view, event) => {
    const settled = settle(view, event);
    if (settled) observe?.(view, settled);
    return settled;
  });
}

/**
 * The view a store holds, read from its checkpoint and the events after it
 * (a replay of every event when it has none that matches, or one that does
 * not decode). `fresh`: no checkpoint was used, so one is worth writing.
 * With no checkpoint at all, a store that can fold the events as it reads
 * them does (`resume`'s `fold`), so a long log is never held as a list.
 */
export function resumeView(store: EventStore): { view: SessionView; fresh: boolean } {
  const folded: { by: Folding<GapflowEvent> | null } = { by: null };
  const startReplay = () => {
    folded.by = startFold((view, event: GapflowEvent) => settle(view, event));
    return (event: GapflowEvent) => folded.by!.take(event);
  };
  // A store without checkpoints (memory, a caller's own) is read whole.
  const { checkpoint, events } = checkpointsOf(store).resume(viewFormat(), startReplay);
  if (checkpoint === null && folded.by !== null) {
    if (folded.by.taken === 0) throw new LogError(emptyLog(store.location), 1);
    return { view: folded.by.finish(), fresh: false };
  }
  const base = checkpoint === null ? null : decodeView(checkpoint.body);
  if (base !== null && base.lastSeq === checkpoint?.seq) {
    return { view: events.length > 0 ? catchUp(base, events).view : base, fresh: false };
  }
  return { view: replay(checkpoint === null ? events : store.read(), store.location), fresh: checkpoint !== null };
}

/**
 * What `verifyFileSession` found: `problem` names the first damaged line
 * (`line`), or is null; `findings` are where today's rules part ways with
 * the recorded history (an audit: the log stands as it is).
 */
export interface Verification extends Omit<LogInspection, 'message'> {
  problem: string | null;
  line: number | null;
  findings: Finding[];
}

/**
 * Checks a session's log without changing it: every line's bytes, JSON,
 * version, seq, schema and checksum chain (damage: the first bad line), then
 * an audit of every event under today's rules (findings, which never make
 * the log unreadable). Never throws for a bad line.
 */
export function verifyFileSession(dir: string): Verification {
  return verified(inspectLog(dir));
}

/** `verifyFileSession` for a session in any store that keeps sealed lines (a database stream). */
export function verifyStoreSession(store: EventStore): Verification {
  const lines = linesOf(store);
  if (lines === null) throw new LogError(`${store.location} keeps events, not sealed lines: there is no chain to verify`);
  const text = lines.text();
  const checked = checkLogText(text);
  const { fault } = checked;
  const message = fault === null ? null : `${store.location} line ${fault.line}: ${fault.reason}`;
  return verified({ location: store.location, bytes: Buffer.byteLength(text), ...checked, message });
}

function verified({ message, ...found }: LogInspection): Verification {
  if (message !== null) return { ...found, problem: message, line: found.fault?.line ?? null, findings: [] };
  if (found.events.length === 0) return { ...found, problem: emptyLog(found.location), line: 1, findings: [] };
  return { ...found, problem: null, line: null, findings: auditHistory(found.events).findings };
}
