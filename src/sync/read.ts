import { badInput, type ReadOptions, type Snapshot, type SyncFormat } from './finding.js';
import { readFindingsJson } from './json.js';
import { readJunit } from './junit.js';
import { readSarif } from './sarif.js';

/** The format a text is in when none is named: XML is JUnit, a JSON list gapflow's own, a JSON object SARIF; null for anything else. */
export function formatOfText(text: string): SyncFormat | null {
  const first = /\S/.exec(text)?.[0];
  if (first === '<') return 'junit';
  if (first === '[') return 'json';
  return first === '{' ? 'sarif' : null;
}

/** A tool's text as one source's snapshot, by the format named or the one the text is in. */
export function readSnapshot(text: string, format: SyncFormat | undefined, options: ReadOptions): Snapshot {
  const chosen = format ?? formatOfText(text);
  if (chosen === null)
    badInput(options.file, null, `neither SARIF, JUnit XML nor a JSON list of findings${/\S/.test(text) ? '' : ' (it is empty)'}; name the format`);
  if (chosen === 'sarif') return readSarif(text, options);
  if (chosen === 'junit') return readJunit(text, options);
  return readFindingsJson(text, options);
}
