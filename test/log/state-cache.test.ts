import { appendFileSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { brotliCompressSync, brotliDecompressSync, constants, crc32 } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { createFileSession, openFileSession, type Session } from '../../src/index.js';
import { run, runBin, TABLE, type CliIO } from '../../src/cli/index.js';
import { toStateJson } from '../../src/core/index.js';
import { CHECKPOINT_FILE, CHECKPOINT_MIN_TAIL_BYTES, HEAD_FILE, sealLine, STATE_FILE, packageVersion } from '../../src/log/index.js';
import { STATE_JSON_SHAPE } from '../../src/session/state-format.js';
import { runCli } from '../cli/helpers.js';
import { fixedStamps, tempDirs } from '../support.js';

/*
 * `state --json` prints its stored output (checkpoint.state.json) when it
 * covers the log's last line, and otherwise renders the session and stores
 * what it printed. Whatever the file holds, what is printed is what a replay
 * of every line renders, byte for byte, unless the file was rewritten whole
 * (a cache, not a proof, as the checkpoints are).
 */

const tempDir = tempDirs('gapflow-state-cache-');

/** Rounds of gaps opened, worked, blocked and resolved, so the output has gaps, rounds and history. */
function play(session: Session, rounds: number, from = 0): void {
  for (let r = from; r < from + rounds; r++) {
    if (!session.view.roundOpen) session.startRound();
    session.openGap(`G-${r}-a`, 'HIGH', { title: `first of round ${r} é 😀` });
    session.openGap(`G-${r}-b`, 'LOW', { title: `second of round ${r}` });
    session.moveGap(`G-${r}-b`, 'IN_PROGRESS');
    session.moveGap(`G-${r}-b`, 'BLOCKED', { reason: 'waits on a', blockedBy: `G-${r}-a` });
    if (r > from) session.moveGap(`G-${r - 1}-a`, 'RESOLVED');
    session.closeRound();
    if (session.view.machine.state === 'DIVERGENCE_WARNING') session.makeDecision('accept_complexity');
  }
}

/** A session whose log is past the size where `state --json` stores its output. */
function longSession(dir: string, stallThreshold = 50): Session {
  const session = createFileSession(dir, { maxRounds: 10_000, stallThreshold }, fixedStamps());
  play(session, 50);
  expect(statSync(logPath(dir)).size).toBeGreaterThan(CHECKPOINT_MIN_TAIL_BYTES);
  return session;
}

const logPath = (dir: string) => join(dir, 'events.jsonl');
const statePath = (dir: string) => join(dir, STATE_FILE);
/** The format it is stored under: the output's, kept compressed. */
const format = () => `${STATE_JSON_SHAPE}/gapflow-${packageVersion()}/brotli`;

/** What `state --json` prints from a replay of every line, as the command has always printed it. */
function replayed(dir: string): string {
  return `${JSON.stringify(toStateJson(openFileSession(dir, { checkpoints: false }).view), null, 2)}\n`;
}

/** `gapflow state --json` through `run` (the command itself). */
function stateJson(dir: string): string {
  const result = runCli(['state', '--json', '--dir', dir], { cwd: dir });
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  return result.stdout;
}

interface Header {
  format: string;
  seq: number;
  end: number;
  lineBytes: number;
  sum: string;
  bodyBytes: number;
  bodySum: string;
}

/** The stored file's header, and its body decompressed (it is kept as brotli). */
function readStored(dir: string): { header: Header; body: string } {
  const bytes = readFileSync(statePath(dir));
  const newline = bytes.indexOf(0x0a);
  const lengthEnd = bytes.indexOf(0x0a, newline + 1);
  const body = brotliDecompressSync(bytes.subarray(lengthEnd + 1)).toString('utf8');
  // The body starts with the output's length in bytes, on a line of its own.
  expect(bytes.toString('ascii', newline + 1, lengthEnd)).toBe(String(Buffer.byteLength(body)));
  return { header: JSON.parse(bytes.toString('utf8', 0, newline)) as Header, body };
}

/** Writes the stored file whole, `body` as its bytes, their length and crc32 recomputed (as a careful hand-editor, or another build, would). */
function writeStoredBytes(dir: string, header: Header, body: Buffer): void {
  const bodySum = `crc32-${crc32(body).toString(16).padStart(8, '0')}`;
  writeFileSync(statePath(dir), Buffer.concat([Buffer.from(`${JSON.stringify({ ...header, bodyBytes: body.length, bodySum })}\n`), body]));
}

/** `output` as it is stored: its length line (`length`, its own by default), then the output as brotli. */
function packed(output: Buffer, length = output.length): Buffer {
  return Buffer.concat([Buffer.from(`${length}\n`), brotliCompressSync(output, { params: { [constants.BROTLI_PARAM_QUALITY]: 5 } })]);
}

/** As writeStoredBytes, with `body` stored as the output is. */
function writeStored(dir: string, header: Header, body: string): void {
  writeStoredBytes(dir, header, packed(Buffer.from(body, 'utf8')));
}

/** The bin's answer (the quick path first), every byte it printed, strings and bytes alike, in order. */
async function viaBin(argv: string[], cwd: string, env: Record<string, string | undefined> = {}): Promise<{ code: number; stdout: Buffer; stderr: string }> {
  const chunks: Buffer[] = [];
  let stderr = '';
  const io: Omit<CliIO, 'stdin'> = {
    stdout: (text) => void chunks.push(Buffer.from(text, 'utf8')),
    stdoutBytes: (bytes) => void chunks.push(Buffer.from(bytes)),
    stderr: (text) => void (stderr += text),
    env,
    cwd,
  };
  const code = await runBin(argv, io, () => Promise.resolve(), TABLE);
  return { code, stdout: Buffer.concat(chunks), stderr };
}

describe('state --json and its stored output', { timeout: 60_000 }, () => {
  it('the first call stores what it prints; the next prints those bytes; both are what a replay prints', async () => {
    const dir = tempDir();
    longSession(dir);
    const expected = replayed(dir);
    expect(existsSync(statePath(dir))).toBe(false);
    expect(stateJson(dir)).toBe(expected);
    const { header, body } = readStored(dir);
    expect(body).toBe(expected);
    expect(header).toMatchObject({
      format: format(),
      end: statSync(logPath(dir)).size,
      bodyBytes: statSync(statePath(dir)).size - readFileSync(statePath(dir)).indexOf(0x0a) - 1,
    });
    // Kept compressed: a fraction of what it prints.
    expect(header.bodyBytes * 5).toBeLessThan(Buffer.byteLength(expected));
    expect(stateJson(dir)).toBe(expected);
    const bin = await viaBin(['state', '--json', '--dir', dir], dir);
    expect(bin.code).toBe(0);
    expect(bin.stdout.equals(Buffer.from(expected, 'utf8'))).toBe(true);
    // Removed, it is rebuilt the same.
    rmSync(statePath(dir));
    expect(stateJson(dir)).toBe(expected);
    expect(readStored(dir).body).toBe(expected);
  });

  it('a current one is printed as it is, not rebuilt: a body rewritten whole shows what it says, through run and the bin', async () => {
    const dir = tempDir();
    longSession(dir);
    stateJson(dir);
    const { header, body } = readStored(dir);
    const edited = body.replace('"agentSession": null', '"agentSession": "from-the-store"');
    expect(edited).not.toBe(body);
    writeStored(dir, header, edited);
    expect(stateJson(dir)).toBe(edited);
    expect((await viaBin(['state', '--json', '--dir', dir], dir)).stdout.toString('utf8')).toBe(edited);
    // Everything else reads the log: replay, verify, the text state, status.
    const replay = runCli(['replay', '--json', '--dir', dir], { cwd: dir });
    expect((JSON.parse(replay.stdout) as { state: unknown }).state).toEqual(JSON.parse(body));
    expect(runCli(['verify', '--dir', dir], { cwd: dir }).code).toBe(0);
    expect(runCli(['state', '--dir', dir], { cwd: dir }).stdout).not.toContain('from-the-store');
    expect(readStored(dir).body).toBe(edited);
  });

  it('a stale one (the log grew) is passed over and rewritten for the new last line', () => {
    const dir = tempDir();
    longSession(dir);
    const before = stateJson(dir);
    const seq = readStored(dir).header.seq;
    play(openFileSession(dir), 2, 1000);
    const expected = replayed(dir);
    expect(expected).not.toBe(before);
    expect(stateJson(dir)).toBe(expected);
    const { header, body } = readStored(dir);
    expect(header.seq).toBeGreaterThan(seq);
    expect(header.end).toBe(statSync(logPath(dir)).size);
    expect(body).toBe(expected);
  });

  describe('one that does not match is ignored, and rewritten with the same output', () => {
    // Byte for byte (latin1): the body is brotli, and only the header's ASCII is changed.
    const edit = (change: (text: string) => string) => (dir: string) => writeFileSync(statePath(dir), change(readFileSync(statePath(dir), 'latin1')), 'latin1');
    /** Changes the stored body's bytes, leaving the header as it was. */
    const editBody = (change: (body: Buffer) => Buffer) => (dir: string) => {
      const bytes = readFileSync(statePath(dir));
      const newline = bytes.indexOf(0x0a);
      writeFileSync(statePath(dir), Buffer.concat([bytes.subarray(0, newline + 1), change(Buffer.from(bytes.subarray(newline + 1)))]));
    };
    const cases: [string, (dir: string) => void][] = [
      [
        'an edited body, the same length (a byte changed)',
        editBody((body) => {
          const at = body.length >> 1;
          body[at] = body[at]! ^ 0x01;
          return body;
        }),
      ],
      ['an edited body, longer', editBody((body) => Buffer.concat([body, Buffer.from('X')]))],
      [
        'a plain body under the format a release that kept it plain wrote',
        (dir) => {
          const { header, body } = readStored(dir);
          writeStoredBytes(
            dir,
            { ...header, format: header.format.replace(/\/brotli$/, '') },
            Buffer.from(body.replace('"state": "', '"state": "PLAIN'), 'utf8'),
          );
        },
      ],
      [
        'a body that is no brotli after its length line, its length and crc right',
        (dir) => {
          const { header, body } = readStored(dir);
          const plain = Buffer.from(body.replace('"state": "', '"state": "PLAIN'), 'utf8');
          writeStoredBytes(dir, header, Buffer.concat([Buffer.from(`${plain.length}\n`), plain]));
        },
      ],
      ...(
        [
          ['a length line one byte short of the output', (length: number) => `${length - 1}`],
          ['a length line one byte past the output', (length: number) => `${length + 1}`],
          ['a length line of zero', () => '0'],
          ['a length line with a sign', (length: number) => `+${length}`],
          ['no length line', () => null],
        ] as const
      ).map(([name, line]): [string, (dir: string) => void] => [
        name,
        (dir) => {
          const { header, body } = readStored(dir);
          const output = Buffer.from(body.replace('"state": "', '"state": "LENGTH'), 'utf8');
          const compressed = brotliCompressSync(output);
          const given = line(output.length);
          writeStoredBytes(dir, header, given === null ? compressed : Buffer.concat([Buffer.from(`${given}\n`), compressed]));
        },
      ]),
      [
        'a body that decompresses to more than its length line gives (4 MiB of zeros under a length of 1,000)',
        (dir) => {
          const { header } = readStored(dir);
          writeStoredBytes(dir, header, Buffer.concat([Buffer.from('1000\n'), brotliCompressSync(Buffer.alloc(4 * 1024 * 1024))]));
        },
      ],
      [
        // Its length matches: only the bound on how far an output may run past its compressed bytes refuses it.
        'a length past 1,024 times the compressed bytes (zeros three times as long as the log, the length theirs)',
        (dir) => {
          const { header } = readStored(dir);
          const zeros = Buffer.alloc(3 * statSync(logPath(dir)).size);
          const compressed = brotliCompressSync(zeros);
          expect(zeros.length).toBeGreaterThan(compressed.length * 1024);
          writeStoredBytes(dir, header, packed(zeros));
        },
      ],
      [
        // Its length matches and it hardly compresses: only the bound on how far an output may run past the log refuses it.
        'a length past 4 times the log (random bytes five times as long as the log, the length theirs)',
        (dir) => {
          const { header } = readStored(dir);
          writeStoredBytes(dir, header, packed(randomBytes(5 * statSync(logPath(dir)).size)));
        },
      ],
      ['a body cut short', (dir) => truncateSync(statePath(dir), statSync(statePath(dir)).size - 10)],
      ['a body cut to nothing', edit((text) => text.slice(0, text.indexOf('\n') + 1))],
      ['a header alone, no newline', edit((text) => text.slice(0, text.indexOf('\n')))],
      ['an empty file', (dir) => writeFileSync(statePath(dir), '')],
      ['not JSON at all', (dir) => writeFileSync(statePath(dir), 'garbage\n{}')],
      ['an edited header (seq moved)', edit((text) => text.replace(/"seq":(\d+)/, (_, seq: string) => `"seq":${Number(seq) - 1}`))],
      ['an edited header (end moved)', edit((text) => text.replace(/"end":(\d+)/, (_, end: string) => `"end":${Number(end) - 1}`))],
      ['an edited header (another checksum)', edit((text) => text.replace(/"sum":"[0-9a-f]{16}"/, '"sum":"0123456789abcdef"'))],
      ['an edited header (another body checksum)', edit((text) => text.replace(/"bodySum":"crc32-[0-9a-f]{8}"/, '"bodySum":"crc32-00000000"'))],
      [
        'a body rewritten whole for another version of gapflow',
        (dir) => {
          const { header, body } = readStored(dir);
          writeStored(dir, { ...header, format: 'state-json-1/gapflow-0.0.1' }, body.replace('"state": "', '"state": "OLD'));
        },
      ],
      [
        'a body rewritten whole in another shape',
        (dir) => {
          const { header, body } = readStored(dir);
          writeStored(dir, { ...header, format: `state-json-0/gapflow-${packageVersion()}` }, body.replace('"state": "', '"state": "OLD'));
        },
      ],
      [
        'a body under a sha256 sum, as the checkpoints are (not what this file is checked by)',
        (dir) => {
          const { header } = readStored(dir);
          const bytes = readFileSync(statePath(dir));
          const text = JSON.stringify({ ...header, bodySum: '0'.repeat(32) });
          writeFileSync(statePath(dir), Buffer.concat([Buffer.from(`${text}\n`), bytes.subarray(bytes.indexOf(0x0a) + 1)]));
        },
      ],
      [
        'a last line edited in place and sealed anew (the same length and seq, another checksum)',
        (dir) => {
          const lines = readFileSync(logPath(dir), 'utf8').split('\n').filter(Boolean);
          const last = lines.at(-1)!;
          const edited = last.replace(/"at":"2026/, '"at":"2027');
          expect(edited).not.toBe(last);
          const { line } = sealLine(`${edited.replace(/,"sum":"[0-9a-f]{16}"\}$/, '')}}`, lines.at(-2)!.slice(-18, -2));
          expect(line.length).toBe(last.length + 1);
          writeFileSync(logPath(dir), `${[...lines.slice(0, -1), line.slice(0, -1)].join('\n')}\n`);
        },
      ],
      [
        'a symlink in its place (to a copy that would match: not followed)',
        (dir) => {
          const { header, body } = readStored(dir);
          writeStored(dir, header, body.replace('"state": "', '"state": "LINKED'));
          renameSync(statePath(dir), join(dir, 'elsewhere.json'));
          symlinkSync('elsewhere.json', statePath(dir));
        },
      ],
    ];
    for (const [name, spoil] of cases) {
      it(name, async () => {
        const dir = tempDir();
        longSession(dir);
        stateJson(dir);
        // Marked first (rewritten whole, so it would be printed as it is): an answer from it shows.
        const { header, body: rendered } = readStored(dir);
        writeStored(dir, header, rendered.replace('"agentSession": null', '"agentSession": "stored"'));
        spoil(dir);
        const expected = replayed(dir);
        expect(expected).not.toContain('"stored"');
        const bin = await viaBin(['state', '--json', '--dir', dir], dir);
        expect(bin.stderr).toBe('');
        expect(bin.stdout.toString('utf8')).toBe(expected);
        const rewritten = readStored(dir);
        expect(rewritten.header.format).toBe(format());
        expect(rewritten.header.end).toBe(statSync(logPath(dir)).size);
        expect(rewritten.body).toBe(expected);
        expect(stateJson(dir)).toBe(expected);
      });
    }
  });

  it('a failed write leaves the command as it was: its output, exit 0, nothing on stderr', async () => {
    const dir = tempDir();
    longSession(dir);
    const expected = replayed(dir);
    // A folder where the file goes: it is no file to read, and the rename over it fails.
    mkdirSync(statePath(dir));
    writeFileSync(join(statePath(dir), 'inside'), 'x');
    expect(stateJson(dir)).toBe(expected);
    const bin = await viaBin(['state', '--json', '--dir', dir], dir);
    expect(bin).toEqual({ code: 0, stdout: Buffer.from(expected, 'utf8'), stderr: '' });
    expect(statSync(statePath(dir)).isDirectory()).toBe(true);
  });

  it('a log too short to need it gets none', () => {
    const dir = tempDir();
    const session = createFileSession(dir, {}, fixedStamps());
    play(session, 2);
    expect(stateJson(dir)).toBe(replayed(dir));
    expect(existsSync(statePath(dir))).toBe(false);
  });

  it('replay reads and writes none, and a new session in the folder removes the old one', () => {
    const dir = tempDir();
    longSession(dir);
    expect(runCli(['replay', '--json', '--dir', dir], { cwd: dir }).code).toBe(0);
    expect(existsSync(statePath(dir))).toBe(false);
    stateJson(dir);
    expect(existsSync(statePath(dir))).toBe(true);
    // The log gone (deleted, or cut to nothing by `repair`): `init` starts afresh, and no cache of the old session stays.
    rmSync(logPath(dir));
    expect(runCli(['state', '--json', '--dir', dir], { cwd: dir }).code).not.toBe(0);
    expect(runCli(['init', '--dir', dir], { cwd: dir }).code).toBe(0);
    for (const file of [STATE_FILE, CHECKPOINT_FILE, HEAD_FILE]) expect(existsSync(join(dir, file)), file).toBe(false);
  });

  it('a torn last line is not hidden by it: state --json fails as it did, and answers from it again once repaired', () => {
    const dir = tempDir();
    longSession(dir);
    const expected = stateJson(dir);
    appendFileSync(logPath(dir), '{"v":2,"seq":');
    expect(runCli(['state', '--json', '--dir', dir], { cwd: dir }).code).toBe(1);
    expect(runCli(['repair', '--dir', dir], { cwd: dir }).code).toBe(0);
    expect(stateJson(dir)).toBe(expected);
    expect(replayed(dir)).toBe(expected);
  });

  it('the bin answers from it only for `state --json` with a --dir at most; any other words go to the command, as run answers them', async () => {
    const dir = tempDir();
    longSession(dir);
    const expected = stateJson(dir);
    // Marked, so an answer from the stored output shows.
    const { header, body } = readStored(dir);
    const marked = body.replace('"agentSession": null', '"agentSession": "stored"');
    writeStored(dir, header, marked);
    const root = join(dir, '..');
    const name = dir.slice(root.length + 1);
    const stored: [string[], Record<string, string>][] = [
      [['state', '--json', '--dir', dir], {}],
      [['--dir', dir, 'state', '--json'], {}],
      [['--json', 'state', `--dir=${dir}`], {}],
      [['state', '--json', '--dir', name], {}],
      [['state', '--json'], { GAPFLOW_DIR: dir }],
      [['state', '--json', '--json', '--dir', 'elsewhere', '--dir', dir], {}],
    ];
    for (const [argv, env] of stored) {
      const bin = await viaBin(argv, root, env);
      expect(bin.stdout.toString('utf8'), argv.join(' ')).toBe(marked);
    }
    const command: [string[], Record<string, string>][] = [
      [['state', '--dir', dir], {}],
      [['state', '--json', '--dir', dir, '--format', 'nope'], {}],
      [['state', '--json', '--dir', dir, 'extra'], {}],
      [['state', '--json', '--dir', ''], {}],
      [['state', '--json', '--dir', dir, '--help'], {}],
      [['state', '--json', '--dir', dir, '--'], {}],
      [['state', '--json', '--dir', dir, '--dir'], {}],
      [['state', '--json', '--dir', dir, '--verbose'], {}],
    ];
    for (const [argv, env] of command) {
      const bin = await viaBin(argv, root, env);
      let stdout = '';
      let stderr = '';
      const code = run(argv, { stdout: (text) => void (stdout += text), stderr: (text) => void (stderr += text), env, cwd: root });
      expect({ code: bin.code, stdout: bin.stdout.toString('utf8'), stderr: bin.stderr }, argv.join(' ')).toEqual({ code, stdout, stderr });
    }
    expect(expected).not.toBe(marked);
  });
});
