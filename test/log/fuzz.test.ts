import { spawnSync } from 'node:child_process';
import { closeSync, constants, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { run } from '../../src/cli/index.js';
import { createFileSession, LogError, openFileSession, Refusal, verifyFileSession } from '../../src/index.js';
import { sealLine } from '../../src/log/index.js';
import { EVENT_VERSION } from '../../events/index.js';
import { BATCH_INPUT, EVENT_INPUT, MAX_LOG_BYTES, readStandardInput, type InputLimit } from '../../src/log/index.js';

/*
 * Fuzz: malformed lines appended to a good log, hostile requests through
 * the CLI and the library, and inputs too large or endless (a batch or a
 * metrics file around its limit, /dev/zero, a FIFO, odd things at the log's
 * path). Whatever comes, gapflow answers with a result or one clear error
 * (LogError, Refusal, a usage error): never another throw, never an
 * uncaught error, never a hang, never a changed log after a refusal.
 */

const LINE_RUNS = 6_000;
const REQUEST_RUNS = 4_000;
const SIZED_RUNS = 40;
const ENDLESS_RUNS = 16;
const LOG_PATH_RUNS = 30;
const posix = process.platform !== 'win32';

const root = mkdtempSync(join(tmpdir(), 'gapflow-fuzz-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const dir = join(root, 'session');
const path = join(dir, 'events.jsonl');
const session = createFileSession(dir);
session.openGap('GAP-A', 'HIGH');
session.openGap('GAP-B', 'LOW');
session.startRound();
session.moveGap('GAP-A', 'IN_PROGRESS');
const BASE = readFileSync(path);
const LAST_SUM = /"sum":"([0-9a-f]{16})"\}\n$/.exec(BASE.toString('utf8'))![1]!;
const NEXT = {
  v: 2,
  seq: 6,
  id: 'next',
  at: '2026-01-12T10:00:00.000Z',
  type: 'gap.opened',
  data: { id: 'GAP-C', severity: 'LOW', title: 'next', blocking: true },
};
const NEXT_LINE = sealLine(JSON.stringify(NEXT), LAST_SUM).line;

const tally = {
  cases: 0,
  crashes: 0,
  uncaught: 0,
  changedAfterRefusal: 0,
  refused: 0,
  accepted: 0,
  appendedAfterBadLine: 0,
  wrongInputVerdicts: 0,
  slowestInputMs: 0,
};
const onUncaught = () => void (tally.uncaught += 1);
process.on('uncaughtException', onUncaught);
process.on('unhandledRejection', onUncaught);
afterAll(() => {
  process.off('uncaughtException', onUncaught);
  process.off('unhandledRejection', onUncaught);
});

const hostileString = fc.oneof(
  fc.constantFrom(
    '__proto__',
    'constructor',
    'prototype',
    'toString',
    '<script>alert(1)</script>',
    '| a | b |',
    '**x**',
    '[x](javascript:1)',
    '\u0000',
    'a\nb',
    '\u202e',
    '\ud800',
    '',
  ),
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.integer({ min: 1, max: 3000 }).map((n) => 'x'.repeat(n)),
);
const depth = fc.integer({ min: 1, max: 5_000 });

/** A line that is not a good next event, as bytes. */
const badLine: fc.Arbitrary<Buffer> = fc.oneof(
  fc.uint8Array({ maxLength: 200 }).map((bytes) => Buffer.from(bytes)),
  fc.jsonValue().map((value) => Buffer.from(`${JSON.stringify(value)}\n`)),
  // One edit to the good next line: a changed, dropped or inserted character, or a cut.
  fc
    .tuple(fc.nat(NEXT_LINE.length - 1), fc.nat(20), fc.string({ unit: 'binary', maxLength: 3 }))
    .map(([at, drop, insert]) => Buffer.from(NEXT_LINE.slice(0, at) + insert + NEXT_LINE.slice(at + drop))),
  // Sealed properly, so the schema and the rules judge what is inside.
  fc
    .record({
      // The current version too: a sealed line of it gets only a quick look on reads (verify parses it in full).
      v: fc.oneof(fc.constantFrom(1, 2, 3, EVENT_VERSION, EVENT_VERSION, 99, 0, -1, 2.5), fc.jsonValue()),
      seq: fc.oneof(fc.constant(6), fc.integer()),
      id: fc.oneof(fc.constant('fuzz-6'), hostileString),
      at: fc.oneof(
        fc.constantFrom('2026-01-12T09:00:06.000Z', '2026-13-45T99:00:00Z', '2025-02-29T10:00:00Z', '2026-04-31T10:00:00Z', '2024-02-29T10:00:00Z'),
        hostileString,
      ),
      type: fc.oneof(
        fc.constantFrom(
          'gap.opened',
          'gap.moved',
          'gap.severity_changed',
          'session.bound',
          'round.started',
          'decision.made',
          'round.closed',
          'metrics.recorded',
          'session.started',
          '__proto__',
        ),
        fc.string(),
      ),
      data: fc.oneof(
        fc.record({ id: hostileString, severity: fc.constantFrom('LOW', 'HIGH', 'URGENT'), title: hostileString, blocking: fc.boolean() }),
        fc.record(
          { id: fc.constantFrom('GAP-A', 'GAP-NEW'), to: fc.constantFrom('RESOLVED', 'LOW', 'DONE'), reason: hostileString },
          { requiredKeys: ['id', 'to'] },
        ),
        fc.record({ round: fc.oneof(fc.constantFrom(1, 2), fc.jsonValue()), outcome: fc.jsonValue() }, { requiredKeys: ['round'] }),
        fc.record({ agentSession: hostileString, policies: fc.jsonValue() }, { requiredKeys: [] }),
        fc.dictionary(hostileString, fc.jsonValue(), { maxKeys: 4 }),
        fc.jsonValue(),
      ),
    })
    .map((event) => Buffer.from(sealLine(JSON.stringify(event), LAST_SUM).line)),
  depth.map((d) => Buffer.from(`${JSON.stringify(NEXT).slice(0, -1)},"deep":${'['.repeat(d)}${']'.repeat(d)}}\n`)),
  fc.constantFrom(Buffer.from(`{"v":2,"seq":6,"title":"${'x'.repeat(1_100_000)}"}\n`), Buffer.from(`${'['.repeat(100_000)}\n`)),
  // Invalid UTF-8 or NUL bytes inside the good line.
  fc.tuple(fc.nat(NEXT_LINE.length - 2), fc.constantFrom([0xff], [0xc3, 0x28], [0xed, 0xa0, 0x80], [0x00], [0xe2, 0x82])).map(([at, bytes]) => {
    const line = Buffer.from(NEXT_LINE);
    return Buffer.concat([line.subarray(0, at), Buffer.from(bytes), line.subarray(at)]);
  }),
);

/** Runs the CLI in-process and checks its one-line error contract; returns the exit code, or null for a crash. */
function cli(argv: string[], stdin?: (limit: InputLimit) => string): number | null {
  return cliRun(argv, stdin)?.code ?? null;
}

/** `cli`, also handing back stdout and stderr. */
function cliRun(argv: string[], stdin?: (limit: InputLimit) => string): { code: number; stdout: string; stderr: string } | null {
  let stdout = '';
  let stderr = '';
  let code: number;
  try {
    code = run(argv, { stdout: (text) => void (stdout += text), stderr: (text) => void (stderr += text), env: {}, cwd: root, ...(stdin ? { stdin } : {}) });
  } catch {
    return null;
  }
  if (code !== 0 && (!stderr.startsWith('gapflow: ') || stderr.slice(0, -1).includes('\n'))) return null;
  return { code, stdout, stderr };
}

/**
 * Puts the log back as a new file: rewriting it in place (O_TRUNC) makes
 * ext4 flush it on close, which would make this suite wait on the disk.
 */
function reset(bytes: Buffer): void {
  rmSync(path, { force: true });
  writeFileSync(path, bytes);
}

function isClearError(error: unknown): boolean {
  return error instanceof LogError || error instanceof Refusal;
}

const MiB = 1024 * 1024;

function mkfifo(at: string): void {
  const made = spawnSync('mkfifo', [at]);
  if (made.status !== 0) throw new Error(`mkfifo ${at}: ${made.stderr.toString('utf8')}`);
}

type Fill = 'spaces' | 'nul' | 'bad first line' | 'two-byte characters';

/** `bytes` bytes of UTF-8 text of one kind; none of them is a batch or metrics gapflow would take. */
function filled(fill: Fill, bytes: number): string {
  if (fill === 'spaces') return ' '.repeat(bytes);
  if (fill === 'nul') return '\u0000'.repeat(bytes);
  if (fill === 'two-byte characters') return 'é'.repeat(Math.floor(bytes / 2)) + ' '.repeat(bytes % 2);
  const first = '{"type":"gap.moved","data":{"id":"GAP-NOPE","to":"RESOLVED"}}\n';
  return first.slice(0, bytes) + ' '.repeat(Math.max(0, bytes - first.length));
}

/** An input a few bytes either side of its limit, or well past it. */
const sizedInput = fc.record({
  command: fc.constantFrom('append', 'record', 'hook'),
  viaFile: fc.boolean(),
  over: fc.oneof(fc.constantFrom(-1, 0, 1, 2), fc.integer({ min: -4096, max: 4096 }), fc.integer({ min: 1, max: 3 * MiB })),
  fill: fc.constantFrom<Fill>('spaces', 'nul', 'bad first line', 'two-byte characters'),
});

/** A stop hook's answer that lets the agent stop and tells the user why: one JSON line, no decision, a systemMessage. */
function letsStopSaying(stdout: string): boolean {
  if (!stdout.endsWith('\n') || stdout.trimEnd().includes('\n')) return false;
  try {
    const answer = JSON.parse(stdout) as { decision?: unknown; systemMessage?: unknown };
    return answer.decision === undefined && typeof answer.systemMessage === 'string' && answer.systemMessage.startsWith('gapflow hook: ');
  } catch {
    return false;
  }
}

describe('fuzz: malformed lines and hostile requests', () => {
  it(`${LINE_RUNS} malformed lines after a good log: verify and every reader answer cleanly; nothing is appended after one`, () => {
    fc.assert(
      fc.property(badLine, (line) => {
        tally.cases += 1;
        const corrupt = Buffer.concat([BASE, line]);
        reset(corrupt);
        let ok = true;
        let problem: string | null = null;
        try {
          problem = verifyFileSession(dir).problem;
          if (problem !== null && problem.includes('\n')) ok = false;
        } catch {
          ok = false;
        }
        const code = cli(['gap', 'open', 'GAP-Z', '--severity', 'LOW', '--dir', dir]);
        if (code === null) ok = false;
        else if (code !== 0) {
          tally.refused += 1;
          if (!readFileSync(path).equals(corrupt)) tally.changedAfterRefusal += 1;
        } else {
          tally.accepted += 1;
          // Only a line verify found sound (a well-formed event, or blank bytes after a good log) may be appended after.
          if (problem !== null) tally.appendedAfterBadLine += 1;
        }
        if (!ok) tally.crashes += 1;
        return ok && tally.changedAfterRefusal === 0 && tally.appendedAfterBadLine === 0;
      }),
      { numRuns: LINE_RUNS },
    );
  }, 170_000);

  it(`${REQUEST_RUNS} hostile requests through the CLI and the library: a result or one clear error, and no change after a refusal`, () => {
    const argv = fc.oneof(
      fc
        .tuple(hostileString, fc.oneof(fc.constantFrom('LOW', 'high', 'URGENT'), hostileString), hostileString, hostileString)
        .map(([id, sev, title, eventId]) => ['gap', 'open', id, '--severity', sev, '--title', title, '--event-id', eventId]),
      fc
        .tuple(hostileString, hostileString, fc.oneof(fc.integer().map(String), hostileString))
        .map(([id, state, seq]) => ['gap', 'move', id, state, '--expect-seq', seq]),
      fc
        .tuple(fc.constantFrom('narrow-scope', 'approve', 'pause', '__proto__'), hostileString)
        .map(([kind, gaps]) => ['decide', kind, '--gaps', gaps, '--rationale', gaps]),
      fc.array(hostileString, { maxLength: 6 }),
    );
    const request = fc.record({
      type: fc.oneof(fc.constantFrom('gap.opened', 'gap.moved', 'decision.made', 'constructor'), fc.string()),
      data: fc.jsonValue(),
    });
    fc.assert(
      fc.property(fc.boolean(), argv, request, hostileString, (viaCli, words, body, eventId) => {
        tally.cases += 1;
        reset(BASE);
        let ok = true;
        if (viaCli) {
          const code = cli([...words, '--dir', dir]);
          if (code === null) ok = false;
          else if (code !== 0) {
            tally.refused += 1;
            if (!readFileSync(path).equals(BASE)) tally.changedAfterRefusal += 1;
          } else tally.accepted += 1;
        } else {
          try {
            // The library is typed, but a caller in plain JavaScript passes anything.
            openFileSession(dir).record(body as never, { eventId });
            tally.accepted += 1;
          } catch (error) {
            if (!isClearError(error)) ok = false;
            else tally.refused += 1;
            if (!readFileSync(path).equals(BASE)) tally.changedAfterRefusal += 1;
          }
        }
        if (!ok) tally.crashes += 1;
        return ok && tally.changedAfterRefusal === 0 && tally.appendedAfterBadLine === 0;
      }),
      { numRuns: REQUEST_RUNS },
    );
  }, 170_000);

  it(`${SIZED_RUNS} inputs around their limits (a batch, a metrics file, the hook's stdin): refused past the limit, in one line, and only then`, () => {
    fc.assert(
      fc.property(sizedInput, ({ command, viaFile, over, fill }) => {
        tally.cases += 1;
        reset(BASE);
        const limit = command === 'append' ? BATCH_INPUT : EVENT_INPUT;
        const bytes = Math.max(0, limit.maxBytes + over);
        const text = filled(fill, bytes);
        const file = join(root, 'input.txt');
        rmSync(file, { force: true });
        if (viaFile && command !== 'hook') writeFileSync(file, text);
        const stdin = () => text;
        const argv = {
          append: viaFile ? ['append', '--file', file] : ['append'],
          record: ['record', 'quality', '--json', viaFile ? file : '-'],
          hook: ['hook', 'claude'],
        }[command];
        const started = Date.now();
        const result = cliRun([...argv, '--dir', dir], stdin);
        tally.slowestInputMs = Math.max(tally.slowestInputMs, Date.now() - started);
        if (result === null) {
          tally.crashes += 1;
          return false;
        }
        const tooBig = bytes > limit.maxBytes;
        const namesLimit = result.stderr.includes(`over the ${limit.maxBytes / MiB} MiB limit`);
        // The hook lets the agent stop whatever happens: exit 0, a message for the user, and its warning says why.
        const refused = command === 'hook' ? letsStopSaying(result.stdout) && result.stderr !== '' : result.code !== 0;
        const right = tooBig === namesLimit && (!tooBig || refused);
        if (!right) tally.wrongInputVerdicts += 1;
        if (refused) tally.refused += 1;
        else tally.accepted += 1;
        const unchanged = readFileSync(path).equals(BASE);
        if (!unchanged) tally.changedAfterRefusal += 1;
        return right && unchanged;
      }),
      { numRuns: SIZED_RUNS },
    );
  }, 170_000);

  it.skipIf(!posix)(
    `${ENDLESS_RUNS} endless inputs (/dev/zero, /dev/urandom, a FIFO; as a path or as stdin): refused at once or at the limit, never read to the end`,
    () => {
      const fifo = join(root, 'input.fifo');
      mkfifo(fifo);
      fc.assert(
        fc.property(
          fc.constantFrom('append', 'record', 'hook'),
          fc.constantFrom('/dev/zero', '/dev/urandom', fifo),
          fc.boolean(),
          (command, source, asPath) => {
            // A FIFO with no writer is an empty stdin, not an endless one: it goes as a path, and the hook reads only stdin.
            fc.pre(!(command === 'hook' && source === fifo));
            tally.cases += 1;
            reset(BASE);
            const viaPath = command !== 'hook' && (asPath || source === fifo);
            const limit = command === 'append' ? BATCH_INPUT : EVENT_INPUT;
            const fd = viaPath ? null : openSync(source, constants.O_RDONLY | constants.O_NONBLOCK);
            const argv = {
              append: viaPath ? ['append', '--file', source] : ['append'],
              record: ['record', 'quality', '--json', viaPath ? source : '-'],
              hook: ['hook', 'claude'],
            }[command];
            const started = Date.now();
            let result;
            try {
              result = cliRun([...argv, '--dir', dir], fd === null ? undefined : (asked) => readStandardInput(asked, fd));
            } finally {
              if (fd !== null) closeSync(fd);
            }
            tally.slowestInputMs = Math.max(tally.slowestInputMs, Date.now() - started);
            if (result === null) {
              tally.crashes += 1;
              return false;
            }
            const said = viaPath ? 'not a regular file' : `over the ${limit.maxBytes / MiB} MiB limit`;
            const refused = command === 'hook' ? letsStopSaying(result.stdout) : result.code === 1;
            const right = refused && result.stderr.includes(said);
            if (right) tally.refused += 1;
            else tally.wrongInputVerdicts += 1;
            const unchanged = readFileSync(path).equals(BASE);
            if (!unchanged) tally.changedAfterRefusal += 1;
            return right && unchanged;
          },
        ),
        { numRuns: ENDLESS_RUNS },
      );
    },
    170_000,
  );

  it.skipIf(!posix)(
    `${LOG_PATH_RUNS} things at the log's path that are not a log (a FIFO, a symlink, a folder, a file past the limit): a reader and a writer refuse, touching nothing`,
    () => {
      const elsewhere = join(root, 'elsewhere.jsonl');
      writeFileSync(elsewhere, BASE);
      fc.assert(
        fc.property(fc.constantFrom('fifo', 'symlink to a log', 'symlink to /dev/zero', 'folder', 'past the limit'), fc.boolean(), (kind, writer) => {
          tally.cases += 1;
          rmSync(path, { recursive: true, force: true });
          if (kind === 'fifo') mkfifo(path);
          if (kind === 'symlink to a log') symlinkSync(elsewhere, path);
          if (kind === 'symlink to /dev/zero') symlinkSync('/dev/zero', path);
          if (kind === 'folder') mkdirSync(path);
          if (kind === 'past the limit') {
            writeFileSync(path, BASE);
            truncateSync(path, MAX_LOG_BYTES + 1);
          }
          const started = Date.now();
          const result = cliRun(writer ? ['gap', 'open', 'GAP-Z', '--severity', 'LOW', '--dir', dir] : ['state', '--dir', dir]);
          tally.slowestInputMs = Math.max(tally.slowestInputMs, Date.now() - started);
          rmSync(path, { recursive: true, force: true });
          reset(BASE);
          if (result === null) {
            tally.crashes += 1;
            return false;
          }
          const right = result.code === 1 && result.stderr.includes(path);
          if (right) tally.refused += 1;
          else tally.wrongInputVerdicts += 1;
          const unchanged = readFileSync(elsewhere).equals(BASE);
          if (!unchanged) tally.changedAfterRefusal += 1;
          return right && unchanged;
        }),
        { numRuns: LOG_PATH_RUNS },
      );
    },
    170_000,
  );

  it('prints its figures', () => {
    console.log(
      `fuzz: ${tally.cases} generated cases (${LINE_RUNS} malformed lines, ${REQUEST_RUNS} hostile requests half through the CLI, half through the library, ${SIZED_RUNS + ENDLESS_RUNS + LOG_PATH_RUNS} large, endless or foreign inputs), ${tally.crashes} crashes, ${tally.uncaught} uncaught errors, ${tally.changedAfterRefusal} changes to the log after a refusal, ${tally.appendedAfterBadLine} appends after a bad line, ${tally.wrongInputVerdicts} wrong verdicts on large, endless or foreign inputs (${tally.refused} refused, ${tally.accepted} accepted; slowest large input ${tally.slowestInputMs} ms)`,
    );
    expect(tally.cases).toBeGreaterThanOrEqual(10_000);
    expect(tally.crashes).toBe(0);
    expect(tally.uncaught).toBe(0);
    expect(tally.changedAfterRefusal).toBe(0);
    expect(tally.appendedAfterBadLine).toBe(0);
    expect(tally.wrongInputVerdicts).toBe(0);
  });
});
