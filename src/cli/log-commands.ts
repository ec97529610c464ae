import { exportLog, LogError, placeNewFile, repairLog } from '../log/index.js';
import { repairedLine, verifiedLines } from '../render/index.js';
import { verifyFileSession, verifyStoreSession } from '../session/index.js';
import { type ParsedCall, UsageError } from './args.js';
import { databaseSession, databaseStore, printJson, sessionDir, storeOf, command } from './common.js';
import type { EXPORT_FLAGS, VERIFY_FLAGS } from './table.js';
import { Unverified } from './unverified.js';

const { resolve } = process.getBuiltinModule('node:path');

/**
 * `gapflow verify`: checks every line (bytes, JSON, version, seq, schema,
 * checksum chain), then audits the history under today's rules; changes
 * nothing. Exit 0 when the log is whole (audit findings are listed, not
 * failed on, unless `--strict`: then exit 3), 1 naming the first damaged line.
 */
export const verify = command<ParsedCall<typeof VERIFY_FLAGS>>(({ values }, io) => {
  const database = databaseSession(values, io);
  const result = database === null ? verifyFileSession(sessionDir(values, io)) : verifyStoreSession(databaseStore(database));
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
});

/** `verify --strict`'s exit code for a whole log whose history today's rules would not all have recorded. */
const AUDIT_FINDINGS_EXIT = 3;

/** `gapflow repair`: cuts a torn last line (keeping a copy); refuses any other damage untouched. */
export const repair = command<ParsedCall>(({ values }, io) => {
  const dir = sessionDir(values, io);
  const report = repairLog(dir);
  if (values.json) return printJson(io, report);
  io.stdout(repairedLine(report));
});

/**
 * `gapflow export [--out FILE]`: the session's log as JSONL, every line as
 * it was written (same bytes, same checksums), from whatever store holds it,
 * once every line is checked as `verify` checks it. To standard output, or
 * into FILE, made whole and never over another file. `gapflow import FILE`
 * brings it into another store.
 */
export const exportCommand = command<ParsedCall<typeof EXPORT_FLAGS>>(({ values }, io) => {
  const out = values.out === '-' ? undefined : values.out;
  if (out === undefined && values.json)
    throw new UsageError('export --json reports on a file it wrote: give --out FILE (without it, the log itself goes to standard output)');
  if (out !== undefined && out.trim() === '') throw new UsageError('--out needs a file (or - for standard output)');
  const store = storeOf(values, io);
  const { bytes, count, lastSeq } = exportLog(store);
  if (out === undefined) return io.stdoutBytes ? io.stdoutBytes(bytes) : io.stdout(bytes.toString('utf8'));
  const path = resolve(io.cwd, out);
  try {
    placeNewFile(path, bytes);
  } catch (error) {
    if (error instanceof Error && 'code' in error && error.code === 'EEXIST')
      throw new LogError(`${path} already exists: export writes a new file, and nothing was written`);
    throw error;
  }
  if (values.json) return printJson(io, { written: path, from: store.location, events: count, lastSeq, bytes: bytes.length });
  io.stdout(
    `exported ${count} ${count === 1 ? 'event' : 'events'} (seq 1-${lastSeq}, ${bytes.length.toLocaleString('en-US')} bytes) from ${store.location} to ${path}\n`,
  );
});
