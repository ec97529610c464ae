import { describe, expect, it } from 'vitest';
import { newSession } from '../support.js';
import { renderStatus } from '../../src/render/index.js';

/*
 * status.md shows the verification check's command exactly as written,
 * whatever backticks it holds: in a code span no character of it can close.
 */

/**
 * The text of the code span that opens `line` after `prefix`, read as
 * CommonMark reads one: a run of N backticks opens it, the next run of
 * exactly N closes it, and one space comes off each side when both sides
 * have one (and the content is not all spaces).
 */
function codeSpanText(line: string, prefix: string): string {
  expect(line.startsWith(prefix)).toBe(true);
  const rest = line.slice(prefix.length);
  const opener = /^`+/.exec(rest)![0];
  let at = opener.length;
  for (;;) {
    const run = /`+/g;
    run.lastIndex = at;
    const found = run.exec(rest);
    expect(found, 'the span closes').not.toBeNull();
    if (found![0].length === opener.length) {
      const content = rest.slice(opener.length, found!.index);
      return content.startsWith(' ') && content.endsWith(' ') && content.trim() !== '' ? content.slice(1, -1) : content;
    }
    at = found!.index + found![0].length;
  }
}

const checkLine = (command: string): string => {
  const status = renderStatus(newSession({ verify: { command, timeoutSeconds: 60 } }).view);
  return status.split('\n').find((line) => line.startsWith('Check: '))!;
};

describe('status.md shows the verification command as written', () => {
  it.each([
    ['no backticks', 'npm test'],
    ['a backtick substitution', 'test "$(node -v)" = `node -v` && npm test'],
    ['runs of one, two and three backticks', 'echo `a` ``b`` ```c``` done'],
    ['a backtick at each end', '`which npm` test `true`'],
    ['quotes and markup-looking text', `grep -q '<b>|*x*|' log && echo "[ok](x)"`],
    ['spaces at both ends', '  npm test  '],
  ])('%s', (_, command) => {
    const line = checkLine(command);
    expect(codeSpanText(line, 'Check: ')).toBe(command);
  });

  it('a plain command reads as it always did', () => {
    expect(checkLine('npm test')).toMatch(/^Check: `npm test` \(time limit /);
  });
});
