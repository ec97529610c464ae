import { policyStateFormat, Refusal, stateFormatNames, toStateJson } from '../core/index.js';
import {
  nothingToDecideLine,
  renderPrompt,
  renderStatus,
  renderSummary,
  replayLine,
  stateFormatNotEnabled,
  stateLines,
  summaryNotDue,
  wroteLine,
} from '../render/index.js';
import { writeStatusFile } from '../log/index.js';
import { openFileSession } from '../session/index.js';
import { stateFormat } from '../session/state-format.js';
import { parse, wordOf } from './args.js';
import { type CliIO, type Command, jsonText, open, printJson, sessionDir } from './common.js';
import { printStoredState } from './state-cache.js';

/**
 * `gapflow state [--format NAME]`: where the session stands, or a format a
 * policy offers. `--json` prints its stored output when that is current, and
 * otherwise stores what it prints for the next call.
 */
export const state: Command = (argv, io) => {
  const { values } = parse(argv, { format: { type: 'string' } }, []);
  if (values.json && values.format === undefined) return stateJson(sessionDir(values.dir, io), io);
  const session = open(values, io);
  if (values.format !== undefined) {
    const format = wordOf('--format', values.format, stateFormatNames());
    const found = policyStateFormat(session.view, format);
    if (found === null) throw new Error(`no policy offers the state format ${format}`);
    if (found.text === null) throw new Refusal(stateFormatNotEnabled(format, found.policy, session.view));
    return io.stdout(found.text);
  }
  io.stdout(stateLines(session.view));
};

function stateJson(dir: string, io: CliIO): void {
  if (printStoredState(dir, io)) return;
  const session = openFileSession(dir);
  const text = jsonText(toStateJson(session.view));
  io.stdout(text);
  session.log.saveStateCache?.(stateFormat(), session.view.lastSeq, () => text);
}

export const status: Command = (argv, io) => {
  const { values } = parse(argv, { write: { type: 'boolean' } }, []);
  const session = open(values, io);
  const text = renderStatus(session.view);
  if (!values.write) return io.stdout(text);
  const path = writeStatusFile(sessionDir(values.dir, io), text);
  io.stdout(values.json ? `${JSON.stringify({ written: path })}\n` : wroteLine(path));
};

export const prompt: Command = (argv, io) => {
  const { values } = parse(argv, {}, []);
  const session = open(values, io);
  const text = renderPrompt(session.view);
  if (values.json) return printJson(io, { due: text !== null, prompt: text, state: session.view.machine.state });
  io.stdout(text ?? nothingToDecideLine(session.view));
};

export const summary: Command = (argv, io) => {
  const { values } = parse(argv, {}, []);
  const session = open(values, io);
  const text = renderSummary(session.view);
  if (text === null) throw new Refusal(summaryNotDue(session.view));
  io.stdout(values.json ? `${JSON.stringify({ summary: text })}\n` : text);
};

export const replay: Command = (argv, io) => {
  const { values } = parse(argv, {}, []);
  // Every line, from the first: no checkpoint read, none written.
  const session = openFileSession(sessionDir(values.dir, io), { checkpoints: false });
  if (values.json) return printJson(io, { events: session.view.lastSeq, state: toStateJson(session.view) });
  io.stdout(replayLine(session.view));
};
