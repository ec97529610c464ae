import { LogError, repairLog } from '../log/index.js';
import { verifyFileSession } from '../session.js';
import { parse } from './args.js';
import { printJson, sessionDir, type Command } from './common.js';

/** The exit code `verify` gives a log that is not good. */
class Unverified extends Error {}

/**
 * `gapflow verify`: checks every line (bytes, JSON, version, seq, schema,
 * checksum chain) and every event against the rules; changes nothing. Exit 0
 * when good, 1 naming the first bad line.
 */
export const verify: Command = (argv, io) => {
  const { values } = parse(argv, {}, []);
  const result = verifyFileSession(sessionDir(values.dir, io));
  const last = result.events.at(-1);
  if (values.json) {
    printJson(io, {
      ok: result.problem === null,
      events: result.events.length,
      lastSeq: last?.seq ?? 0,
      lastSum: result.lastSum,
      problem: result.problem,
      line: result.line,
      repairable: result.torn,
    });
  } else if (result.problem === null) {
    io.stdout(`OK: ${result.location}: ${result.events.length} events, seq 1 to ${last?.seq ?? 0}, checksum chain intact (last ${result.lastSum || 'none'})\n`);
  } else if (result.problem !== null) {
    throw new LogError(result.problem);
  }
  if (result.problem !== null) throw new Unverified();
};

/** `gapflow repair`: cuts a torn last line (keeping a copy); refuses any other damage untouched. */
export const repair: Command = (argv, io) => {
  const { values } = parse(argv, {}, []);
  const dir = sessionDir(values.dir, io);
  const report = repairLog(dir);
  if (report.cut === null) {
    // Sound lines can still break a rule (a sealed hand edit): that is not a torn tail either.
    const { problem } = verifyFileSession(dir);
    if (problem !== null) throw new LogError(`${problem}; repair cuts only a torn last line and this is not one: nothing was changed`);
  }
  if (values.json) return printJson(io, report);
  if (report.cut === null) return io.stdout(`Nothing to repair: ${report.location} has no torn last line (${report.events} events).\n`);
  if (report.cut.backup === null) return io.stdout(`Removed ${report.location}: ${report.cut.reason}. \`gapflow init\` starts a session there.\n`);
  io.stdout(
    `Cut line ${report.cut.line} (${report.cut.bytes} bytes: ${report.cut.reason}); ${report.events} events remain. The cut bytes are in ${report.cut.backup}\n`,
  );
};

/** True for the error `verify` throws after it has printed its finding. */
export function isUnverified(error: unknown): boolean {
  return error instanceof Unverified;
}
