import { LogError, repairLog } from '../log/index.js';
import { repairedLine, verifiedLines } from '../render/index.js';
import { verifyFileSession } from '../session/index.js';
import { parse } from './args.js';
import { printJson, sessionDir, type Command } from './common.js';
import { Unverified } from './unverified.js';

/**
 * `gapflow verify`: checks every line (bytes, JSON, version, seq, schema,
 * checksum chain), then audits the history under today's rules; changes
 * nothing. Exit 0 when the log is whole (audit findings are listed, not
 * failed on, unless `--strict`: then exit 3), 1 naming the first damaged line.
 */
export const verify: Command = (argv, io) => {
  const { values } = parse(argv, { strict: { type: 'boolean' } }, []);
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
      findings: result.findings,
    });
  } else if (result.problem === null) {
    io.stdout(verifiedLines({ ...result, lastSeq: last?.seq ?? 0 }));
  } else {
    throw new LogError(result.problem);
  }
  if (result.problem !== null) throw new Unverified(1);
  if (values.strict && result.findings.length > 0) throw new Unverified(AUDIT_FINDINGS_EXIT);
};

/** `verify --strict`'s exit code for a whole log whose history today's rules would not all have recorded. */
const AUDIT_FINDINGS_EXIT = 3;

/** `gapflow repair`: cuts a torn last line (keeping a copy); refuses any other damage untouched. */
export const repair: Command = (argv, io) => {
  const { values } = parse(argv, {}, []);
  const dir = sessionDir(values.dir, io);
  const report = repairLog(dir);
  if (values.json) return printJson(io, report);
  io.stdout(repairedLine(report));
};
