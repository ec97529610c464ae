import { FileLog } from '../log/index.js';
import { toDot, toMermaid, unmarkedChartLine } from '../render/index.js';
import { parse, wordOf } from './args.js';
import { open, printJson, sessionDir, type Command } from './common.js';

const FORMATS = { mermaid: toMermaid, dot: toDot } as const;
const FORMAT_NAMES = ['mermaid', 'dot'] as const;

/**
 * `gapflow viz`: the statechart, drawn from the machine, with the session's
 * state marked. With no session in the folder it prints the bare chart and
 * says so on stderr, so it also serves to look at the machine itself.
 */
export const viz: Command = (argv, io) => {
  const { values } = parse(argv, { format: { type: 'string' } }, []);
  const format = values.format === undefined ? 'mermaid' : wordOf('--format', values.format, FORMAT_NAMES);
  const draw = FORMATS[format];
  const dir = sessionDir(values, io);
  const found = new FileLog(dir).exists();
  if (!found) io.stderr(unmarkedChartLine(dir));
  const state = found ? open(values, io).view.machine.state : null;
  if (values.json) return printJson(io, { format, state, diagram: draw(state) });
  io.stdout(draw(state));
};
