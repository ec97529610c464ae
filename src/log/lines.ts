import {
  AGENT_SESSION_MAX,
  COMBINED_TEXT_MAX,
  CONVERGENCE_STATES,
  DecisionKind,
  EVENT_VERSION,
  formatIssue,
  GAP_ID_MAX,
  GAP_ID_PATTERN,
  GapflowEvent,
  GapState,
  Outcome,
  PLAIN_TEXT_PATTERN,
  READ_AS_CURRENT,
  REASON_MAX,
  ResumableState,
  RoundKind,
  Severity,
  SOURCE_NAME_MAX,
  SOURCE_NAME_PATTERN,
  TITLE_MAX,
  upcast,
  Verdict,
  VERDICT_TEXT_MAX,
  versionProblem,
} from '../../events/index.js';
import { chainSum, startChainCheck, storedSum, sumMatches, SUM_PREFIX, SUM_SUFFIX_LENGTH } from './chain.js';
import { formatBytes, MAX_LINE_BYTES, MAX_LOG_BYTES } from './files.js';
import { LogError, VersionConflict, type EventSink, type Expected } from './types.js';

const { isAscii, isUtf8 } = process.getBuiltinModule('node:buffer');

/*
 * Line format (version 2): the event's JSON with the envelope first, then a
 * checksum over it chained to the line before:
 *   {"v":2,"seq":4,"id":"…","at":"…","type":"…","data":{…},"sum":"5f0c…"}
 * `sum` is the first 16 hex digits of sha256(previous sum + the line without
 * its `,"sum":"…"` part); the first line chains from the empty string. So an
 * edited, dropped, duplicated or reordered line breaks the chain at that line.
 * The checksum guards against accidents and careless edits, not forgers: it
 * has no key.
 */

/** What is wrong with one line. `integrity`: the bytes are not what a writer sealed; `content`: sealed, but not an event this build takes. */
export interface LineFault {
  line: number;
  /** Byte offset where the line starts. */
  offset: number;
  reason: string;
  /** The line's bytes are not as sealed (or it has no newline): a torn write looks like this. */
  unsealed: boolean;
}

/** Where a scan starts: after a known line, whose checksum the next one chains to. */
export interface ChainPoint {
  seq: number;
  sum: string;
  /** True once a checksummed line was seen: from then on every line needs one. */
  sealed: boolean;
}

export const CHAIN_START: ChainPoint = { seq: 0, sum: '', sealed: false };

export interface Scan {
  /** The good events, in order; empty when they went to a sink instead (`scanBytes`' `sink`). */
  events: GapflowEvent[];
  /** The point after the last good line. */
  end: ChainPoint;
  /** Bytes of the good lines (from where the scan started). */
  goodBytes: number;
  /** Bytes of the last good line, newline included (0 when none). */
  lastLineBytes: number;
  fault: LineFault | null;
  /** The fault is on the last line only and its bytes are not as sealed: an interrupted write that `repair` may cut. */
  torn: boolean;
  /** 'parallel' when the checksum chain was walked on a worker thread (a long log); absent: on the reader's own. */
  chainWalked?: 'parallel';
}

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * Reads log bytes line by line, stopping at the first line that is not a
 * good event: the checks run in the order a reader learns most from
 * (bytes, JSON, version, seq, schema, checksum), but whether a last line is
 * torn depends only on whether its bytes are as sealed. Which checksums are
 * checked depends on `depth` (see ScanDepth).
 *
 * With `sink`, each good event goes to a sink it makes (`sink()`) instead of
 * into `events`, so a reader that folds the log as it reads holds no list of
 * every event (on a long log, the list was most of a cold read's memory and
 * much of its garbage collection). A scan that reads the lines again (the
 * chain walk on a worker could not vouch for them) asks for a new sink, and
 * only the last one made has seen the scan's events; after a fault, what it
 * saw is the good lines before the fault.
 */
export function scanBytes(
  bytes: Uint8Array,
  from: ChainPoint = CHAIN_START,
  startOffset = 0,
  depth: ScanDepth = 'sealed',
  parallel: Parameters<typeof startChainCheck>[2] = {},
  sink?: () => EventSink,
): Scan {
  if (bytes.length > MAX_LOG_BYTES) {
    throw new LogError(`the log is ${formatBytes(bytes.length)}, over the ${formatBytes(MAX_LOG_BYTES)} limit this gapflow reads`);
  }
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
  // All ASCII (as gapflow's own lines mostly are): a line's bytes are its characters, no need to count them.
  // (Checked, then decoded, by Node's own validators: a third of the time a fatal TextDecoder took.)
  const ascii = isAscii(buffer);
  if (!ascii && !isUtf8(buffer)) return scanUntilBadUtf8(bytes, from, startOffset, depth, sink);
  const text = buffer.toString(ascii ? 'latin1' : 'utf8');
  // For `verify`, a long log's chain is walked on a second thread while this one reads the lines, taking each stored
  // sum on trust until the walk confirms them all; anything short of that, and the lines are read again with the chain
  // walked here. A read walks no chain, so it starts no worker.
  const check = depth === 'schema' ? startChainCheck(buffer, from.sum, parallel) : null;
  if (check !== null) {
    const scan = scanText(text, from, startOffset, depth, sink?.(), ascii, true);
    const verdict = check.verdict();
    if (scan.fault === null && verdict !== null && verdict.mismatch === 0 && verdict.lines === scan.end.seq - from.seq)
      return { ...scan, chainWalked: 'parallel' };
  }
  return scanText(text, from, startOffset, depth, sink?.(), ascii);
}

/** Slow path, only for a log with invalid UTF-8: finds the line that holds it. */
function scanUntilBadUtf8(bytes: Uint8Array, from: ChainPoint, startOffset: number, depth: ScanDepth, sink?: () => EventSink): Scan {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
  let start = 0;
  let goodText = '';
  for (;;) {
    const newline = buffer.indexOf(0x0a, start);
    const stop = newline === -1 ? buffer.length : newline + 1;
    try {
      goodText += utf8.decode(buffer.subarray(start, stop));
    } catch {
      break;
    }
    start = stop;
  }
  const scan = scanText(goodText, from, startOffset, depth, sink?.());
  if (scan.fault) return scan;
  const line = scan.end.seq + 1;
  const isLast = buffer.indexOf(0x0a, start) === -1 || buffer.indexOf(0x0a, start) === buffer.length - 1;
  return {
    ...scan,
    fault: { line, offset: startOffset + start, reason: 'not valid UTF-8 text', unsealed: true },
    torn: isLast,
  };
}

/**
 * The same text, held apart from the string it was cut from: a sum taken
 * from a line as stored is a slice of the whole log's text, and a scan's end
 * point outlives the scan (a reader keeps it to append after), so it would
 * keep the whole text alive. Each half is too short to be a slice.
 */
function detached(sum: string): string {
  return sum.length <= 24 ? sum.slice(0, sum.length >> 1) + sum.slice(sum.length >> 1) : sum;
}

/**
 * `take`: where each good event goes (else into `events`); `trustSums`: take
 * each line's stored sum as the chain's (a worker is checking them). At
 * depth `sealed`, every line's stored sum but the last line's is taken as
 * the chain's anyway.
 */
function scanText(text: string, from: ChainPoint, startOffset: number, depth: ScanDepth, take?: EventSink, ascii = false, trustSums = false): Scan {
  const events: GapflowEvent[] = [];
  // The point after the last good line, kept as three locals (an object per line was a tenth of the scan's own time).
  let seq = from.seq;
  let sum = from.sum;
  // The line whose stored sum is the chain's, when it is not cut out yet: most are never needed (only the next
  // line's check, the slow path and the end point read it), and cutting each out was a string per line.
  let sumOf: string | null = null;
  const pointSum = (): string => {
    if (sumOf !== null) sum = sumOf.slice(sumOf.length - SUM_SUFFIX_LENGTH + SUM_PREFIX.length, -2);
    sumOf = null;
    return sum;
  };
  let sealed = from.sealed;
  let offset = startOffset;
  let lastLineBytes = 0;
  let start = 0;
  const done = (fault: LineFault | null, torn: boolean): Scan => ({
    events,
    end: { seq, sum: detached(pointSum()), sealed },
    goodBytes: offset - startOffset,
    lastLineBytes,
    fault,
    torn,
  });
  // No string in an ASCII text without a backslash or DEL can hold a control character: the quick look need not seek them, line by line.
  const plainText = ascii && !text.includes('\\') && !text.includes('\x7f');
  while (start < text.length) {
    const newline = text.indexOf('\n', start);
    const line = newline === -1 ? text.slice(start) : text.slice(start, newline);
    const lineNumber = seq + 1;
    const plain = plainText || (ascii && !line.includes('\\') && !line.includes('\x7f'));
    const bytes = (ascii ? line.length : Buffer.byteLength(line, 'utf8')) + 1;
    // A read checks the sum of the line it ends on; `verify` (depth `schema`) checks every line's.
    const trust = trustSums || (depth === 'sealed' && newline !== -1 && newline !== text.length - 1);
    // Most lines are read the short way; any other, or any doubt, and the line is judged in full, which names what is wrong.
    let event = newline !== -1 && depth === 'sealed' ? readSealedLine(line, lineNumber, trust ? '' : pointSum(), trust, plain) : null;
    if (event !== null) {
      sumOf = line;
      sealed = true;
    } else {
      const checked = validateLine(line, { seq, sum: pointSum(), sealed }, depth, trust, plain);
      if (newline === -1) {
        const reason = checked.fault ? `the line has no newline at its end (${checked.fault})` : 'the line has no newline at its end';
        return done({ line: lineNumber, offset, reason, unsealed: true }, true);
      }
      if (checked.fault !== null) {
        // Only a last line that is not even a JSON object can be a write cut short; a whole line that
        // reads but fails its seq or checksum may as well be an edit (of it or of a line before it):
        // never cut, never repaired.
        const isLast = newline === text.length - 1;
        return done({ line: lineNumber, offset, reason: checked.fault, unsealed: !checked.sealed }, isLast && !checked.readable);
      }
      event = checked.event;
      sum = checked.sum;
      sealed ||= checked.hasSum;
    }
    if (take) take(event);
    else events.push(event);
    seq = lineNumber;
    offset += bytes;
    lastLineBytes = bytes;
    start = newline + 1;
  }
  return done(null, false);
}

/** How a line gapflow writes starts: its version, one digit (the version read as current is a single digit), then a comma. */
const VERSION_KEY = '{"v":';
const ZERO = 0x30;
const COMMA = 0x2c;

/**
 * The event on a line as gapflow seals it (`…,"sum":"<16>"}`), of a version
 * read as the current one, whose checksum holds (or is taken on trust),
 * whose seq is `seq`, and which passes the quick look; null for any other
 * line, which `validateLine` then judges in full. It parses the whole line,
 * not the content that was hashed: a line that ends as sealed parses exactly
 * when its content is an object with a member, to that object with `sum`
 * added, and a read that cut the content out to parse it paid for a second
 * copy of every line.
 */
function readSealedLine(line: string, seq: number, previous: string, trustSums: boolean, plain: boolean): GapflowEvent | null {
  // A line of an older version (its parse and upcast are the long way's) is told by how it starts, before anything is hashed or parsed.
  if (!line.startsWith(VERSION_KEY) || !READ_AS_CURRENT.has(line.charCodeAt(VERSION_KEY.length) - ZERO) || line.charCodeAt(VERSION_KEY.length + 1) !== COMMA)
    return null;
  if (overLineLimit(line)) return null;
  const at = line.length - SUM_SUFFIX_LENGTH;
  if (at < 1 || !line.startsWith(SUM_PREFIX, at) || !line.endsWith('"}')) return null;
  if (!trustSums && !sumMatches(previous, `${line.slice(0, at)}}`, line, at + SUM_PREFIX.length)) return null;
  const fields = jsonObject(line);
  return fields !== null && fields.seq === seq && READ_AS_CURRENT.has(fields.v) ? readAsWritten(fields, plain) : null;
}

type Checked = { fault: null; event: GapflowEvent; sum: string; hasSum: boolean; sealed: true } | { fault: string; sealed: boolean; readable: boolean };

/** Whether a line is over the byte limit: one longer in UTF-16 units surely is; only one near it is measured in bytes. */
function overLineLimit(line: string): boolean {
  return line.length > MAX_LINE_BYTES || (line.length * 3 > MAX_LINE_BYTES && Buffer.byteLength(line) > MAX_LINE_BYTES);
}

/**
 * Judges one line (without its newline) against the point before it.
 * `plain`: the line's strings hold no control character (`readAsWritten`).
 */
function validateLine(line: string, before: ChainPoint, depth: ScanDepth, trustSums: boolean, plain: boolean): Checked {
  if (overLineLimit(line)) return { fault: `the line is over the ${formatBytes(MAX_LINE_BYTES)} limit`, sealed: false, readable: false };
  // A line that ends as gapflow seals one (`…,"sum":"<16>"}`): its sum is of the content without that member, and
  // when the sum holds (so it is sixteen hex digits) that content is parsed, the very string hashed: the line parses
  // to that object with `sum` added (the last key wins), unless the content is `{}`, when the line does not parse at
  // all. On trust (a worker walks the chain, or a read that does not check this line's sum) nothing says the stored
  // sum is sixteen hex digits: the whole line is parsed, so one that is not JSON is not read as if it were.
  const written = storedSum(line);
  const content = written === null ? line : `${line.slice(0, -SUM_SUFFIX_LENGTH)}}`;
  const sum = trustSums && written !== null ? written : chainSum(before.sum, content);
  if (written !== null && written === sum && !trustSums) {
    const members = objectWithMembers(content);
    if (members !== null) return judgeLine(members, before, depth, plain, { hasSum: true, sum, sealed: true });
  }
  let json: unknown;
  try {
    json = JSON.parse(line);
  } catch {
    return { fault: 'not a JSON object', sealed: false, readable: false };
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return { fault: 'not a JSON object', sealed: false, readable: false };
  const stored = json as Record<string, unknown>;
  const sealed = written !== null ? written === sum && stored.sum === sum : !before.sealed && stored.v === 1;
  return judgeLine(stored, before, depth, plain, { hasSum: 'sum' in stored, sum, sealed });
}

/** The JSON object `text` holds; null when it holds none (or is not JSON). */
function jsonObject(text: string): Record<string, unknown> | null {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return null;
  }
  return typeof json === 'object' && json !== null && !Array.isArray(json) ? (json as Record<string, unknown>) : null;
}

/** The JSON object `text` holds when it has a member at least; else null. */
function objectWithMembers(text: string): Record<string, unknown> | null {
  const json = jsonObject(text);
  if (json === null) return null;
  for (const _key in json) return json;
  return null;
}

/** The rest of a line's judgement, from its stored object and what its checksum says. */
function judgeLine(
  stored: Record<string, unknown>,
  before: ChainPoint,
  depth: ScanDepth,
  plain: boolean,
  seal: { hasSum: boolean; sum: string; sealed: boolean },
): Checked {
  const { hasSum, sum, sealed } = seal;
  const expectedSeq = before.seq + 1;
  const problem = versionProblem(stored.v);
  if (problem) return { fault: problem, sealed, readable: true };
  if (stored.seq !== expectedSeq) {
    const seq = JSON.stringify(stored.seq)?.slice(0, 20) ?? 'no seq';
    return { fault: `seq ${seq} where ${expectedSeq} was expected (a line was dropped, repeated or moved)`, sealed, readable: true };
  }
  if (stored.v !== 1 && !hasSum) return { fault: 'no checksum ("sum"): every line since version 2 carries one', sealed: false, readable: true };
  if (stored.v === 1 && hasSum) return { fault: 'a version 1 line with a checksum (version 1 lines have none)', sealed: false, readable: true };
  // A sealed line of this version was checked against this schema when gapflow wrote it: looked at, not parsed again.
  // Version 4 lines too: a version 5 reader that parsed every line of a log written before it would read it at half speed.
  const trusted = depth === 'sealed' && sealed && READ_AS_CURRENT.has(stored.v) ? readAsWritten(stored, plain) : null;
  if (trusted !== null) return { fault: null, event: trusted, sum, hasSum, sealed: true };
  const { sum: _sum, ...unsealed } = stored;
  const parsed = GapflowEvent.safeParse(upcast(unsealed));
  if (!parsed.success) {
    // The type is shown as a JSON string, cut short: a hostile line cannot put control characters on a terminal.
    const type = 'type' in stored ? `event ${JSON.stringify(stored.type)?.slice(0, 66)}: ` : '';
    return { fault: `${type}${formatIssue(parsed.error)}`, sealed, readable: true };
  }
  if (stored.v === 1 && before.sealed) {
    return { fault: 'a version 1 line (no checksum) after checksummed lines: lines were edited or moved', sealed: false, readable: true };
  }
  if (!sealed) return { fault: 'checksum mismatch: this line, or one before it, was edited, dropped, repeated or moved', sealed: false, readable: true };
  return { fault: null, event: parsed.data, sum, hasSum, sealed: true };
}

/**
 * How deep a scan looks at each line. `sealed` (reads): every line's bytes,
 * JSON, version and seq, and the checksum of the last line only, the one a
 * read ends on (what a checkpoint is keyed by and an append chains to; a
 * torn write shows there). A line of the current version was checked
 * against the schema when gapflow wrote it, so it gets a quick look
 * (readAsWritten, below), not a parse; older lines are parsed and upcast. The chain
 * before the last line is not walked: a read past a checkpoint does not see
 * those lines at all, and whether a session opens must not hang on whether
 * a cache was there. `schema` (`verify`, `repair`): every line is parsed
 * against today's schema and every checksum is checked: the chain is walked
 * whole.
 */
export type ScanDepth = 'sealed' | 'schema';

/** The message for a scan's fault, naming the file and line. */
export function faultMessage(where: string, scan: Scan): string {
  const fault = scan.fault!;
  const torn = scan.torn ? ': a torn last line from an interrupted write; `gapflow repair` cuts it (keeping a copy)' : '';
  return `${where} line ${fault.line}: ${fault.reason}${torn}`;
}

/** Parses a whole log's text; throws LogError naming the first bad line. */
export function parseLines(text: string, where: string): GapflowEvent[] {
  const scan = scanBytes(Buffer.from(text, 'utf8'));
  if (scan.fault) throw new LogError(faultMessage(where, scan));
  return scan.events;
}

/*
 * The quick look a sealed line of the current version gets instead of a
 * full schema parse (which costs more than reading the line). gapflow
 * checked the line against the schema when it wrote it; but a read does not
 * walk the checksum chain (only `verify` does), and the checksum has no key
 * anyway, so every line is looked at for everything the fold files and
 * shows: the type, gap ids (the pattern), the values it counts by, and text
 * a terminal or a table would show (length, no control characters). A
 * round close is looked at whole, key by key as its schema has it: one
 * comes every twenty-odd lines, and its full parse was a tenth of a cold
 * read. The rarer events that carry nested structure (a session's
 * settings, a decision's recorded outcome, metrics) always get the full
 * parse. Anything that fails here gets the full parse too, whose message
 * names what is wrong. `verify` parses every line in full.
 */

const isString = (value: unknown): value is string => typeof value === 'string';
const isRound = (value: unknown): boolean => Number.isSafeInteger(value) && (value as number) >= 1;
const isOptional = (value: unknown, check: (value: unknown) => boolean): boolean => value === undefined || check(value);
const isGapId = (value: unknown): boolean => isString(value) && value.length <= GAP_ID_MAX && GAP_ID_PATTERN.test(value);
/** Shown text: bounded, and with no control characters, which a `plain` line (see `readAsWritten`) cannot hold. */
const isText = (value: unknown, max: number, plain: boolean): boolean => isString(value) && value.length <= max && (plain || PLAIN_TEXT_PATTERN.test(value));

// eslint-disable-next-line no-control-regex -- control characters are exactly what an event id may not hold
const EVENT_ID = /^[^\u0000-\u001f\u007f]{1,128}$/;
// Month, day, hour, minute and second in range, the day checked against its month below (Date.parse per line cost a tenth of a cold read, and let 30 February through).
const ISO_TIME = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])T([01]\d|2[0-3]):[0-5]\d:[0-5]\d(\.\d{1,9})?(Z|[+-]([01]\d|2[0-3]):[0-5]\d)$/;
const isEventId = (value: unknown, plain: boolean): boolean => isString(value) && (plain ? value.length >= 1 && value.length <= 128 : EVENT_ID.test(value));

/** The last time `isTime` took: the lines one append writes share theirs, and the pattern was a tenth of a cold read. */
let lastTime: string | null = null;
function isTime(value: unknown): boolean {
  if (!isString(value)) return false;
  if (value === lastTime) return true;
  if (!ISO_TIME.test(value) || !dayInMonth(value)) return false;
  lastTime = value;
  return true;
}

/** The last date `dayInMonth` accepted: a log's lines mostly share their day, so most are not worked out again. */
let lastDay = '';

/** The date's day exists in its month (leap years counted), as the schema's own date pattern requires. */
function dayInMonth(time: string): boolean {
  if (lastDay !== '' && time.startsWith(lastDay)) return true;
  const year = Number(time.slice(0, 4));
  const month = Number(time.slice(5, 7));
  const day = Number(time.slice(8, 10));
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  const days = month === 2 ? (leap ? 29 : 28) : month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
  if (day > days) return false;
  lastDay = time.slice(0, 10);
  return true;
}

interface Vocabulary {
  severities: Set<unknown>;
  states: Set<unknown>;
  kinds: Set<unknown>;
  roundKinds: Set<unknown>;
  verdicts: Set<unknown>;
  machineStates: Set<unknown>;
  outcomes: Set<unknown>;
  resumable: Set<unknown>;
}
let vocabulary: Vocabulary | null = null;

/** The value sets, taken from the vocabulary's own enums the first time a line is looked at. */
function words() {
  vocabulary ??= {
    severities: new Set(Severity.options),
    states: new Set(GapState.options),
    kinds: new Set(DecisionKind.options),
    roundKinds: new Set(RoundKind.options),
    verdicts: new Set(Verdict.options),
    machineStates: new Set(CONVERGENCE_STATES),
    outcomes: new Set(Outcome.options),
    resumable: new Set(ResumableState.options),
  };
  return vocabulary;
}

const isCount = (value: unknown): boolean => Number.isSafeInteger(value) && (value as number) >= 0;
// Finite, as the schema's numbers are: JSON.parse reads 1e999 as Infinity.
const isNumber = (value: unknown): boolean => Number.isFinite(value);
const isShort =
  (max: number) =>
  (value: unknown): boolean =>
    isString(value) && value.length <= max;
const POLICY_NAME = /^[a-z][a-z0-9_]*$/;
const isSource = (value: unknown): boolean => isShort(SOURCE_NAME_MAX)(value) && SOURCE_NAME_PATTERN.test(value as string);
const isPolicy = (value: unknown): boolean => isShort(32)(value) && POLICY_NAME.test(value as string);
const isListOf = (value: unknown, max: number, check: (item: unknown) => boolean): boolean => Array.isArray(value) && value.length <= max && value.every(check);

/** An object with no key but `keys` (one left out reads as undefined, for the checks that follow to judge). */
function hasOnly(value: unknown, keys: readonly string[]): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  for (const key in value) if (!keys.includes(key)) return false;
  return true;
}

const FIGURES = ['openEnd', 'weightedOpenEnd', 'resolved', 'new', 'weightedResolved', 'weightedNew', 'withdrawn', 'weightedWithdrawn', 'criticalIntroduced'];
const isFigure = (value: unknown): boolean => value === null || isNumber(value) || typeof value === 'boolean' || isShort(VERDICT_TEXT_MAX)(value);

function isNamedVerdict(verdict: unknown): boolean {
  if (!hasOnly(verdict, ['policy', 'verdict', 'reason', 'detail', 'figures'])) return false;
  const { figures } = verdict;
  // An own `__proto__` key (JSON.parse makes one) is dropped by the schema's record: the full parse reads it so.
  if (typeof figures !== 'object' || figures === null || Array.isArray(figures) || Object.hasOwn(figures, '__proto__')) return false;
  if (!Object.entries(figures).every(([key, value]) => key.length <= 64 && isFigure(value))) return false;
  return isPolicy(verdict.policy) && words().verdicts.has(verdict.verdict) && isShort(64)(verdict.reason) && isShort(VERDICT_TEXT_MAX)(verdict.detail);
}

/** A round close's recorded outcome, as RoundOutcome reads it. */
function isRoundOutcome(outcome: unknown): boolean {
  if (!hasOnly(outcome, ['figures', 'verdicts', 'combined', 'machine', 'steps', 'kind'])) return false;
  const { figures, combined, machine } = outcome;
  const w = words();
  const figuresOk =
    hasOnly(figures, FIGURES) &&
    isNumber(figures.openEnd) &&
    isNumber(figures.weightedOpenEnd) &&
    isCount(figures.resolved) &&
    isCount(figures.new) &&
    isNumber(figures.weightedResolved) &&
    isNumber(figures.weightedNew) &&
    isOptional(figures.withdrawn, isCount) &&
    isOptional(figures.weightedWithdrawn, isNumber) &&
    isListOf(figures.criticalIntroduced, Infinity, isGapId);
  const combinedOk =
    hasOnly(combined, ['verdict', 'reason', 'policies', 'detail']) &&
    w.verdicts.has(combined.verdict) &&
    isShort(64)(combined.reason) &&
    isListOf(combined.policies, 16, isPolicy) &&
    isShort(COMBINED_TEXT_MAX)(combined.detail);
  const machineOk =
    hasOnly(machine, ['state', 'flatCount', 'outcome', 'pausedFrom']) &&
    w.machineStates.has(machine.state) &&
    isCount(machine.flatCount) &&
    (machine.outcome === null || w.outcomes.has(machine.outcome)) &&
    (machine.pausedFrom === null || w.resumable.has(machine.pausedFrom));
  const isStep = (step: unknown) => hasOnly(step, ['from', 'to']) && w.machineStates.has(step.from) && w.machineStates.has(step.to);
  return (
    figuresOk &&
    combinedOk &&
    machineOk &&
    isListOf(outcome.verdicts, 16, isNamedVerdict) &&
    isListOf(outcome.steps, 8, isStep) &&
    isOptional(outcome.kind, (kind) => kind !== 'work' && w.roundKinds.has(kind))
  );
}

/** Per type: the data's keys it may have, and whether their values read as the schema would take them. */
const DATA_CHECKS: Partial<Record<GapflowEvent['type'], { keys: readonly string[]; ok: (data: Record<string, unknown>, plain: boolean) => boolean }>> = {
  'round.closed': { keys: ['round', 'outcome'], ok: (d) => isRound(d.round) && isRoundOutcome(d.outcome) },
  'round.started': { keys: ['round', 'kind'], ok: (d) => isRound(d.round) && isOptional(d.kind, (kind) => words().roundKinds.has(kind)) },
  'gap.opened': {
    keys: ['id', 'severity', 'title', 'spawnedBy', 'blocking', 'source'],
    ok: (d, plain) =>
      isGapId(d.id) &&
      words().severities.has(d.severity) &&
      isText(d.title, TITLE_MAX, plain) &&
      typeof d.blocking === 'boolean' &&
      isOptional(d.spawnedBy, isGapId) &&
      isOptional(d.source, isSource),
  },
  'gap.moved': {
    keys: ['id', 'to', 'reason', 'blockedBy', 'of', 'by'],
    ok: (d, plain) =>
      isGapId(d.id) &&
      words().states.has(d.to) &&
      (d.reason === undefined || isText(d.reason, REASON_MAX, plain)) &&
      isOptional(d.blockedBy, isGapId) &&
      isOptional(d.of, isGapId) &&
      isOptional(d.by, isSource),
  },
  'gap.severity_changed': { keys: ['id', 'to'], ok: (d) => isGapId(d.id) && words().severities.has(d.to) },
  'session.bound': { keys: ['agentSession'], ok: (d, plain) => isText(d.agentSession, AGENT_SESSION_MAX, plain) && (d.agentSession as string).length > 0 },
};

/** A key the envelope may have (a switch: a Set's lookup was a fifth of the quick look). */
function isEnvelopeKey(key: string): boolean {
  switch (key) {
    case 'v':
    case 'seq':
    case 'id':
    case 'at':
    case 'type':
    case 'data':
    case 'sum':
      return true;
    default:
      return false;
  }
}

/**
 * The event a sealed line of the current version holds, when it reads as
 * gapflow writes it; null: parse it in full. `plain`: the line's text is
 * ASCII with no `\\` and no DEL, so none of its strings can hold a control
 * character (JSON takes none raw, and it would need an escape), and the
 * checks for them are skipped.
 */
export function readAsWritten(stored: Record<string, unknown>, plain = false): GapflowEvent | null {
  // The envelope is as strict as the schema's: a key it does not know sends the line to the full parse.
  for (const key in stored) if (!isEnvelopeKey(key)) return null;
  const { seq, id, at, type, data } = stored;
  const check = isString(type) && Object.hasOwn(DATA_CHECKS, type) ? DATA_CHECKS[type as GapflowEvent['type']] : undefined;
  if (check === undefined || !isEventId(id, plain) || !isTime(at) || typeof data !== 'object' || data === null || Array.isArray(data)) return null;
  const fields = data as Record<string, unknown>;
  for (const key in fields) if (!check.keys.includes(key)) return null;
  // Read as the current version's, as `upcast` reads a line of a version that only gained words since.
  return check.ok(fields, plain) ? ({ v: EVENT_VERSION, seq, id, at, type, data } as GapflowEvent) : null;
}

/*
 * What every store checks before it appends a batch (FileLog, MemoryLog,
 * PgLog; the lines' sizes: sealedBytes, files.ts).
 */

/** Refuses (VersionConflict) unless the stream, at `version`, ends where `expected` says. */
export function assertExpected(location: string, expected: Expected | undefined, version: number): void {
  const want = typeof expected === 'function' ? expected(version) : expected;
  if (want !== undefined && want !== version) throw new VersionConflict(location, want, version);
}

/** The check every store makes: the batch continues the stream's seq. */
export function continues(events: readonly GapflowEvent[], lastSeq: number, where: string): void {
  events.forEach((event, index) => {
    if (event.seq !== lastSeq + 1 + index) {
      throw new LogError(`${where}: seq ${event.seq} does not follow the log's last seq ${lastSeq + index}; nothing was written`);
    }
  });
}
