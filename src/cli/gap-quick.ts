import { closeSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { nanoid } from 'nanoid';
import type { Decided, EventBodyInput, SettledEvent } from '../../events/index.js';
import {
  canonicalWord,
  EVENT_VERSION,
  GAP_ID_MAX,
  GAP_ID_PATTERN,
  GAP_STATE_WORDS,
  PLAIN_TEXT_PATTERN,
  REASON_MAX,
  SEVERITY_WORDS,
  TITLE_MAX,
} from '../../events/lean.js';
import {
  changeSeverity,
  closedIndexLookUp,
  decideGapEvent,
  decodeMarkedHead,
  encodeHead,
  HEAD_ROUNDS,
  moveGap,
  openGap,
  type ClosedIndexParts,
  type SessionView,
} from '../core/lean.js';
import {
  appendSealed,
  CLOSED_FILE,
  hasSessionConfig,
  HEAD_FILE,
  LOG_FILE,
  openCheckpointParts,
  openRegularFile,
  OutcomeUnknown,
  readCurrent,
  readRange,
  withLock,
  writeCheckpoint,
} from '../log/lean.js';
import { gapMovedLine, gapOpenedLine, renderAnnouncement, severityChangedLine } from '../render/lean.js';
import { closedIndexFormat, headFormat } from '../session/formats.js';
import { extendedIndex, newlyClosedLines, sameMark, withClosedGaps } from '../session/head-decide.js';
import type { CliIO } from './common.js';
import { sessionDir } from './session-dir.js';

/*
 * The bin's short path for `gap open|move|severity`: the write decided on
 * the head checkpoint, as the full command decides it there
 * (src/session/head-write.ts), without loading zod, the statechart or
 * immer, whose start-up was most of a gap write's cost. It takes only what
 * it can judge by hand as the schema would (plain flags, values the
 * vocabulary names, text within its limits) and a write the head decides
 * alone (no round to start, no closed gap moved, nothing refused); anything
 * else, before anything is written, goes to the full command, which words
 * every refusal.
 */

const isGapId = (value: string | undefined): boolean => value !== undefined && value.length <= GAP_ID_MAX && GAP_ID_PATTERN.test(value);
const isText = (value: string | undefined, max: number): boolean => value === undefined || (value.length <= max && PLAIN_TEXT_PATTERN.test(value));

type GapData = Record<string, string | boolean>;

/** The flags each verb takes (besides `--dir`) and how many words follow the verb. */
const VERBS: Readonly<Record<string, { flags: Record<string, { type: 'string' | 'boolean' }>; words: number }>> = {
  open: { flags: { severity: { type: 'string' }, title: { type: 'string' }, 'spawned-by': { type: 'string' }, 'non-blocking': { type: 'boolean' } }, words: 1 },
  move: { flags: { reason: { type: 'string' }, 'blocked-by': { type: 'string' } }, words: 2 },
  severity: { flags: {}, words: 2 },
};

/** The request as the event schema would read it (defaults in, keys in its order); null when a hand check cannot say so. */
function requestOf(verb: string, words: string[], values: Record<string, string | boolean | undefined>): EventBodyInput | null {
  const text = (key: string) => (typeof values[key] === 'string' ? (values[key] as string) : undefined);
  const [id, word] = words;
  if (!isGapId(id)) return null;
  if (verb === 'open') {
    const severity = canonicalWord(text('severity'), SEVERITY_WORDS);
    const title = text('title') ?? '';
    const spawnedBy = text('spawned-by');
    if (severity === undefined || !isText(title, TITLE_MAX) || (spawnedBy !== undefined && !isGapId(spawnedBy))) return null;
    const data: GapData = { id: id!, severity, title, ...(spawnedBy === undefined ? {} : { spawnedBy }), blocking: values['non-blocking'] !== true };
    return { type: 'gap.opened', data } as EventBodyInput;
  }
  if (verb === 'severity') {
    const to = canonicalWord(word, SEVERITY_WORDS);
    return to === undefined ? null : ({ type: 'gap.severity_changed', data: { id: id!, to } } as EventBodyInput);
  }
  const to = canonicalWord(word, GAP_STATE_WORDS);
  const reason = text('reason');
  const blockedBy = text('blocked-by');
  if (to === undefined || !isText(reason, REASON_MAX) || (blockedBy !== undefined && !isGapId(blockedBy))) return null;
  const data: GapData = { id: id!, to, ...(reason === undefined ? {} : { reason }), ...(blockedBy === undefined ? {} : { blockedBy }) };
  return { type: 'gap.moved', data } as EventBodyInput;
}

/** A working copy of `view` that a gap event may be folded into: the parts a gap fold changes, copied. */
function workingCopy(view: SessionView): SessionView {
  const rounds = view.rounds.slice();
  const last = rounds.at(-1);
  if (last !== undefined) rounds[rounds.length - 1] = structuredClone(last);
  return { ...view, gaps: new Map([...view.gaps].map(([id, gap]) => [id, { ...gap }])), open: { ...view.open }, rounds, focus: [...view.focus] };
}

/**
 * Writes `gap …` from the head when it can, printing what the full command
 * prints; false, having written nothing, when the full command must run.
 */
export function gapFromHead(argv: string[], io: CliIO): boolean {
  const [verb, ...rest] = argv;
  const spec = verb === undefined ? undefined : VERBS[verb];
  if (spec === undefined) return false;
  let planned;
  try {
    const { values, positionals } = parseArgs({ args: rest, options: { ...spec.flags, dir: { type: 'string' } }, allowPositionals: true, strict: true });
    if (positionals.length !== spec.words) return false;
    const body = requestOf(verb!, positionals, values);
    planned = body === null ? null : plan(sessionDir(values, io), body);
  } catch {
    return false;
  }
  if (planned === null) return false;
  const written = append(planned);
  if (written === null) return false;
  // Written: from here on nothing may send the call to the full command, which would write it again.
  const { event, view } = planned;
  const id = (event.data as { id: string }).id;
  const line = () =>
    event.type === 'gap.opened'
      ? gapOpenedLine(view, id)
      : event.type === 'gap.moved'
        ? gapMovedLine(planned.head, view, id)
        : severityChangedLine(planned.head, view, id);
  io.stdout(renderAnnouncement({ events: [event], duplicate: false }, line));
  try {
    saveHead(planned, written);
  } catch {
    // Best effort, as every checkpoint: a head not written sends the next call the whole session's way.
  }
  return true;
}

interface Planned {
  dir: string;
  key: { end: number; seq: number; sum: string; lineBytes: number };
  lastLine: Buffer;
  head: SessionView;
  /** The closed gaps' index the head names, read in parts (the buckets a lookup needed, and the whole only if a gap closes). */
  index: ClosedIndexParts;
  mark: { seq: number; sum: string };
  event: SettledEvent;
  /** The head with the event folded in. */
  view: SessionView;
}

/** The event the head decides for `body`, folded into a working copy; null when the head is not current or cannot decide it alone. */
function plan(dir: string, body: EventBodyInput): Planned | null {
  // A session that asks for status.md after each write (or has a config to judge) is the full command's: it renders it.
  if (hasSessionConfig(dir)) return null;
  const current = readCurrent(dir, headFormat(), HEAD_FILE, join(dir, LOG_FILE));
  const marked = current === null ? null : decodeMarkedHead(current.body.toString('utf8'));
  const index = openCheckpointParts(dir, closedIndexFormat(), CLOSED_FILE);
  if (current === null || marked?.closed == null || index === null || !sameMark(marked.closed, index.key)) return null;
  const head = marked.view;
  // decide's own first rules (a session started, not COMPLETE): refusals are the full command's to word.
  if (head.settings === null || head.machine.state === 'COMPLETE') return null;
  const lookUp = closedIndexLookUp(index);
  const judged = lookUp === null ? null : withClosedGaps(head, [body], lookUp);
  if (judged === null) return null;
  let decided: Decided[];
  try {
    decided = decideGapEvent(judged, body as Parameters<typeof decideGapEvent>[1]);
  } catch {
    return null;
  }
  // A write that starts a round (R8) folds a round start: the full command does that.
  if (decided.length !== 1) return null;
  const event = { v: EVENT_VERSION, seq: head.lastSeq + 1, id: nanoid(), at: new Date().toISOString(), ...decided[0]! } as SettledEvent;
  const view = workingCopy(judged);
  view.lastSeq = event.seq;
  if (event.type === 'gap.opened') openGap(view, event);
  else if (event.type === 'gap.moved') moveGap(view, event);
  else if (event.type === 'gap.severity_changed') changeSeverity(view, event);
  const { key } = current;
  return { dir, key, lastLine: current.lastLine, head, index, mark: marked.closed, event, view };
}

/** Appends the planned event under the log's lock if the log still ends with the head's line; null (nothing written) if it does not. */
function append(planned: Planned): { end: number; sum: string; lastLine: Buffer } | null {
  const location = join(planned.dir, LOG_FILE);
  const { key } = planned;
  try {
    return withLock(location, (lease) => {
      if (!endsWith(location, key.end, planned.lastLine)) return null;
      const { end, lastLine } = appendSealed(location, { end: key.end, seq: key.seq, sum: key.sum }, [planned.event], lease);
      return { end: end.end, sum: end.sum, lastLine };
    });
  } catch (error) {
    // A write that failed and could not be cut back may be in the log: the full command must not write it again.
    if (error instanceof OutcomeUnknown) throw error;
    // No lock in time, or a write that failed and was cut back: nothing was written.
    return null;
  }
}

/** Whether the log at `location` is `end` bytes long and ends with `lastLine`. */
function endsWith(location: string, end: number, lastLine: Buffer): boolean {
  const file = openRegularFile(location, false, 'the log must be a regular file at that path itself');
  try {
    return file.size === end && readRange(file.fd, end - lastLine.length, lastLine.length).equals(lastLine);
  } finally {
    closeSync(file.fd);
  }
}

/** The head the write leaves, with the index it names (rewritten when a gap closed), as a head write on the whole view leaves them. */
function saveHead(planned: Planned, written: { end: number; sum: string; lastLine: Buffer }): void {
  const { dir, view, event } = planned;
  // Another writer has appended since: its head will cover that.
  if (statSync(join(dir, LOG_FILE)).size !== written.end) return;
  const key = (format: string) => ({ format, seq: event.seq, end: written.end, lineBytes: written.lastLine.length, sum: written.sum });
  const added = newlyClosedLines(view, [event]);
  let mark: { seq: number; sum: string } | null = planned.mark;
  if (added !== '') {
    const index = extendedIndex(planned.index, added);
    mark = index === null || writeCheckpoint(dir, key(closedIndexFormat()), index, CLOSED_FILE) === null ? null : { seq: event.seq, sum: written.sum };
  }
  writeCheckpoint(dir, key(headFormat()), encodeHead(view, HEAD_ROUNDS, mark), HEAD_FILE);
}
