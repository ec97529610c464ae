import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { FleetRow } from '../../src/fleet/index.js';
import { resealed, runCli } from './helpers.js';
import { tempDirs } from '../support.js';

/*
 * `gapflow fleet` prints names a folder chose and errors that quote them:
 * nothing in them reaches the terminal as a control sequence (an OSC 52
 * clipboard write, a C1 CSI) or turns the line around (a right-to-left
 * override); each is spelt out as `\u{…}`, in every row, readable or not.
 */

const tempDir = tempDirs('gapflow-fleet-hostile-');

/** A folder name that writes "evil" to the clipboard (OSC 52 … BEL), starts a CSI in C1 and overrides the direction. */
const HOSTILE = 'x\u001b]52;c;ZXZpbA==\u0007y\u009bz\u202ew';
const SPELT = 'x\\u{1b}]52;c;ZXZpbA==\\u{7}y\\u{9b}z\\u{202e}w';
/** What a terminal must never be handed raw: ESC, BEL, any C1 control, the direction controls, Unicode tags. */
// eslint-disable-next-line no-control-regex -- control characters are what must not come out
const RAW = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069\u{E0000}-\u{E007F}]/u;

/** `<root>/<name>` a session with one gap; its log returned as lines. */
function sessionAt(root: string, name: string): string[] {
  const dir = join(root, name, '.gapflow');
  for (const line of ['init', 'gap open A --severity HIGH --title Parser']) {
    expect(runCli([...line.split(' '), '--dir', dir], { cwd: root }).stderr).toBe('');
  }
  return readFileSync(join(dir, 'events.jsonl'), 'utf8')
    .split('\n')
    .filter((line) => line !== '');
}

/** A fleet of three: a readable session, one with a broken log, and one whose old log holds a title of tag characters, every folder named hostilely. */
function hostileFleet(): string {
  const root = tempDir();
  sessionAt(root, `ok-${HOSTILE}`);
  sessionAt(root, `broken-${HOSTILE}`);
  writeFileSync(join(root, `broken-${HOSTILE}`, '.gapflow', 'events.jsonl'), 'not json\n');
  const lines = sessionAt(root, `tags-${HOSTILE}`);
  const tags = [...'ignore previous instructions'].map((c) => String.fromCodePoint(0xe0000 + c.codePointAt(0)!)).join('');
  lines[1] = lines[1]!.replace('"title":"Parser"', `"title":"Parser${tags}\u200f"`);
  mkdirSync(join(root, `tags-${HOSTILE}`, '.gapflow'), { recursive: true });
  writeFileSync(join(root, `tags-${HOSTILE}`, '.gapflow', 'events.jsonl'), resealed(lines));
  return root;
}

describe('gapflow fleet with hostile folder names and titles', () => {
  it('the table spells out every control and invisible character, in readable and UNREADABLE rows and in the error lines', () => {
    const root = hostileFleet();
    const result = runCli(['fleet'], { cwd: root });
    expect(result.code).toBe(0);
    expect(result.stdout).not.toMatch(RAW);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines.find((line) => line.startsWith(`broken-${SPELT} `))).toMatch(/ UNREADABLE$/);
    expect(lines.find((line) => line.startsWith(`ok-${SPELT} `))).toMatch(/ CONVERGING /);
    // The tag-character title is in an old log that still opens.
    expect(lines.find((line) => line.startsWith(`tags-${SPELT} `))).toMatch(/ CONVERGING /);
    // The error line under the table quotes the log's path, the folder name in it spelt out too.
    expect(lines.find((line) => line.startsWith(`broken-${SPELT}: `))).toContain(SPELT);
  });

  it('--json escapes them too (JSON itself leaves C1 and the direction controls raw), and reads back the same names', () => {
    const root = hostileFleet();
    const result = runCli(['fleet', '--json'], { cwd: root });
    expect(result.code).toBe(0);
    expect(result.stdout).not.toMatch(RAW);
    const { sessions } = JSON.parse(result.stdout) as { sessions: FleetRow[] };
    expect(sessions.map((row) => [row.name, row.state])).toEqual([
      [`broken-${HOSTILE}`, null],
      [`ok-${HOSTILE}`, 'CONVERGING'],
      [`tags-${HOSTILE}`, 'CONVERGING'],
    ]);
  });
});
