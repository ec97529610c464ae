import { policyStateFormat, Refusal, stateFormatNames, toStateJson } from '../core/index.js';
import {
  appendedSummaryLine,
  nothingToDecideLine,
  renderGithubSummary,
  STEP_SUMMARY_HEADROOM_BYTES,
  STEP_SUMMARY_MAX_BYTES,
  jobSummaryTooBig,
  renderDecisions,
  renderPrompt,
  renderStatus,
  renderSummary,
  replayLine,
  stateFormatNotEnabled,
  stateLines,
  summaryNotDue,
  terminalMarkdown,
  wroteLine,
} from '../render/index.js';
import { appendStepSummary, checkpointsOf, stepSummarySize, writeDecisionsFile, writeStatusFile, type EventStore } from '../log/index.js';
import { openFileSession, Session } from '../session/index.js';
import { stateFormat } from '../session/state-format.js';
import { type ParsedCall, UsageError, wordOf } from './args.js';
import { databaseSession, databaseStore, type CliIO, jsonText, open, printJson, sessionDir, command } from './common.js';
import type { STATE_FLAGS, STATUS_FLAGS } from './table.js';
import { printStoredState } from './state-cache.js';

const { resolve } = process.getBuiltinModule('node:path');

/**
 * A rendered Markdown document (status.md, decisions.md, a summary) as the
 * terminal shows it: the HTML entities the files spell `<`, `>` and `&` in
 * text from events with (`&lt;`) read as backslash escapes (`\<`), the same
 * Markdown to any renderer. The files keep their bytes, and --json carries
 * them as written; every human print of a document goes through here.
 */
function printMarkdown(io: CliIO, text: string): void {
  io.stdout(terminalMarkdown(text));
}

/**
 * `gapflow state [--format NAME]`: where the session stands, or a format a
 * policy offers. `--json` prints its stored output when that is current, and
 * otherwise stores what it prints for the next call.
 */
export const state = command<ParsedCall<typeof STATE_FLAGS>>(({ values }, io) => {
  if (values.json && values.format === undefined) {
    const database = databaseSession(values, io);
    return database === null ? stateJson(sessionDir(values, io), io) : storedStateJson(databaseStore(database), io);
  }
  const session = open(values, io);
  if (values.format !== undefined) {
    const format = wordOf('--format', values.format, stateFormatNames());
    const found = policyStateFormat(session.view, format);
    if (found === null) throw new Error(`no policy offers the state format ${format}`);
    if (found.text === null) throw new Refusal(stateFormatNotEnabled(format, found.policy, session.view));
    return io.stdout(found.text);
  }
  io.stdout(stateLines(session.view));
});

function stateJson(dir: string, io: CliIO): void {
  if (printStoredState(dir, io)) return;
  const session = openFileSession(dir);
  const text = jsonText(toStateJson(session.view));
  io.stdout(text);
  checkpointsOf(session.log).saveState(stateFormat(), session.view.lastSeq, () => text);
}

/** `state --json` of a store that keeps its output (a database session): printed as kept while current, else made and kept. */
function storedStateJson(store: EventStore, io: CliIO): void {
  const kept = checkpointsOf(store).state(stateFormat());
  if (kept !== null) return io.stdout(kept);
  const session = Session.open(store);
  const text = jsonText(toStateJson(session.view));
  io.stdout(text);
  checkpointsOf(store).saveState(stateFormat(), session.view.lastSeq, () => text);
}

const STATUS_FORMATS = ['markdown', 'github'] as const;

/**
 * `gapflow status [--write] [--format markdown|github]`: status.md, to
 * stdout or into the session folder; or a GitHub Actions job summary,
 * appended to $GITHUB_STEP_SUMMARY when it is set, else printed.
 */
export const status = command<ParsedCall<typeof STATUS_FLAGS>>(({ values }, io) => {
  // A format is a value (exit 1 with the valid ones and the nearest), as every other word the CLI takes.
  const format = values.format === undefined ? 'markdown' : wordOf('--format', values.format, STATUS_FORMATS);
  if (values.all && (format === 'github' || values.decisions)) {
    throw new UsageError(
      `status --all lists every gap in status.md's inventory; ${values.decisions ? '--decisions prints decisions.md' : '--format github writes a job summary'}, which has no inventory: give one of them`,
    );
  }
  if (format === 'github') {
    if (values.write) throw new UsageError('status --write writes status.md and --format github a job summary: give one of them');
    if (values.decisions) throw new UsageError('status --decisions prints decisions.md and --format github a job summary: give one of them');
    return jobSummary(values, io);
  }
  if (values.decisions && values.write) throw new UsageError('status --write writes decisions.md beside status.md; --decisions prints it: give one of them');
  const session = open(values, io);
  if (values.decisions) {
    const text = renderDecisions(session.view);
    return values.json ? printJson(io, { decisions: text }) : printMarkdown(io, text);
  }
  const text = renderStatus(session.view, { all: values.all === true });
  if (!values.write) return printMarkdown(io, text);
  if (values.dir === undefined && databaseSession(values, io) !== null) {
    throw new UsageError('status --write writes status.md into a folder, and a database session has none: name one with --dir');
  }
  const dir = sessionDir(values, io);
  const path = writeStatusFile(dir, text);
  const decisions = writeDecisionsFile(dir, renderDecisions(session.view));
  io.stdout(values.json ? `${JSON.stringify({ written: path, decisions })}\n` : `${wroteLine(path)}${wroteLine(decisions)}`);
});

function jobSummary(values: { dir?: string | undefined; json?: boolean | undefined }, io: CliIO): void {
  const session = open(values, io);
  // An empty variable counts as unset, as shells treat empty variables.
  const target = io.env.GITHUB_STEP_SUMMARY || undefined;
  const path = target === undefined ? null : resolve(io.cwd, target);
  // Other steps' tools may have written to the same file: only what is left under the cap is ours.
  const size = path === null ? 0 : stepSummarySize(path);
  const text = renderGithubSummary(session.view, STEP_SUMMARY_MAX_BYTES - STEP_SUMMARY_HEADROOM_BYTES - size);
  if (text === null) throw new Refusal(jobSummaryTooBig(path, size, STEP_SUMMARY_MAX_BYTES));
  if (path === null) return values.json ? printJson(io, { summary: text }) : printMarkdown(io, text);
  appendStepSummary(path, text);
  io.stdout(values.json ? `${JSON.stringify({ written: path })}\n` : appendedSummaryLine(path));
}

export const prompt = command<ParsedCall>(({ values }, io) => {
  const session = open(values, io);
  const text = renderPrompt(session.view);
  if (values.json) return printJson(io, { due: text !== null, prompt: text, state: session.view.machine.state });
  io.stdout(text ?? nothingToDecideLine(session.view));
});

export const summary = command<ParsedCall>(({ values }, io) => {
  const session = open(values, io);
  const text = renderSummary(session.view);
  if (text === null) throw new Refusal(summaryNotDue(session.view));
  return values.json ? io.stdout(`${JSON.stringify({ summary: text })}\n`) : printMarkdown(io, text);
});

export const replay = command<ParsedCall>(({ values }, io) => {
  // Every line, from the first: no checkpoint read, none written.
  const session = open(values, io, { checkpoints: false });
  if (values.json) return printJson(io, { events: session.view.lastSeq, state: toStateJson(session.view) });
  io.stdout(replayLine(session.view));
});
