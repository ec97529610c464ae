import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, truncateSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { createFileSession, FileLog, openFileSession, Session, type EventStore } from '../../src/index.js';
import { closedBucketOf, closedIndexLines, closedIndexLookUp, closedIndexOf, encodeView, toStateJson } from '../../src/core/index.js';
import { renderPrompt, renderStatus } from '../../src/render/index.js';
import { CHECKPOINT_FILE, CHECKPOINT_MIN_TAIL_BYTES, CLOSED_FILE, HEAD_FILE, openCheckpointParts } from '../../src/log/index.js';
import { verifyFileSession, viewFormat } from '../../src/session/index.js';
import { runBin, TABLE } from '../../src/cli/index.js';
import { runCli, type CliResult } from '../cli/helpers.js';
import { diverge, fixedStamps, tempDirs } from '../support.js';

const tempDir = tempDirs('gapflow-checkpoint-');

/** One call through the bin's loader, in-process. */
async function viaBin(argv: string[], cwd: string): Promise<CliResult> {
  const out = { code: 0, stdout: '', stderr: '' };
  out.code = await runBin(
    argv,
    { stdout: (text) => void (out.stdout += text), stderr: (text) => void (out.stderr += text), env: {}, cwd },
    () => Promise.resolve(),
    TABLE,
  );
  return out;
}

/**
 * Plays `rounds` rounds of a session with every kind of move: gaps opened,
 * worked on, blocked, resolved, re-graded, a pause and a resume, so the
 * view holds gaps, rounds, history and decisions.
 */
function play(session: Session, rounds: number, from = 0): void {
  for (let r = from; r < from + rounds; r++) {
    if (!session.view.roundOpen) session.startRound();
    session.openGap(`G-${r}-a`, 'HIGH', { title: `first of round ${r}` });
    session.openGap(`G-${r}-b`, 'LOW', { title: `second of round ${r}` });
    session.openGap(`G-${r}-c`, 'MEDIUM', { title: `third of round ${r}` });
    session.moveGap(`G-${r}-a`, 'IN_PROGRESS');
    session.moveGap(`G-${r}-b`, 'IN_PROGRESS');
    session.moveGap(`G-${r}-b`, 'BLOCKED', { reason: 'waits on a', blockedBy: `G-${r}-a` });
    if (r > from) {
      session.moveGap(`G-${r - 1}-a`, 'RESOLVED');
      session.moveGap(`G-${r - 1}-b`, 'RESOLVED');
      session.moveGap(`G-${r - 1}-c`, 'RESOLVED');
      session.changeSeverity(`G-${r}-c`, 'LOW');
    }
    session.closeRound();
    if (session.view.machine.state === 'DIVERGENCE_WARNING') session.makeDecision('accept_complexity');
    if (r % 7 === 3 && session.view.machine.state !== 'COMPLETE') {
      session.makeDecision('pause');
      session.makeDecision('resume');
    }
  }
}

/** A session whose log is well past the size that earns a checkpoint. */
function longSession(dir: string, rounds = 60): Session {
  const session = createFileSession(dir, { maxRounds: 10_000, stallThreshold: 50 }, fixedStamps());
  play(session, rounds);
  return session;
}

/** Everything a reader shows of a session. */
function outputs(session: Session) {
  const { view } = session;
  return { state: JSON.stringify(toStateJson(view)), status: renderStatus(view), prompt: renderPrompt(view), seq: view.lastSeq };
}

/** What a replay of every line shows, with no checkpoint read or written. */
function replayed(dir: string) {
  return outputs(openFileSession(dir, { checkpoints: false }));
}

const checkpointPath = (dir: string) => join(dir, CHECKPOINT_FILE);
/** The header line and the body of the checkpoint in `dir`. */
function splitCheckpoint(dir: string): [string, string] {
  const text = readFileSync(checkpointPath(dir), 'utf8');
  const newline = text.indexOf('\n');
  return [text.slice(0, newline), text.slice(newline + 1)];
}
const logPath = (dir: string) => join(dir, 'events.jsonl');
/** One turn of the event loop: what an open (the CLI's too) leaves to write goes out then. */
const turn = () => new Promise((resolve) => setImmediate(resolve));
/** A session opened, and the caller's turn over: an open's checkpoints are written by then. */
function opened(dir: string): Session {
  const session = openFileSession(dir);
  session.saveCheckpoints();
  return session;
}

describe('checkpoints', { timeout: 60_000 }, () => {
  it('a long log gets one on open, written once the caller yields, and reading from it shows what a full replay shows', async () => {
    const dir = tempDir();
    longSession(dir);
    expect(statSync(logPath(dir)).size).toBeGreaterThan(CHECKPOINT_MIN_TAIL_BYTES);
    rmSync(checkpointPath(dir), { force: true });
    const cold = openFileSession(dir);
    // The open pays for reading only: the checkpoint goes out on the event loop's next turn.
    expect(existsSync(checkpointPath(dir))).toBe(false);
    await turn();
    expect(existsSync(checkpointPath(dir))).toBe(true);
    const warm = opened(dir);
    expect(outputs(warm)).toEqual(outputs(cold));
    expect(outputs(warm)).toEqual(replayed(dir));
  });

  it('a short log gets no whole checkpoint (replaying it is cheaper), but a head: reading that loads no schema', () => {
    const dir = tempDir();
    longSession(dir, 3);
    opened(dir);
    expect(existsSync(checkpointPath(dir))).toBe(false);
    expect(existsSync(join(dir, HEAD_FILE))).toBe(true);
  });

  it('a log that is mostly its gaps gets no whole checkpoint (a second copy of them, which saves little over replaying the log), and loses the one it had', () => {
    const dir = tempDir();
    longSession(dir);
    opened(dir);
    expect(existsSync(checkpointPath(dir))).toBe(true);
    // Gaps with long titles, opened one after another: the view's gaps alone run to over half the log.
    const writer = opened(dir);
    for (let i = 0; i < 600; i++) writer.openGap(`LONG-${i}`, 'LOW', { title: `finding ${i} ${'x'.repeat(480)}` });
    const titles = [...writer.view.gaps.values()].reduce((sum, gap) => sum + gap.title.length, 0);
    expect(titles * 2).toBeGreaterThan(statSync(logPath(dir)).size);
    const reader = opened(dir);
    expect(existsSync(checkpointPath(dir))).toBe(false);
    expect(outputs(reader)).toEqual(replayed(dir));
    // And none is written again while that holds, by a read or a write.
    opened(dir).openGap('LONG-LAST', 'HIGH', { title: 'one more' });
    expect(outputs(opened(dir))).toEqual(replayed(dir));
    expect(existsSync(checkpointPath(dir))).toBe(false);
    expect(existsSync(join(dir, HEAD_FILE))).toBe(true);
  });

  it('an oversize whole checkpoint an older release left is removed by a plain read, which shows what a replay shows', () => {
    const dir = tempDir();
    const session = createFileSession(dir, { maxRounds: 10_000 }, fixedStamps());
    for (let i = 0; i < 600; i++) session.openGap(`LONG-${i}`, 'LOW', { title: `finding ${i} ${'x'.repeat(480)}` });
    expect(existsSync(checkpointPath(dir))).toBe(false);
    // Written as a release before this rule wrote it: whatever its size.
    const older = openFileSession(dir, { checkpoints: false });
    (session.log as FileLog).checkpoints.save(viewFormat(), older.view.lastSeq, () => encodeView(older.view));
    expect(statSync(checkpointPath(dir)).size * 2).toBeGreaterThan(statSync(logPath(dir)).size);
    const reader = opened(dir);
    expect(existsSync(checkpointPath(dir))).toBe(false);
    expect(outputs(reader)).toEqual(replayed(dir));
  });

  it('a whole checkpoint is written while the gaps are under 40% of the log, kept up to half, removed past it, and not written again until under 40%', () => {
    const dir = tempDir();
    longSession(dir);
    rmSync(checkpointPath(dir), { force: true });
    const session = openFileSession(dir, { checkpoints: false });
    const { view } = session;
    const end = statSync(logPath(dir)).size;
    // A store that has read the log (from its checkpoint when there is one), as a new process's has; `save` then keys to its last line.
    const store = () => {
      const log = new FileLog(dir);
      log.checkpoints.resume(viewFormat());
      return log;
    };
    const save = (log: FileLog, share: number) => log.checkpoints.save(viewFormat(), view.lastSeq, () => encodeView(view), Math.floor(end * share));
    save(store(), 0.45);
    expect(existsSync(checkpointPath(dir)), 'none written at 45% without one').toBe(false);
    save(store(), 0.39);
    expect(existsSync(checkpointPath(dir)), 'written under 40%').toBe(true);
    const kept = store();
    save(kept, 0.45);
    expect(existsSync(checkpointPath(dir)), 'one kept is rewritten at 45%').toBe(true);
    save(store(), 0.45);
    expect(existsSync(checkpointPath(dir)), 'and kept by a new store at 45%').toBe(true);
    save(kept, 0.51);
    expect(existsSync(checkpointPath(dir)), 'removed past half').toBe(false);
    save(kept, 0.45);
    expect(existsSync(checkpointPath(dir)), 'not written again at 45%').toBe(false);
    save(store(), 0.45);
    expect(existsSync(checkpointPath(dir)), 'nor by a new store').toBe(false);
    expect(outputs(opened(dir))).toEqual(replayed(dir));
  });

  it('with checkpoints off, nothing is written beside the log', () => {
    const dir = tempDir();
    longSession(dir);
    rmSync(checkpointPath(dir), { force: true });
    const session = openFileSession(dir, { checkpoints: false });
    play(session, 40, 1000);
    expect(existsSync(checkpointPath(dir))).toBe(false);
  });

  it('the lines after a checkpoint are folded on top of it, and writes go on from there', () => {
    const dir = tempDir();
    longSession(dir);
    opened(dir);
    const covered = JSON.parse(readFileSync(checkpointPath(dir), 'utf8').split('\n', 1)[0]!) as { seq: number };
    const writer = opened(dir);
    play(writer, 5, 500);
    expect(writer.view.lastSeq).toBeGreaterThan(covered.seq);
    expect(outputs(opened(dir))).toEqual(replayed(dir));
    expect(outputs(writer)).toEqual(replayed(dir));
  });

  it('writers keep it fresh: once the log past it reaches a quarter of its size, the next write rewrites it', () => {
    const dir = tempDir();
    const session = longSession(dir);
    const first = JSON.parse(readFileSync(checkpointPath(dir), 'utf8').split('\n', 1)[0]!) as { seq: number; bodyBytes: number; end: number };
    play(session, 80, 2000);
    const later = JSON.parse(readFileSync(checkpointPath(dir), 'utf8').split('\n', 1)[0]!) as { seq: number; end: number };
    expect(later.seq).toBeGreaterThan(first.seq);
    // Never more than a quarter of the checkpoint (or the minimum) is left for a reader to fold.
    const past = statSync(logPath(dir)).size - later.end;
    expect(past).toBeLessThan(Math.max(CHECKPOINT_MIN_TAIL_BYTES, statSync(checkpointPath(dir)).size / 4) + 4096);
    expect(outputs(opened(dir))).toEqual(replayed(dir));
  });

  describe('one that does not match is ignored and rebuilt, with the same output', () => {
    const cases: [string, (dir: string) => void][] = [
      [
        'an edited body (a figure changed)',
        (dir) => {
          const text = readFileSync(checkpointPath(dir), 'utf8');
          writeFileSync(checkpointPath(dir), text.replace('"weighted":', '"weighted":1'));
        },
      ],
      ['a body cut short', (dir) => truncateSync(checkpointPath(dir), statSync(checkpointPath(dir)).size - 10)],
      ['an empty file', (dir) => writeFileSync(checkpointPath(dir), '')],
      ['not JSON at all', (dir) => writeFileSync(checkpointPath(dir), 'garbage\n{}')],
      [
        "another build's format",
        (dir) => {
          const text = readFileSync(checkpointPath(dir), 'utf8');
          writeFileSync(checkpointPath(dir), text.replace(/"format":"[^"]*"/, '"format":"view-0"'));
        },
      ],
      [
        'a key naming a line that is not there (seq moved)',
        (dir) => {
          const text = readFileSync(checkpointPath(dir), 'utf8');
          writeFileSync(
            checkpointPath(dir),
            text.replace(/"seq":(\d+)/, (_, seq: string) => `"seq":${Number(seq) - 1}`),
          );
        },
      ],
      [
        "another session's checkpoint (same shape, another log)",
        (dir) => {
          const other = tempDir();
          const session = createFileSession(other, { maxRounds: 10_000, stallThreshold: 50 });
          play(session, 60);
          opened(other);
          copyFileSync(checkpointPath(other), checkpointPath(dir));
        },
      ],
      [
        'a log cut back to before the line it covers (a restore from a copy)',
        (dir) => {
          const { seq } = JSON.parse(readFileSync(checkpointPath(dir), 'utf8').split('\n', 1)[0]!) as { seq: number };
          const lines = readFileSync(logPath(dir), 'utf8').split('\n');
          writeFileSync(logPath(dir), `${lines.slice(0, seq - 5).join('\n')}\n`);
        },
      ],
    ];
    for (const [name, spoil] of cases) {
      it(name, () => {
        const dir = tempDir();
        longSession(dir);
        opened(dir);
        spoil(dir);
        const expected = replayed(dir);
        const read = opened(dir);
        expect(outputs(read)).toEqual(expected);
        // Rebuilt: a new one covers the log's last line, and reading from it shows the same.
        const header = JSON.parse(readFileSync(checkpointPath(dir), 'utf8').split('\n', 1)[0]!) as { seq: number; end: number };
        expect(header.seq).toBe(expected.seq);
        expect(header.end).toBe(statSync(logPath(dir)).size);
        expect(outputs(opened(dir))).toEqual(expected);
      });
    }
  });

  it('a read really starts from it: a body rewritten whole (its sum recomputed) shows what it says', async () => {
    const dir = tempDir();
    longSession(dir);
    opened(dir);
    const [headerLine, body] = splitCheckpoint(dir);
    const header = JSON.parse(headerLine) as Record<string, unknown>;
    const edited = body.replace(/"agentSession":null/, '"agentSession":"from-the-checkpoint"');
    expect(edited).not.toBe(body);
    const bodySum = createHash('sha256').update(edited).digest('hex').slice(0, 32);
    writeFileSync(checkpointPath(dir), `${JSON.stringify({ ...header, bodyBytes: Buffer.byteLength(edited), bodySum })}\n${edited}`);
    // A cache, not a proof: whoever rewrites it whole is believed by reads; verify reads the log alone.
    expect(opened(dir).view.agentSession).toBe('from-the-checkpoint');
    expect(openFileSession(dir, { checkpoints: false }).view.agentSession).toBeNull();
    expect(verifyFileSession(dir).problem).toBeNull();
    // `gapflow replay` reads every line from the first, whatever a checkpoint says, and leaves the checkpoint as it was.
    const replayedByCli = runCli(['replay', '--json', '--dir', dir], { cwd: dir });
    expect((JSON.parse(replayedByCli.stdout) as { state: { agentSession: unknown } }).state.agentSession).toBeNull();
    // …and writes none: with both gone, a replay leaves neither behind (a state read would write both).
    rmSync(checkpointPath(dir));
    rmSync(join(dir, HEAD_FILE), { force: true });
    rmSync(join(dir, CLOSED_FILE), { force: true });
    expect(runCli(['replay', '--dir', dir], { cwd: dir }).code).toBe(0);
    await turn();
    expect(readdirSync(dir).filter((name) => name.startsWith('checkpoint'))).toEqual([]);
    runCli(['state', '--dir', dir], { cwd: dir });
    await turn();
    expect(
      readdirSync(dir)
        .filter((name) => name.startsWith('checkpoint'))
        .sort(),
    ).toEqual([HEAD_FILE, CHECKPOINT_FILE, CLOSED_FILE].sort());
  });

  it('lines with multi-byte text (accents, emoji, CJK) are covered and read past exactly', () => {
    const dir = tempDir();
    const session = createFileSession(dir, { maxRounds: 10_000, stallThreshold: 50 }, fixedStamps());
    for (let i = 0; i < 400; i++) session.openGap(`U-${i}`, 'LOW', { title: `écart ${i} 😀 漢字 — ${'ü'.repeat(i % 40)}` });
    // Work on each gap, so the log holds more than its openings and a view checkpoint pays (FileCheckpoints.save).
    for (let i = 0; i < 400; i++) {
      session.moveGap(`U-${i}`, 'IN_PROGRESS');
      session.moveGap(`U-${i}`, 'BLOCKED');
    }
    opened(dir);
    expect(existsSync(checkpointPath(dir))).toBe(true);
    opened(dir).openGap('U-LAST', 'HIGH', { title: 'après 😀' });
    expect(outputs(opened(dir))).toEqual(replayed(dir));
    expect(verifyFileSession(dir).problem).toBeNull();
  });

  it('a symlink or a FIFO where the checkpoint goes is ignored at once (not followed, not waited on)', () => {
    const dir = tempDir();
    longSession(dir);
    const expected = replayed(dir);
    rmSync(checkpointPath(dir), { force: true });
    symlinkSync(CHECKPOINT_FILE, checkpointPath(dir));
    expect(outputs(opened(dir))).toEqual(expected);
    rmSync(checkpointPath(dir), { force: true });
    expect(spawnSync('mkfifo', [checkpointPath(dir)]).status).toBe(0);
    expect(outputs(opened(dir))).toEqual(expected);
  });

  it("a crashed writer's temp file is removed by the next checkpoint written, once it is a minute old", () => {
    const dir = tempDir();
    const session = longSession(dir);
    const old = `${checkpointPath(dir)}.0ld0ld0ld0ld.tmp`;
    const fresh = `${checkpointPath(dir)}.f4e5hf4e5hf4.tmp`;
    writeFileSync(old, 'half a checkpoint');
    writeFileSync(fresh, 'a writer still at work');
    const anHourAgo = new Date(Date.now() - 3_600_000);
    utimesSync(old, anHourAgo, anHourAgo);
    play(session, 80, 3000);
    expect(existsSync(old)).toBe(false);
    expect(existsSync(fresh)).toBe(true);
  });

  it("a store of the caller's own, without checkpoints, is read whole", () => {
    const dir = tempDir();
    longSession(dir);
    const file = new FileLog(dir);
    const plain: EventStore = {
      location: file.location,
      exists: () => file.exists(),
      read: (from) => file.read(from),
      create: (events) => file.create(events),
      byId: (id) => file.byId(id),
      transact: (known, decide, expected) => file.transact(known, decide, expected),
      append: (events, expected) => file.append(events, expected),
      follow: (from, listener, opts) => file.follow(from, listener, opts),
    };
    rmSync(checkpointPath(dir), { force: true });
    const session = Session.open(plain);
    expect(outputs(session)).toEqual(replayed(dir));
    session.openGap('OWN', 'LOW');
    expect(existsSync(checkpointPath(dir))).toBe(false);
  });

  it('a stale one (an earlier line) is used, and the rest of the log is folded onto it', () => {
    const dir = tempDir();
    const session = longSession(dir);
    opened(dir);
    const old = readFileSync(checkpointPath(dir));
    play(session, 3, 700);
    writeFileSync(checkpointPath(dir), old);
    expect(outputs(opened(dir))).toEqual(replayed(dir));
  });

  it('a crash between the append and the checkpoint loses nothing: the appended events are read past the older checkpoint', () => {
    const dir = tempDir();
    const session = longSession(dir);
    opened(dir);
    const beforeAppend = readFileSync(checkpointPath(dir));
    const appended = session.openGap('LAST', 'CRITICAL', { title: 'after the checkpoint' }).events.at(-1);
    // What a process killed after its fsync and before its checkpoint leaves: the new line, the old checkpoint and a half-written temp file.
    writeFileSync(checkpointPath(dir), beforeAppend);
    writeFileSync(`${checkpointPath(dir)}.0badc0ffee00.tmp`, beforeAppend.subarray(0, 100));
    const read = opened(dir);
    expect(read.view.lastSeq).toBe(appended!.seq);
    expect(read.view.gaps.get('LAST')?.severity).toBe('CRITICAL');
    expect(outputs(read)).toEqual(replayed(dir));
  });

  it('never hides damage from verify: an edited line it covers is still found, since verify reads every line', () => {
    const dir = tempDir();
    longSession(dir);
    opened(dir);
    const text = readFileSync(logPath(dir), 'utf8');
    // Same length, so the checkpoint's key (offset and last line) still matches.
    const edited = text.replace('first of round 7', 'FIRST of round 7');
    expect(edited).not.toBe(text);
    writeFileSync(logPath(dir), edited);
    // Reads start from the checkpoint, which covers that line, so they do not see the edit (the README says so)…
    expect(opened(dir).view.gaps.get('G-7-a')?.title).toBe('first of round 7');
    // …and verify, which reads every line and never the checkpoint, finds it.
    const found = verifyFileSession(dir);
    expect(found.problem).toMatch(/line \d+: checksum mismatch/);
    const cli = runCli(['verify', '--dir', dir], { cwd: dir });
    expect(cli.code).not.toBe(0);
    expect(cli.stderr + cli.stdout).toMatch(/checksum mismatch/);
  });

  it('a torn line after the checkpoint is reported as a full read reports it', () => {
    const dir = tempDir();
    const session = longSession(dir);
    opened(dir);
    session.openGap('TORN', 'LOW');
    const size = statSync(logPath(dir)).size;
    truncateSync(logPath(dir), size - 5);
    expect(() => opened(dir)).toThrow(/line \d+: the line has no newline at its end.*torn last line/);
    expect(() => openFileSession(dir, { checkpoints: false })).toThrow(/line \d+: the line has no newline at its end.*torn last line/);
  });

  it('a new session in the folder of an old one drops the old checkpoint', () => {
    const dir = tempDir();
    longSession(dir);
    opened(dir);
    rmSync(logPath(dir));
    createFileSession(dir);
    expect(readdirSync(dir)).not.toContain(CHECKPOINT_FILE);
  });

  it('the CLI prints the same state with and without it', async () => {
    const dir = tempDir();
    longSession(dir);
    rmSync(checkpointPath(dir), { force: true });
    const cold = runCli(['state', '--json', '--dir', dir], { cwd: dir });
    await turn();
    expect(existsSync(checkpointPath(dir))).toBe(true);
    const warm = runCli(['state', '--json', '--dir', dir], { cwd: dir });
    expect(cold.code).toBe(0);
    expect(warm).toEqual(cold);
    expect(JSON.parse(warm.stdout)).toEqual(JSON.parse(replayed(dir).state));
  });
});

describe('the head checkpoint (what next and a stop hook read)', { timeout: 60_000 }, () => {
  const headPath = (dir: string) => join(dir, HEAD_FILE);
  const stopInput = (agent: string) => JSON.stringify({ session_id: agent, hook_event_name: 'Stop', stop_hook_active: false });

  /** `next --json` and a stop hook's answer, from the CLI. */
  function loopAnswers(dir: string) {
    return {
      next: runCli(['next', '--json', '--dir', dir], { cwd: dir }),
      hook: runCli(['hook', 'claude', '--dir', dir], { cwd: dir, stdin: stopInput('agent-1') }),
    };
  }

  /** A long session ending in DIVERGENCE_WARNING: the prompt has everything to show. */
  function divergedSession(dir: string): Session {
    return diverge(longSession(dir), 'G-59-a');
  }

  it('every write leaves one that covers the last line, and next and the hook answer from it as from the whole log', () => {
    const dir = tempDir();
    const session = divergedSession(dir);
    const header = JSON.parse(readFileSync(headPath(dir), 'utf8').split('\n', 1)[0]!) as { seq: number };
    expect(header.seq).toBe(session.view.lastSeq);
    // Smaller than the whole view: closed gaps, old rounds and old history are not in it.
    opened(dir);
    expect(statSync(headPath(dir)).size * 4).toBeLessThan(statSync(checkpointPath(dir)).size);
    runCli(['hook', 'claude', '--dir', dir], { cwd: dir, stdin: stopInput('agent-1') }); // binds the session (a write)
    const fromHead = loopAnswers(dir);
    expect(JSON.parse(fromHead.next.stdout).action).toBe('ask_user');
    expect(JSON.parse(fromHead.next.stdout).prompt).toContain('NEW-C');
    rmSync(headPath(dir));
    rmSync(checkpointPath(dir), { force: true });
    expect(loopAnswers(dir)).toEqual(fromHead);
  });

  it('a read does not rewrite one that already covers the last line, and does rewrite one cut short', async () => {
    const dir = tempDir();
    longSession(dir);
    const before = statSync(headPath(dir), { bigint: true });
    // `state` opens the session every time (`state --json` may print its stored output instead).
    expect(runCli(['state', '--dir', dir], { cwd: dir }).code).toBe(0);
    await turn();
    const after = statSync(headPath(dir), { bigint: true });
    expect([after.ino, after.mtimeNs]).toEqual([before.ino, before.mtimeNs]);
    truncateSync(headPath(dir), statSync(headPath(dir)).size - 3);
    expect(runCli(['state', '--dir', dir], { cwd: dir }).code).toBe(0);
    await turn();
    expect(statSync(headPath(dir)).size).toBe(Number(before.size));
  });

  it('one that no longer covers the last line (a line appended since) is passed over for the whole view', () => {
    const dir = tempDir();
    const session = longSession(dir);
    const stale = readFileSync(headPath(dir));
    session.openGap('AFTER-HEAD', 'CRITICAL', { title: 'appended after the head' });
    writeFileSync(headPath(dir), stale);
    const answers = loopAnswers(dir);
    expect((JSON.parse(answers.next.stdout) as { openGaps: Record<string, string[]> }).openGaps.CRITICAL).toContain('AFTER-HEAD');
    rmSync(headPath(dir));
    expect(loopAnswers(dir)).toEqual(answers);
  });

  it('a hook call that must record (binding the session) opens the session and writes', () => {
    const dir = tempDir();
    const session = longSession(dir);
    expect(session.view.agentSession).toBeNull();
    const answer = runCli(['hook', 'claude', '--dir', dir], { cwd: dir, stdin: stopInput('agent-7') });
    expect(answer.code).toBe(0);
    expect(opened(dir).view.agentSession).toBe('agent-7');
    const header = JSON.parse(readFileSync(headPath(dir), 'utf8').split('\n', 1)[0]!) as { seq: number };
    expect(header.seq).toBe(opened(dir).view.lastSeq);
  });
});

describe('gap writes on the head', { timeout: 60_000 }, () => {
  /** Rewrites `file`'s body through `edit`, its header's length and sum recomputed (as a writer would). */
  function rewrite(dir: string, file: string, edit: (body: string) => string): void {
    const text = readFileSync(join(dir, file), 'utf8');
    const newline = text.indexOf('\n');
    const header = JSON.parse(text.slice(0, newline)) as Record<string, unknown>;
    const body = edit(text.slice(newline + 1));
    // The head is summed by sha256 (src/log/checkpoint.ts).
    const bodySum = createHash('sha256').update(body).digest('hex').slice(0, 32);
    writeFileSync(join(dir, file), `${JSON.stringify({ ...header, bodyBytes: Buffer.byteLength(body), bodySum })}\n${body}`);
  }

  it('gap open, move and severity decide on the head, not the whole view: an edited head shows in their answers', () => {
    const dir = tempDir();
    longSession(dir);
    opened(dir);
    const count = openFileSession(dir, { checkpoints: false }).view.open.count;
    rewrite(dir, HEAD_FILE, (body) => body.replace(`"open":{"count":${count},`, `"open":{"count":${count + 1000},`));
    // The head believed: the open count it announces is the edited one, moved on by one.
    expect(runCli(['gap', 'open', 'H-1', '--severity', 'LOW', '--title', 'on the head', '--dir', dir], { cwd: dir }).stdout).toContain(
      `open count ${count + 1001}`,
    );
    expect(runCli(['gap', 'move', 'H-1', 'IN_PROGRESS', '--dir', dir], { cwd: dir }).stdout).toContain(`open count ${count + 1001}`);
    // --json prints the whole state, so it opens the whole session, which the head never touches.
    const json = JSON.parse(runCli(['gap', 'move', 'H-1', 'RESOLVED', '--json', '--dir', dir], { cwd: dir }).stdout) as { state: { openGapCount: number } };
    expect(json.state.openGapCount).toBe(count);
    expect(verifyFileSession(dir).problem).toBeNull();
  });

  /** Rewrites the closed gaps' index in `dir` to list what `edit` makes of its lines, bucketed and summed as a writer would, under its header. */
  function rewriteIndex(dir: string, edit: (lines: string) => string): void {
    const text = readFileSync(join(dir, CLOSED_FILE), 'utf8');
    const newline = text.indexOf('\n');
    const header = JSON.parse(text.slice(0, newline)) as Record<string, unknown>;
    const body = text.slice(newline + 1);
    const rebuilt = closedIndexOf(edit(body.slice(body.indexOf('\n') + 1)));
    // The index's header sums its table line alone (src/log/checkpoint.ts); the table sums each bucket.
    const table = rebuilt.subarray(0, rebuilt.indexOf(0x0a) + 1);
    const bodySum = `crc32-${crc32(table).toString(16).padStart(8, '0')}`;
    writeFileSync(join(dir, CLOSED_FILE), Buffer.concat([Buffer.from(`${JSON.stringify({ ...header, bodyBytes: rebuilt.length, bodySum })}\n`), rebuilt]));
  }

  it('an index with a damaged bucket or table, cut, foreign or not the one the head names is not used: the write takes the whole view', async () => {
    const dir = tempDir();
    longSession(dir);
    opened(dir);
    const index = readFileSync(join(dir, CLOSED_FILE), 'utf8');
    expect(index).toContain('\nG-0-a Hr\n');
    const headerEnd = index.indexOf('\n') + 1;
    const tableEnd = index.indexOf('\n', headerEnd) + 1;
    const entries = index.slice(headerEnd, tableEnd - 1).split(' ');
    const bucket = closedBucketOf('G-0-a');
    const reuse = (id = 'G-0-a') => runCli(['gap', 'open', id, '--severity', 'LOW', '--dir', dir], { cwd: dir });
    const refused = 'gapflow: refused: gap.opened G-0-a: gap G-0-a already exists (HIGH, RESOLVED)\n';
    /** The index with G-0-a's table entry replaced, its header's sum left as it was or made to match. */
    const withEntry = (entry: string, resum: boolean) => {
      const table = `${entries.map((old, at) => (at === bucket ? entry : old)).join(' ')}\n`;
      const header = resum
        ? index.slice(0, headerEnd).replace(/"bodySum":"[^"]*"/, `"bodySum":"crc32-${crc32(table).toString(16).padStart(8, '0')}"`)
        : index.slice(0, headerEnd);
      return `${header}${table}${index.slice(tableEnd)}`;
    };
    const [bytes] = entries[bucket]!.split('/');
    const tamper = [
      // G-0-a's bucket edited in place (as long as it was), its crc left as it was.
      () => writeFileSync(join(dir, CLOSED_FILE), index.replace('\nG-0-a Hr\n', '\nG-0-x Hr\n')),
      // Its table entry edited, the header's sum left as it was.
      () => writeFileSync(join(dir, CLOSED_FILE), withEntry(`${bytes}/00000000`, false)),
      // Its table entry edited and the header summed again: the bucket no longer matches its crc.
      () => writeFileSync(join(dir, CLOSED_FILE), withEntry(`${bytes}/00000000`, true)),
      // Cut short: in G-0-a's line, and by its last byte.
      () => writeFileSync(join(dir, CLOSED_FILE), index.slice(0, index.indexOf('\nG-0-a ') + 4)),
      () => writeFileSync(join(dir, CLOSED_FILE), index.slice(0, -1)),
      // Whole, but of another format (another gapflow version, or the index before it had buckets).
      () => writeFileSync(join(dir, CLOSED_FILE), index.replace(/"format":"[^"]*"/, '"format":"view-1/gapflow-0.0.1/left-out-4"')),
      () => writeFileSync(join(dir, CLOSED_FILE), index.replace(/"format":"([^"]*)\/left-out-4"/, '"format":"$1/closed-1"')),
      // The layout before it listed the gaps not closed a head leaves out (closed ones only).
      () => writeFileSync(join(dir, CLOSED_FILE), index.replace(/"format":"([^"]*)\/left-out-4"/, '"format":"$1/closed-2"')),
      // Whole and well formed, but written at another line than the one the head names.
      () => {
        rewriteIndex(dir, (lines) => lines.replace('G-0-a Hr\n', ''));
        const text = readFileSync(join(dir, CLOSED_FILE), 'utf8');
        writeFileSync(
          join(dir, CLOSED_FILE),
          text.replace(/"seq":(\d+)/, (_, seq: string) => `"seq":${Number(seq) - 1}`),
        );
      },
    ];
    for (const [n, damage] of tamper.entries()) {
      damage();
      // Judged on the whole view, the reused id is refused as ever (an index believed without G-0-a would let it in),
      // by the session's head write and by the bin's short path alike.
      expect({ n, ...reuse() }).toEqual({ n, code: 1, stdout: '', stderr: refused });
      expect({ n, ...(await viaBin(['gap', 'open', 'G-0-a', '--severity', 'LOW', '--dir', dir], dir)) }).toEqual({ n, code: 1, stdout: '', stderr: refused });
      writeFileSync(join(dir, CLOSED_FILE), index);
    }
    // Damage to a bucket the write does not read goes unseen by it (and the next full write rebuilds the index).
    const other = closedBucketOf('G-1-a') === bucket ? 'G-2-a' : 'G-1-a';
    expect(closedBucketOf(other)).not.toBe(bucket);
    writeFileSync(join(dir, CLOSED_FILE), index.replace(`\n${other} Hr\n`, `\n${other.replace('G', 'X')} Hr\n`));
    expect(reuse().stderr).toBe(refused);
    writeFileSync(join(dir, CLOSED_FILE), index);
    // The same index rewritten whole (its sums made to match) and still named by the head is believed, as a checkpoint is, on either path.
    rewriteIndex(dir, (lines) => lines.replace('G-0-a Hr\n', '').replace('G-1-a Hr\n', ''));
    expect((await viaBin(['gap', 'open', 'G-0-a', '--severity', 'LOW', '--dir', dir], dir)).code).toBe(0);
    expect(reuse('G-1-a').code).toBe(0);
    // verify reads the log alone, and finds the id reused.
    expect(verifyFileSession(dir).findings.length).toBeGreaterThan(0);
  });

  it('an index of the layout before buckets (`closed-1`) beside the log is ignored, and the next write rebuilds it in buckets', () => {
    const dir = tempDir();
    longSession(dir);
    opened(dir);
    // The index as the version before wrote it: the lines alone, summed whole, under its format.
    const lines = openFileSession(dir, { checkpoints: false }).view;
    const body = closedIndexLines(lines.gaps.values());
    const old = readFileSync(join(dir, CLOSED_FILE), 'utf8');
    const header = JSON.parse(old.slice(0, old.indexOf('\n'))) as Record<string, unknown>;
    const format = (header.format as string).replace(/left-out-4$/, 'closed-1');
    expect(format).not.toBe(header.format);
    const oldHeader = { ...header, format, bodyBytes: Buffer.byteLength(body), bodySum: `crc32-${crc32(body).toString(16).padStart(8, '0')}` };
    writeFileSync(join(dir, CLOSED_FILE), `${JSON.stringify(oldHeader)}\n${body}`);
    expect(runCli(['gap', 'open', 'G-0-a', '--severity', 'LOW', '--dir', dir], { cwd: dir }).stderr).toBe(
      'gapflow: refused: gap.opened G-0-a: gap G-0-a already exists (HIGH, RESOLVED)\n',
    );
    expect(runCli(['gap', 'open', 'N-1', '--severity', 'LOW', '--dir', dir], { cwd: dir }).code).toBe(0);
    const rebuilt = openCheckpointParts(dir, header.format as string, CLOSED_FILE);
    // Rebuilt at the write's last event, in buckets.
    expect(rebuilt?.key.seq).toBe(openFileSession(dir, { checkpoints: false }).view.lastSeq);
    expect(rebuilt!.key.seq).toBeGreaterThan(lines.lastSeq);
    const lookUp = closedIndexLookUp(rebuilt!)!;
    expect(lookUp('G-0-a')).toEqual({ id: 'G-0-a', severity: 'HIGH', state: 'RESOLVED' });
    expect(lookUp('N-1')).toBeNull();
  });

  it("a write reads the index's header, table and the bucket it needs, not the whole", () => {
    const dir = tempDir();
    longSession(dir, 120);
    opened(dir);
    const size = statSync(join(dir, CLOSED_FILE)).size;
    const parts = openCheckpointParts(
      dir,
      (JSON.parse(readFileSync(join(dir, CLOSED_FILE), 'utf8').split('\n', 1)[0]!) as { format: string }).format,
      CLOSED_FILE,
    )!;
    const reads: number[] = [];
    const range = parts.range.bind(parts);
    const lookUp = closedIndexLookUp({ ...parts, range: (offset, length) => (reads.push(length), range(offset, length)) })!;
    expect(lookUp('G-0-a')).toEqual({ id: 'G-0-a', severity: 'HIGH', state: 'RESOLVED' });
    expect(lookUp('G-119-a')).toBeNull();
    expect(reads.length).toBeLessThanOrEqual(2);
    expect(Math.max(...reads)).toBeLessThan(size / 20);
    // A file replaced since (renamed over, as every writer does) is not read as the one opened.
    const text = readFileSync(join(dir, CLOSED_FILE));
    rmSync(join(dir, CLOSED_FILE));
    writeFileSync(join(dir, CLOSED_FILE), text);
    expect(parts.range(0, 10)).toBeNull();
  });

  it('a write that lands without a new head (a crash before it, another writer) leaves the head behind, and the next write takes the whole view', () => {
    const dir = tempDir();
    longSession(dir);
    opened(dir);
    const count = openFileSession(dir, { checkpoints: false }).view.open.count;
    rewrite(dir, HEAD_FILE, (body) => body.replace(`"open":{"count":${count},`, `"open":{"count":${count + 1000},`));
    // An append that writes no head: the head on disk no longer covers the log's last line.
    openFileSession(dir, { checkpoints: false }).openGap('C-1', 'LOW');
    expect(runCli(['gap', 'open', 'C-2', '--severity', 'LOW', '--dir', dir], { cwd: dir }).stdout).toContain(`open count ${count + 2}`);
    expect(outputs(opened(dir))).toEqual(replayed(dir));
  });

  it('gap, round and append calls answer as on the whole view: reused ids, unknown and closed gaps, a reopen (which takes the whole view), rounds and batches', () => {
    const [onHead, whole] = [tempDir(), tempDir()];
    for (const dir of [onHead, whole]) longSession(dir);
    openFileSession(onHead);
    rmSync(join(whole, HEAD_FILE));
    const calls = [
      ['gap', 'open', 'G-0-a', '--severity', 'LOW'],
      ['gap', 'open', 'N-1', '--severity', 'LOW', '--spawned-by', 'G-0-a'],
      ['gap', 'move', 'NOPE', 'RESOLVED'],
      ['gap', 'severity', 'G-0-b', 'HIGH'],
      ['gap', 'move', 'N-1', 'BLOCKED', '--blocked-by', 'G-1-c'],
      ['gap', 'move', 'N-1', 'WONT_FIX'],
      ['gap', 'open', 'N-1', '--severity', 'HIGH'],
      ['gap', 'move', 'G-0-a', 'OPEN'],
      ['round', 'close'],
      ['round', 'close'],
      ['round', 'start'],
      ['append', '--file', '-'],
      ['append', '--file', '-'],
      ['round', 'close'],
    ];
    const batch = [
      '{"type":"gap.opened","data":{"id":"B-1","severity":"HIGH","title":"from a batch"}}',
      '{"type":"gap.moved","data":{"id":"B-1","to":"RESOLVED"}}',
      '{"type":"gap.moved","data":{"id":"G-59-a","to":"RESOLVED"}}',
      '{"type":"round.closed","data":{"round":62}}',
      '{"type":"gap.opened","data":{"id":"B-2","severity":"LOW","title":"starts round 63"}}',
    ].join('\n');
    const indexFile = () => statSync(join(onHead, CLOSED_FILE)).ino;
    let tookHead = 0;
    for (const call of calls) {
      const before = indexFile();
      const [a, b] = [onHead, whole].map((dir) => runCli([...call, '--dir', dir], { cwd: dir, stdin: batch }));
      // A round's start or close closes no gap: on the head it leaves the index as it was, where the whole view rewrites it.
      if (call[0] === 'round' && a!.code === 0) {
        expect(indexFile()).toBe(before);
        tookHead += 1;
      }
      expect({ call, out: a!.stdout, err: a!.stderr, code: a!.code }).toEqual({ call, out: b!.stdout, err: b!.stderr, code: b!.code });
      // The copy without a head keeps none (each call rewrites it after its write).
      rmSync(join(whole, HEAD_FILE), { force: true });
    }
    expect(tookHead).toBe(3);
    const index = readFileSync(join(onHead, CLOSED_FILE), 'utf8');
    expect(index).toMatch(/\nN-1 Lw\n/);
    expect(outputs(openFileSession(onHead, { checkpoints: false }))).toEqual(replayed(whole));
  });
});
