import { FileLog } from '../log/index.js';
import { toDot, toMermaid, unmarkedChartLine } from '../render/index.js';
import { type ParsedCall, wordOf } from './args.js';
import { open, printJson, storeOf, command } from './common.js';
import type { VIZ_FLAGS } from './table.js';

const FORMATS = { mermaid: toMermaid, dot: toDot } as const;
const FORMAT_NAMES = ['mermaid', 'dot'] as const;

/**
 * `gapflow viz`: the statechart, drawn from the machine, with the session's
 * state marked. With no session in the folder it prints the bare chart and
 * says so on stderr, so it also serves to look at the machine itself.
 */
export const viz = command<ParsedCall<typeof VIZ_FLAGS>>(({ values }, io) => {
  const format = values.format === undefined ? 'mermaid' : wordOf('--format', values.format, FORMAT_NAMES);
  const draw = FORMATS[format];
  const store = storeOf(values, io);
  const found = store.exists();
  if (!found) io.stderr(unmarkedChartLine(store instanceof FileLog ? store.dir : store.location));
  const state = found ? open(values, io).view.machine.state : null;
  if (values.json) return printJson(io, { format, state, diagram: draw(state) });
  io.stdout(draw(state));
});
