import { isAscii, isUtf8 } from 'node:buffer';
import { formatIssue, GapflowEvent, READ_AS_CURRENT, upcast, versionProblem } from '../../events/index.js';
import { formatBytes, MAX_LINE_BYTES, MAX_LOG_BYTES } from './files.js';
import { readAsWritten } from './trusted.js';
import { startChainCheck } from './chain-check.js';
import { chainSum, sumMatches } from './seal.js';
import { LogError, type EventSink } from './types.js';
import { storedSum, SUM_PREFIX, SUM_SUFFIX_LENGTH } from './sum-field.js';

export { storedSum } from './sum-field.js';

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

export { chainSum, eventContent, formatLines, sealLine } from './seal.js';

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
 * (trusted.ts), not a parse; older lines are parsed and upcast. The chain
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
