import { formatSeconds, Refusal } from '../core/index.js';
import { HIDDEN_CHARACTER, VERIFY_OUTPUT_MAX } from '../../events/index.js';
import { readHead, type BatchRecorded, type BatchRequest, type RequestNamer, type Session } from '../session/index.js';
import { open, storeOf, type CliIO, type WhereOptions } from './common.js';
import { runCommand } from './record-command.js';
import { refuseUnapproved } from './trust.js';

/*
 * The verification gate at the edge: a write that would complete a gated
 * session as done is refused by the core until a passing run of the check
 * is the log's last event (remedy `run_verification`). Here that refusal is
 * answered: the check runs once, now, its run is recorded, and the write is
 * tried again, which then completes (it passed), leaves the round open
 * (metrics, after a failing run) or is refused saying how the check failed.
 * Replay reads the recorded run and never runs the command, and the command
 * runs only when this user set or approved it here (trust.ts).
 */

/** Every invisible or direction-changing character (events/request.ts), for a run's output to drop. */
const HIDDEN_CHARACTERS = new RegExp(HIDDEN_CHARACTER.source, 'gu');

/** What a run gates: the round close or the approval that would complete the session. */
export type Gates = 'round_close' | 'approve';

/** The most of a run's output the edge reads back from the runner: the recorded tail is cut from it after cleaning. */
const RAW_TAIL_BYTES = 4 * VERIFY_OUTPUT_MAX;

/**
 * `write`, through the gate: when the core asks for a run of the check
 * first, the check runs, its run is recorded on `session()` (opened only
 * then), a line says how it went, and `write` runs again.
 */
export function throughGate<T>(io: CliIO, session: () => Session, gates: Gates, json: boolean | undefined, write: () => T): T {
  try {
    return write();
  } catch (error) {
    if (!(error instanceof Refusal && error.remedy === 'run_verification')) throw error;
  }
  const opened = session();
  const run = gateRun(opened, gates, io);
  opened.record({ type: 'verification.ran', data: { ...run, gates } });
  if (!json) tellGateRun(io, run);
  return write();
}

type GateRun = ReturnType<typeof runCommand>;

/** Runs the session's check once, now; returns the run as it is to be recorded (its output's tail made safe). */
export function gateRun(session: Session, gates: Gates, io: CliIO): GateRun {
  const gate = session.view.settings?.verify;
  if (gate === undefined) throw new Refusal(`this session has no verification check to run for its ${gates === 'approve' ? 'approval' : 'round close'}`);
  refuseUnapproved(session, gate.command, io);
  const ran = runCommand('the verification check', gate.command, gate.timeoutSeconds, RAW_TAIL_BYTES, io);
  return { ...ran, output: safeTail(ran.output) };
}

/** How the run went: passed on stdout; failed on stderr with the end of its output, each line marked. */
export function tellGateRun(io: CliIO, run: GateRun): void {
  const how = run.timedOut ? `timed out after ${formatSeconds(run.durationMs)}` : `exit ${run.exitCode ?? 'none'} after ${formatSeconds(run.durationMs)}`;
  if (run.exitCode === 0 && !run.timedOut) return io.stdout(`Verification check passed (${how}): ${oneLine(run.command)}\n`);
  const tail = run.output === '' ? [] : ['  Last output:', ...run.output.split('\n').map((line) => `  | ${line}`)];
  io.stderr(`${[`Verification check failed (${how}): ${oneLine(run.command)}`, ...tail].join('\n')}\n`);
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').slice(0, 200);
}

/**
 * The end of what a run printed, safe to show one line per line: terminal
 * escape sequences dropped, carriage returns made line ends, tabs spaces,
 * every other control character, and every invisible or bidirectional
 * format character, dropped,
 * trailing blank lines trimmed; at most VERIFY_OUTPUT_MAX characters,
 * starting on a whole line when it was cut.
 */
export function safeTail(raw: string): string {
  const clean = raw
    // eslint-disable-next-line no-control-regex -- terminal escape sequences are what is removed
    .replace(/\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(\u0007|\u001b\\)?|\u001b[@-_]/g, '')
    .replace(/\r\n?/g, '\n')
    .replace(/\t/g, ' ')
    // eslint-disable-next-line no-control-regex -- control characters are exactly what is removed
    .replace(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029]/g, '')
    // Invisible and direction-changing characters (bidi controls, zero-width, tags) would hide or reorder what the check said.
    .replace(HIDDEN_CHARACTERS, '')
    .replace(/\s+$/, '');
  if (clean.length <= VERIFY_OUTPUT_MAX) return clean;
  const cut = clean.slice(-VERIFY_OUTPUT_MAX);
  const lineStart = cut.indexOf('\n');
  return lineStart === -1 || lineStart === cut.length - 1 ? cut : cut.slice(lineStart + 1);
}

/** A request of a batch the gate may run the check for, with the line (of the input, or of the command's own batch) it names in a refusal. */
export interface GatedRequest extends BatchRequest {
  line: number;
}

/**
 * A batch that would complete a gated session as done (the core asks for a
 * run of the check first): the check runs now, and its run goes into the
 * batch just before the request that completes, so the two are written
 * together. After a failing run the batch is refused as the core words it,
 * and the run alone is recorded (status.md and `next` say why the session
 * did not complete); a batch of metrics that would have closed the round is
 * written with the round left open. Null when the batch needs no run.
 */
export function gatedBatch(batch: GatedRequest[], values: WhereOptions & { json?: boolean | undefined }, io: CliIO) {
  const log = storeOf(values, io);
  if (!log.exists()) return null;
  // The head says whether the session has a check, without opening the whole session for every batch.
  const head = readHead(log);
  if (head !== null && head.settings?.verify === undefined) return null;
  const session = open(values, io);
  if (session.view.settings?.verify === undefined) return null;
  // Which request asks for the run: the namer is called with the index of the request refused.
  let refusedAt = -1;
  try {
    session.dryRunAll(batch, (i) => {
      refusedAt = i;
      return '';
    });
    return null;
  } catch (error) {
    if (!(error instanceof Refusal && error.remedy === 'run_verification') || refusedAt === -1) return null;
  }
  const asking = batch[refusedAt]!;
  const gates = asking.body.type === 'decision.made' ? 'approve' : 'round_close';
  const run = gateRun(session, gates, io);
  if (!values.json) tellGateRun(io, run);
  const ran: GatedRequest = { line: asking.line, body: { type: 'verification.ran', data: { ...run, gates } } };
  const requests = [...batch.slice(0, refusedAt), ran, ...batch.slice(refusedAt)];
  const record = (where: RequestNamer, expectSeq: number | undefined): BatchRecorded => {
    try {
      return session.recordAll(requests, where, { expectSeq });
    } catch (error) {
      // The check failed: its run is recorded alone, so the session says why it did not complete.
      if (!(error instanceof Refusal && error.remedy === 'run_verification')) throw error;
      session.record(ran.body);
      throw new Refusal(`${error.message}; of this batch, only the check's run was recorded`, error.remedy);
    }
  };
  return { session, requests, record };
}
