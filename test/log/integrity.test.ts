import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createFileSession, createMemorySession, FileLog, LogError, openFileSession, Session, verifyFileSession } from '../../src/index.js';
import { EVENT_VERSION } from '../../events/index.js';
import { MAX_LINE_BYTES, repairLog, sealLine } from '../../src/log/index.js';
import { toStateJson } from '../../src/core/index.js';

const dirs: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'gapflow-integrity-'));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A five-event session: started, GAP-1 HIGH, GAP-2 LOW, round 1 started, GAP-1 -> IN_PROGRESS. */
function fiveEvents(): { dir: string; path: string; lines: string[] } {
  const dir = tempDir();
  const session = createFileSession(dir);
  session.openGap('GAP-1', 'HIGH');
  session.openGap('GAP-2', 'LOW');
  session.startRound();
  session.moveGap('GAP-1', 'IN_PROGRESS');
  const path = join(dir, 'events.jsonl');
  return { dir, path, lines: readFileSync(path, 'utf8').split('\n').slice(0, -1) };
}
const joined = (lines: readonly string[]) => `${lines.map((line) => `${line}\n`).join('')}`;

describe('the checksum chain', () => {
  it('each sum is, as the README says, the first 16 hex digits of sha256(previous sum + the line without its sum)', () => {
    const { lines } = fiveEvents();
    let previous = '';
    for (const line of lines) {
      const sum = (JSON.parse(line) as { sum: string }).sum;
      expect(line.endsWith(`,"sum":"${sum}"}`)).toBe(true);
      const content = `${line.slice(0, -`,"sum":"${sum}"}`.length)}}`;
      expect(sum).toBe(
        createHash('sha256')
          .update(previous + content)
          .digest('hex')
          .slice(0, 16),
      );
      previous = sum;
    }
  });

  // `readsRefuse`: a read refuses too (its seq is wrong, which every read checks); else only the chain shows it, which
  // only `verify` walks: a read takes the line as it stands, as it would past a checkpoint that covers it.
  it.each([
    [
      'an edited line (HIGH -> LOW, still valid JSON and schema)',
      (l: string[]) => l.map((x, i) => (i === 1 ? x.replace('"HIGH"', '"LOW"') : x)),
      2,
      /checksum mismatch/,
      false,
    ],
    ['a dropped line', (l: string[]) => [l[0]!, l[2]!, l[3]!, l[4]!], 2, /seq 3 where 2 was expected/, true],
    ['a repeated line', (l: string[]) => [l[0]!, l[1]!, l[1]!, l[2]!, l[3]!, l[4]!], 3, /seq 2 where 3 was expected/, true],
    ['two lines swapped', (l: string[]) => [l[0]!, l[2]!, l[1]!, l[3]!, l[4]!], 2, /seq 3 where 2 was expected/, true],
    [
      'two lines swapped with their seq fixed by hand',
      (l: string[]) => [l[0]!, l[2]!.replace('"seq":3', '"seq":2'), l[1]!.replace('"seq":2', '"seq":3'), l[3]!, l[4]!],
      2,
      /checksum mismatch/,
      false,
    ],
  ])('detects %s, names the first bad line, and repair refuses to touch it', (_name, corrupt, line, reason, readsRefuse) => {
    const { dir, path, lines } = fiveEvents();
    writeFileSync(path, joined(corrupt(lines)));
    const before = readFileSync(path);
    const found = verifyFileSession(dir);
    expect(found.problem).toMatch(new RegExp(`line ${line}: `));
    expect(found.problem).toMatch(reason);
    expect(found.torn).toBe(false);
    if (readsRefuse) expect(() => openFileSession(dir, { checkpoints: false })).toThrow(new RegExp(`line ${line}: `));
    else expect(openFileSession(dir, { checkpoints: false }).view.lastSeq).toBe(5);
    expect(() => repairLog(dir)).toThrow(/repair cuts only a torn last line and this is not one: nothing was changed/);
    expect(readFileSync(path).equals(before)).toBe(true);
    expect(readdirSync(dir).filter((name) => name.includes('torn'))).toEqual([]);
  });

  it('a read walks no chain: a line edited in place that it does not end on opens, with a checkpoint over it or none, and verify names it', () => {
    const { dir, path, lines } = fiveEvents();
    // A checkpoint over all five lines (any length of log gets one here).
    const first = Session.open(new FileLog(dir, { minCheckpointBytes: 1 }));
    first.saveCheckpoints();
    expect(existsSync(join(dir, 'checkpoint.json'))).toBe(true);
    // As long as it was (JSON takes the space), so the line the checkpoint ends on is still where it says.
    writeFileSync(path, joined(lines.map((x, i) => (i === 1 ? x.replace('"HIGH"', '"LOW" ') : x))));
    // Past the checkpoint, the line is not read at all; with none, it is read as it stands. Neither refuses, so
    // whether a session opens never hangs on whether a cache was there (as it did: an edit a checkpoint covered
    // opened until a new version's first read, which has no checkpoint to use, refused it).
    expect(Session.open(new FileLog(dir, { minCheckpointBytes: 1 })).view.gaps.get('GAP-1')?.severity).toBe('HIGH');
    expect(openFileSession(dir, { checkpoints: false }).view.gaps.get('GAP-1')?.severity).toBe('LOW');
    expect(verifyFileSession(dir).problem).toMatch(/line 2: checksum mismatch/);
  });

  it('a whole last line whose checksum is bad may be an edit: reads refuse, and repair refuses to cut it', () => {
    const { dir, path, lines } = fiveEvents();
    const edited = lines[4]!.replace(/"sum":"[0-9a-f]{16}"/, '"sum":"0000000000000000"');
    writeFileSync(path, joined([...lines.slice(0, 4), edited]));
    const found = verifyFileSession(dir);
    expect(found.problem).toMatch(/line 5: checksum mismatch/);
    expect(found.torn).toBe(false);
    // The line a read ends on is the one whose sum it checks (a checkpoint would be keyed by it, an append chain to it).
    expect(() => openFileSession(dir)).toThrow(/line 5: checksum mismatch/);
    const before = readFileSync(path);
    expect(() => repairLog(dir)).toThrow(/line 5/);
    expect(Buffer.compare(readFileSync(path), before)).toBe(0);
  });

  it('a line dropped before the last is never taken for a torn tail: repair cuts nothing', () => {
    const { dir, path, lines } = fiveEvents();
    writeFileSync(path, joined([...lines.slice(0, 3), lines[4]!]));
    const found = verifyFileSession(dir);
    expect(found.problem).toMatch(/line 4: seq 5 where 4 was expected/);
    expect(found.torn).toBe(false);
    const before = readFileSync(path);
    expect(() => repairLog(dir)).toThrow(/line 4/);
    expect(Buffer.compare(readFileSync(path), before)).toBe(0);
  });

  it('a last line that is not even JSON (a write cut short, then a newline) is a torn tail: repair cuts it and keeps it', () => {
    const { dir, path, lines } = fiveEvents();
    const cut = lines[4]!.slice(0, 40);
    writeFileSync(path, joined([...lines.slice(0, 4), cut]));
    const found = verifyFileSession(dir);
    expect(found.torn).toBe(true);
    expect(() => openFileSession(dir)).toThrow(/line 5: .*gapflow repair/);
    const report = repairLog(dir);
    expect(report.cut).toMatchObject({ line: 5, bytes: Buffer.byteLength(`${cut}\n`) });
    expect(readFileSync(report.cut!.backup!, 'utf8')).toBe(`${cut}\n`);
    expect(readFileSync(path, 'utf8')).toBe(joined(lines.slice(0, 4)));
    expect(verifyFileSession(dir).problem).toBeNull();
  });

  it('a log cut at any byte is either whole lines (clean) or a torn tail that repair cuts back to whole lines', () => {
    const { dir, path } = fiveEvents();
    const full = readFileSync(path);
    const ends = [...full.entries()].filter(([, byte]) => byte === 0x0a).map(([i]) => i + 1);
    for (let size = 1; size < full.length; size++) {
      writeFileSync(path, full.subarray(0, size));
      const whole = ends.filter((end) => end <= size);
      const found = verifyFileSession(dir);
      if (ends.includes(size)) {
        expect(found.problem, `cut at ${size}`).toBeNull();
        continue;
      }
      expect(found.torn, `cut at ${size}`).toBe(true);
      expect(found.fault!.line).toBe(whole.length + 1);
      const report = repairLog(dir);
      const kept = whole.at(-1) ?? 0;
      // With not even session.started left, repair removes the log, so init can start again.
      if (kept === 0) expect(existsSync(path), `cut at ${size}`).toBe(false);
      else expect(readFileSync(path).equals(full.subarray(0, kept)), `cut at ${size}`).toBe(true);
      expect(readFileSync(report.cut!.backup!).equals(full.subarray(kept, size))).toBe(true);
      rmSync(report.cut!.backup!);
    }
  }, 30_000);

  it('nothing is appended after a torn tail, even by a session opened before it tore', () => {
    const { dir, path } = fiveEvents();
    const session = openFileSession(dir);
    writeFileSync(path, `${readFileSync(path, 'utf8')}{"v":2,"seq":6,"id":"half`);
    const before = readFileSync(path);
    expect(() => session.openGap('GAP-3', 'LOW')).toThrow(/line 6: .*torn.*nothing was written/);
    expect(readFileSync(path).equals(before)).toBe(true);
  });
});

describe('schema evolution', () => {
  const fixture = new URL('../fixtures/v1-session.jsonl', import.meta.url);

  /** The requests the fixture recorded (with gapflow 0.1), made again now. */
  function sameRequests(session: Session): void {
    session.openGap('GAP-1', 'HIGH', { title: 'Parser | <b>contract</b>' });
    session.openGap('GAP-2', 'MEDIUM');
    session.startRound();
    session.moveGap('GAP-2', 'RESOLVED');
    session.openGap('GAP-3', 'LOW', { spawnedBy: 'GAP-1' });
    session.closeRound();
    session.moveGap('GAP-3', 'IN_PROGRESS');
    session.closeRound();
    session.makeDecision('pause');
  }

  it('a version 1 log whose ids a library caller made (any characters but control ones) still opens', () => {
    const dir = tempDir();
    const lines = readFileSync(fixture, 'utf8').trimEnd().split('\n');
    const renamed = lines.map((line, i) => line.replace(/"id":"[^"]*"/, `"id":"evt/${i + 1} (0.1)"`));
    writeFileSync(join(dir, 'events.jsonl'), `${renamed.join('\n')}\n`);
    expect(verifyFileSession(dir).problem).toBeNull();
    expect(openFileSession(dir).view.lastSeq).toBe(lines.length);
  });

  it('a version 1 log (no checksums) is upcast on read and replays to what the same requests give now', () => {
    const dir = tempDir();
    copyFileSync(fixture, join(dir, 'events.jsonl'));
    const text = readFileSync(fixture, 'utf8');
    expect(text).toContain('"v":1');
    expect(text).not.toContain('"sum"');
    const old = openFileSession(dir);
    const now = createMemorySession();
    sameRequests(now);
    expect(toStateJson(old.view)).toEqual(toStateJson(now.view));
    expect(old.log.read().every((event) => event.v === EVENT_VERSION)).toBe(true);
    expect(verifyFileSession(dir).problem).toBeNull();
  });

  it('appending to a version 1 log chains version 2 lines after it; a version 1 line after those is refused', () => {
    const dir = tempDir();
    const path = join(dir, 'events.jsonl');
    copyFileSync(fixture, path);
    openFileSession(dir).makeDecision('resume');
    openFileSession(dir).openGap('GAP-4', 'LOW');
    const lines = readFileSync(path, 'utf8').split('\n').slice(0, -1);
    expect(lines.slice(-2).every((line) => line.startsWith(`{"v":${EVENT_VERSION},`) && /"sum":"[0-9a-f]{16}"\}$/.test(line))).toBe(true);
    expect(verifyFileSession(dir).problem).toBeNull();
    const oldStyle = lines[12]!.replace(`{"v":${EVENT_VERSION},`, '{"v":1,').replace(/,"sum":"[0-9a-f]{16}"\}$/, '}');
    writeFileSync(path, joined([...lines.slice(0, 12), oldStyle, lines[12]!]));
    expect(verifyFileSession(dir).problem).toMatch(/line 13: a version 1 line \(no checksum\) after checksummed lines/);
  });
});

describe('idempotent appends and the expected seq (library)', () => {
  it('an event id already in the log appends nothing and returns the original event', () => {
    const { dir, path } = fiveEvents();
    const session = openFileSession(dir);
    const [first] = session.openGap('GAP-3', 'LOW', {}, { eventId: 'hook-7' }).events;
    const before = readFileSync(path);
    const again = openFileSession(dir).openGap('GAP-3', 'LOW', {}, { eventId: 'hook-7' });
    expect(again).toEqual({ events: [first], appended: [], duplicate: true });
    expect(readFileSync(path).equals(before)).toBe(true);
  });

  it.each([['__proto__'], ['constructor'], ['toString']])('%s works as an event id like any other', (id) => {
    const { dir } = fiveEvents();
    const [event] = openFileSession(dir).openGap('GAP-3', 'LOW', {}, { eventId: id }).events;
    expect(event!.id).toBe(id);
    const session = openFileSession(dir);
    expect(session.openGap('GAP-3', 'LOW', {}, { eventId: id })).toEqual({ events: [event], appended: [], duplicate: true });
    expect(session.view.lastSeq).toBe(6);
  });

  it('an event id reused for another kind of request is refused, naming the original', () => {
    const { dir } = fiveEvents();
    openFileSession(dir).openGap('GAP-3', 'LOW', {}, { eventId: 'hook-7' });
    expect(() => openFileSession(dir).moveGap('GAP-3', 'IN_PROGRESS', {}, { eventId: 'hook-7' })).toThrow(
      /event id hook-7 is already in the log as seq 6 \(gap\.opened GAP-3\), not gap\.moved GAP-3/,
    );
  });

  it('an event id reused for the same kind of request about another gap is refused too, writing nothing', () => {
    const { dir, path } = fiveEvents();
    openFileSession(dir).openGap('GAP-8', 'LOW', {}, { eventId: 'r' });
    const before = readFileSync(path);
    expect(() => openFileSession(dir).openGap('GAP-7', 'CRITICAL', {}, { eventId: 'r' })).toThrow(/\(gap\.opened GAP-8\), not gap\.opened GAP-7/);
    expect(Buffer.compare(readFileSync(path), before)).toBe(0);
  });

  it('the event id goes to the request own event, not to the round it starts', () => {
    const dir = tempDir();
    const session = createFileSession(dir);
    session.openGap('GAP-1', 'LOW');
    session.startRound();
    session.closeRound();
    const { events } = session.openGap('GAP-2', 'LOW', {}, { eventId: 'mine' });
    expect(events.map((e) => [e.type, e.id === 'mine'])).toEqual([
      ['round.started', false],
      ['gap.opened', true],
    ]);
    expect(openFileSession(dir).openGap('GAP-2', 'LOW', {}, { eventId: 'mine' })).toEqual({ events: [events[1]], appended: [], duplicate: true });
  });

  it.each([['has space'], [''], ['x'.repeat(129)], ['a/b'], ['line\nbreak']])('an event id %j is refused', (id) => {
    const { dir, path } = fiveEvents();
    const before = readFileSync(path);
    expect(() => openFileSession(dir).openGap('GAP-3', 'LOW', {}, { eventId: id })).toThrow(/event id/);
    expect(readFileSync(path).equals(before)).toBe(true);
  });

  it('create with an expected seq of 0 succeeds once; a retried create with the same event id opens the session', () => {
    const dir = tempDir();
    createFileSession(dir, {}, undefined, { expectSeq: 0, eventId: 'init-1' }).openGap('GAP-1', 'LOW');
    const again = Session.init(new FileLog(dir), {}, undefined, { eventId: 'init-1' });
    expect(again.duplicate).toBe(true);
    expect(again.events.map((e) => [e.seq, e.id])).toEqual([[1, 'init-1']]);
    expect(again.session.view.gaps.has('GAP-1')).toBe(true);
    expect(() => createFileSession(dir, {}, undefined, { eventId: 'init-2' })).toThrow(/already holds a session/);
    expect(() => createFileSession(tempDir(), {}, undefined, { expectSeq: 3 })).toThrow(/no log yet/);
  });
});

describe('the lock', () => {
  function lockWith(dir: string, content: string): string {
    const lock = join(dir, 'events.jsonl.lock');
    writeFileSync(lock, content);
    return lock;
  }

  it('a lock left by a process that is gone is broken at once', () => {
    const { dir } = fiveEvents();
    const dead = spawnSync(process.execPath, ['-e', '0']).pid!;
    const lock = lockWith(dir, JSON.stringify({ pid: dead, host: hostname(), at: Date.now(), nonce: 'x' }));
    openFileSession(dir).openGap('GAP-3', 'LOW');
    expect(existsSync(lock)).toBe(false);
    expect(openFileSession(dir).view.lastSeq).toBe(6);
  });

  it('an empty lock (its writer died creating it) is broken once it is a second old', () => {
    const { dir } = fiveEvents();
    const lock = lockWith(dir, '');
    const old = new Date(Date.now() - 5000);
    utimesSync(lock, old, old);
    openFileSession(dir).openGap('GAP-3', 'LOW');
    expect(existsSync(lock)).toBe(false);
  });
});

describe('size limits', () => {
  it('a stored line over the limit is refused naming the limit', () => {
    const { dir, path } = fiveEvents();
    writeFileSync(path, `${readFileSync(path, 'utf8')}{"title":"${'x'.repeat(MAX_LINE_BYTES)}"}\n`);
    expect(verifyFileSession(dir).problem).toMatch(/line 6: the line is over the 1 MiB limit/);
  });

  it('a line over the limit before the last (JSON whitespace makes one that reads) is refused by reads too, naming it', () => {
    const { dir, path, lines } = fiveEvents();
    // After the version, so the line starts as a current one does and is read the short way.
    const padded = lines[1]!.replace('"seq":', `${' '.repeat(MAX_LINE_BYTES)}"seq":`);
    writeFileSync(path, joined([lines[0]!, padded, ...lines.slice(2)]));
    expect(verifyFileSession(dir).problem).toMatch(/line 2: the line is over the 1 MiB limit/);
    expect(() => openFileSession(dir, { checkpoints: false })).toThrow(/line 2: the line is over the 1 MiB limit/);
  });

  it('an event that would make a line over the limit is refused and nothing is written', () => {
    const { dir, path } = fiveEvents();
    const log = new FileLog(dir);
    const [, opened] = log.read();
    const gaps = Array.from({ length: 9000 }, (_, i) => `G${i}-${'x'.repeat(120)}`);
    const huge = { ...opened!, seq: 6, id: 'huge', type: 'decision.made' as const, data: { kind: 'narrow_scope' as const, gaps } };
    const before = readFileSync(path);
    expect(() => log.append([huge], 5)).toThrow(LogError);
    expect(() => log.append([huge], 5)).toThrow(/over the 1 MiB limit; nothing was written/);
    expect(readFileSync(path).equals(before)).toBe(true);
  });
});

describe('creating a log', () => {
  it('a new log appears whole, in a folder made for it', () => {
    const dir = join(tempDir(), 'a', 'b');
    createFileSession(dir);
    expect(readdirSync(dir)).toEqual(['events.jsonl']);
    expect(verifyFileSession(dir).problem).toBeNull();
  });

  it('a sealed line can be made by hand (sealLine) and is read like any other', () => {
    const { dir, path, lines } = fiveEvents();
    const previous = /"sum":"([0-9a-f]{16})"/.exec(lines[4]!)![1]!;
    const content = JSON.stringify({
      v: 2,
      seq: 6,
      id: 'hand',
      at: '2026-01-12T10:00:00.000Z',
      type: 'gap.opened',
      data: { id: 'GAP-9', severity: 'LOW', title: '', blocking: true },
    });
    mkdirSync(dir, { recursive: true });
    writeFileSync(path, `${readFileSync(path, 'utf8')}${sealLine(content, previous).line}`);
    expect(openFileSession(dir).view.gaps.has('GAP-9')).toBe(true);
  });
});
