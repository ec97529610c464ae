import { canonicalWord, type GapflowEvent, SEVERITY_WORDS, type Severity, SYNC_FORMAT_WORDS, type SyncFormat } from '../../events/index.js';
import { Refusal, roundCount, type SessionView, toStateJson } from '../core/index.js';
import { syncLines, type SyncSummary } from '../render/index.js';
import { BATCH_INPUT, readTextFile } from '../log/index.js';
import type { BatchRecorded } from '../session/index.js';
import { type ReadOptions, readSnapshot, type SeverityOverrides, type Snapshot, SyncInputError, TOOL_SEVERITIES } from '../sync/index.js';
import { type ParsedCall, writeOptions } from './args.js';
import { command, open, printJson, readStdin } from './common.js';
import { gatedBatch } from './gate.js';
import type { SYNC_FLAGS } from './table.js';

const { resolve } = process.getBuiltinModule('node:path');

/**
 * `gapflow sync [--format F] [--source NAME] [--severity W=S,...] [--close] FILE|-`:
 * a tool's whole snapshot of findings, read where it enters (src/sync), then
 * recorded as one request through the session, all or nothing: the core
 * reconciles it with the source's gaps (docs/sync.md).
 */
export const sync = command<ParsedCall<typeof SYNC_FLAGS>>(({ values, args }, io) => {
  const file = args[0] === '-' ? undefined : args[0];
  const name = file ?? 'stdin';
  const text = file !== undefined ? readTextFile(resolve(io.cwd, file), BATCH_INPUT) : readStdin(io, BATCH_INPUT);
  const options: ReadOptions = { file: name, root: io.cwd, severity: severityOverrides(values.severity) };
  if (values.source !== undefined) options.source = values.source;
  const format = formatNamed(values.format);
  let snapshot: Snapshot;
  try {
    snapshot = readSnapshot(text, format, options);
  } catch (error) {
    if (error instanceof SyncInputError) throw new Refusal(error.message);
    throw error;
  }
  const { expectSeq, eventId } = writeOptions(values);
  const body = { type: 'findings.synced' as const, data: { ...snapshot, ...(values.close ? { close: true } : {}) } };
  const request = { line: 1, body, ...(eventId === undefined ? {} : { id: eventId }) };
  const where = () => name;
  // A close that would complete a gated session runs the check first, as `round close` does.
  const gated = gatedBatch([request], values, io);
  const session = gated?.session ?? open(values, io);
  const done = gated ? gated.record(where, expectSeq) : session.recordAll([request], where, { expectSeq });
  const summary = summaryOf(snapshot, done, session.view);
  if (values.json) return printJson(io, { ...summary, events: done.appended, state: toStateJson(session.view) });
  io.stdout(syncLines(summary, session.current));
});

/** What the write did, by gap, as the view it left records it: the snapshot's record (its round, its claims) and the gap events after it. */
function summaryOf(snapshot: Snapshot, done: BatchRecorded, view: SessionView): SyncSummary {
  const appended = done.appended as GapflowEvent[];
  const record = appended.find((event) => event.type === 'findings.synced');
  const folded = record === undefined ? undefined : view.sources.find((known) => known.seq === record.seq);
  const summary: SyncSummary = {
    source: snapshot.source,
    format: snapshot.format,
    reported: snapshot.findings.length,
    opened: [],
    resolved: [],
    reopened: [],
    claimed: folded ? [...folded.claimed] : [],
    round: folded?.round ?? (view.roundOpen ? roundCount(view) : 0),
    closed: appended.some((event) => event.type === 'round.closed'),
  };
  for (const event of appended) {
    if (event.type === 'gap.opened') summary.opened.push(event.data.id);
    else if (event.type === 'gap.moved') (event.data.to === 'RESOLVED' ? summary.resolved : summary.reopened).push(event.data.id);
  }
  return summary;
}

/** The format `--format` names, in any spelling; undefined: the text says. */
function formatNamed(named: string | undefined): SyncFormat | undefined {
  if (named === undefined) return undefined;
  const format = canonicalWord(named, SYNC_FORMAT_WORDS);
  if (format === undefined) throw new Refusal(`--format ${JSON.stringify(named)}: the formats are ${SYNC_FORMAT_WORDS.join(', ')}`);
  return format;
}

/** `--severity error=CRITICAL,warning=HIGH`: a tool's words mapped to gapflow's severities, over the defaults. */
function severityOverrides(text: string | undefined): SeverityOverrides {
  const overrides: SeverityOverrides = {};
  if (text === undefined) return overrides;
  for (const pair of text.split(',')) {
    const [word = '', severity = ''] = pair.split('=').map((part) => part.trim());
    const tool = TOOL_SEVERITIES.find((known) => known === word.toLowerCase());
    if (tool === undefined) throw new Refusal(`--severity ${JSON.stringify(pair)}: ${JSON.stringify(word)} is not one of ${TOOL_SEVERITIES.join(', ')}`);
    const ours = canonicalWord(severity, SEVERITY_WORDS) as Severity | undefined;
    if (ours === undefined) throw new Refusal(`--severity ${JSON.stringify(pair)}: ${JSON.stringify(severity)} is not one of ${SEVERITY_WORDS.join(', ')}`);
    overrides[tool] = ours;
  }
  return overrides;
}
