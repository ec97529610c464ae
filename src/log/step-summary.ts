import { readRange, writeAll, isCode } from './files.js';

const { closeSync, fstatSync, openSync } = process.getBuiltinModule('node:fs');

/*
 * The GitHub Actions step summary: a Markdown file the runner names in
 * $GITHUB_STEP_SUMMARY and shows on the run's page once the step ends.
 * Other tools of the same step may write to it too, so gapflow appends.
 */

/** The summary file's size now; 0 when it does not exist yet. */
export function stepSummarySize(path: string): number {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (error) {
    if (isCode(error, 'ENOENT')) return 0;
    throw error;
  }
  try {
    return fstatSync(fd).size;
  } finally {
    closeSync(fd);
  }
}

/** Appends `text` to the summary file (making it when missing), starting on a line of its own. */
export function appendStepSummary(path: string, text: string): void {
  const fd = openSync(path, 'a+');
  try {
    const size = fstatSync(fd).size;
    const endsLine = size === 0 || readRange(fd, size - 1, 1).toString('utf8') === '\n';
    writeAll(fd, Buffer.from(`${endsLine ? '' : '\n'}${size === 0 ? '' : '\n'}${text}`, 'utf8'));
  } finally {
    closeSync(fd);
  }
}
